"""The two front-ends a stack can use, for CLI tests that run the same user story through each.

A CLI test program is written once, importing ``TrainingJob`` from ``pulumi_modelarts`` (the dynamic provider,
as the examples do); ``FrontEnd.program`` gives the same program for the front-end under test (the native one
imports the generated SDK, ``pulumi_modelarts_native``, whose ``TrainingJob`` takes the same arguments), and
``FrontEnd.project_yaml`` the ``Pulumi.yaml`` lines it needs (the native one: the ``plugins`` block pointing
the engine at the plugin installed beside the Python interpreter, as docs/native-provider.md says).

Tests take a ``front_end`` parameter from ``FRONT_ENDS`` (ids ``dynamic`` and ``native``); a case that cannot
apply to one front-end is skipped for it with its reason, through ``front_ends(skip={...})``. Tests built on
the story project (story.py) take it from ``STORY_FRONT_ENDS``, which adds the native plugin driven from
TypeScript, Go and YAML programs (ids ``typescript``, ``go`` and ``yaml``; their programs: languages.py).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PLUGIN_DIR = Path(sys.executable).parent
DYNAMIC_IMPORT = "from pulumi_modelarts import "
NATIVE_IMPORT = "from pulumi_modelarts_native import "


@dataclass(frozen=True)
class FrontEnd:
    name: str
    type_token: str  # the TrainingJob resource type in the state
    language: str = "python"  # the project's runtime: python, nodejs (TypeScript), go or yaml

    @property
    def native(self) -> bool:
        """Through the native plugin (every language but the dynamic provider's Python)."""
        return self.name != "dynamic"

    def program(self, source: str) -> str:
        """The Python program for this front-end, from one written for the dynamic one."""
        assert self.language == "python", f"{self.name}: not a Python program"
        if not self.native:
            return source
        assert DYNAMIC_IMPORT in source, "a CLI test program imports TrainingJob from pulumi_modelarts"
        return source.replace(DYNAMIC_IMPORT, NATIVE_IMPORT)

    def project_yaml(self) -> str:
        if not self.native:
            return ""
        return f"plugins:\n  providers:\n    - name: modelarts\n      path: {PLUGIN_DIR}\n"

    def is_job(self, resource: dict[str, Any]) -> bool:
        return bool(resource["type"] == self.type_token)

    def progress_lines(self, text: str) -> list[str]:
        """The provider's progress lines as the CLI shows them.

        dynamic: lines prefixed ``modelarts: `` under the stack, none running into another;
        native: the engine's diagnostics block of each job (``modelarts:index:TrainingJob (<name>):``).
        """
        if not self.native:
            lines = [line.strip() for line in text.splitlines() if "modelarts: " in line]
            for line in lines:
                assert line.count("modelarts: ") == 1, f"progress lines ran together: {line!r}"
            return lines
        found: list[str] = []
        under_job = False
        for line in text.splitlines():
            if re.match(r"\s*modelarts:index:TrainingJob \(.+\):$", line):
                under_job = True
            elif under_job and line.startswith("    ") and line.strip():
                found.append(line.strip())
            elif not line.startswith("    "):
                under_job = False
        return found


DYNAMIC = FrontEnd("dynamic", "pulumi-python:dynamic/modelarts:TrainingJob")
NATIVE = FrontEnd("native", "modelarts:index:TrainingJob")
# The native plugin from programs in the other languages its SDKs serve (the story's programs: languages.py).
TYPESCRIPT = FrontEnd("typescript", "modelarts:index:TrainingJob", "nodejs")
GO = FrontEnd("go", "modelarts:index:TrainingJob", "go")
# YAML needs no SDK: its language host reads the provider's schema from the plugin.
YAML = FrontEnd("yaml", "modelarts:index:TrainingJob", "yaml")
FRONT_ENDS = [pytest.param(DYNAMIC, id="dynamic"), pytest.param(NATIVE, id="native")]
# Tests built on the story project (story.py) run for every language too; those cases are marked `languages`
# (select or leave them out with -m).
OTHER_LANGUAGES = [pytest.param(fe, id=fe.name, marks=pytest.mark.languages) for fe in (TYPESCRIPT, GO, YAML)]
STORY_FRONT_ENDS = [*FRONT_ENDS, *OTHER_LANGUAGES]
NATIVE_LANGUAGES = [pytest.param(NATIVE, id="native"), *OTHER_LANGUAGES]


def front_ends(*, skip: dict[str, str]) -> list[Any]:
    """FRONT_ENDS, with the named ones skipped for the given reason."""
    return [
        pytest.param(fe, id=fe.name, marks=pytest.mark.skip(reason=skip[fe.name]))
        if fe.name in skip
        else pytest.param(fe, id=fe.name)
        for fe in (DYNAMIC, NATIVE)
    ]

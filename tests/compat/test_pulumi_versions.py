"""Every supported pulumi Python SDK: the oldest pyproject.toml allows and the newest tested.

The rest of the suite runs with the development pins (constraints.txt). Here, for each of the other two SDKs,
an environment is built (tests/compat/venvs.py, cached by a stamp) and pytest runs in it, as a subprocess, the
unit tests of the modules that meet the pulumi SDK (the dynamic provider, the native plugin, the resource
classes, their inputs and diffing) and one CLI story per front-end: the dynamic provider, and the native
plugin with the generated Python SDK. The oldest environment also takes httpx and pydantic at their declared
floors.

To support a newer SDK: set ``newest`` in tests/compat/pulumi-versions.toml and run ``pytest -m compat``.
"""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from packaging.version import Version

from .venvs import REPO, declared_floor, ensure_venv, installed_version, newest_tested, pinned

pytestmark = [pytest.mark.compat, pytest.mark.cli]

# The unit tests of the modules that use the pulumi SDK (the rest of the unit suite never imports it).
UNIT_TESTS = [
    "tests/frontends/test_provider.py",
    "tests/frontends/test_plugin.py",
    "tests/frontends/test_resource.py",
    "tests/job/test_diffing.py",
    "tests/frontends/test_inputs.py",
    "tests/frontends/test_pickle.py",
    "tests/frontends/test_progress.py",
    "tests/job/test_check_unchanged.py",
]
STORY = (
    "tests/cli/test_story.py::test_up_creates_the_declared_jobs_then_preview_and_refresh_find_nothing_to_do"
)
STORIES = [f"{STORY}[dynamic]", f"{STORY}[native]"]
TESTS = [*UNIT_TESTS, *STORIES]


def _oldest() -> tuple[str, dict[str, str]]:
    return declared_floor("pulumi"), {name: declared_floor(name) for name in ("httpx", "pydantic")}


def _newest() -> tuple[str, dict[str, str]]:
    return newest_tested(), {}


def test_the_sdks_tested_here_are_not_the_pinned_one_and_bracket_it() -> None:
    oldest, newest, dev = _oldest()[0], _newest()[0], pinned("pulumi")

    assert Version(oldest) < Version(dev) <= Version(newest), (oldest, dev, newest)


@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_unit_tests_and_a_story_per_front_end_pass_with_the_sdk(which: str, tmp_path: Path) -> None:
    version, floors = _oldest() if which == "oldest" else _newest()
    python = ensure_venv(version, floors)
    assert installed_version(python, "pulumi") == version
    for name, floor in floors.items():
        assert Version(installed_version(python, name)) == Version(floor), name

    # The package imports without a warning (a warning would reach every program's output).
    imports = (
        "import pulumi_modelarts.wire.models, pulumi_modelarts.frontends.plugin, pulumi_modelarts_native"
    )
    subprocess.run(
        [str(python), "-W", "error", "-c", imports],
        check=True,
        cwd=tmp_path,
    )

    report = tmp_path / "report.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VIRTUAL_ENV"))}
    run = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={report}", *TESTS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    output = run.stdout[-6000:] + run.stderr[-3000:]
    assert run.returncode == 0, f"pulumi {version}: pytest exited {run.returncode}\n{output}"

    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    cases = {
        f"{case.get('classname')}::{case.get('name')}": [child.tag for child in case]
        for case in suite.iter("testcase")
    }
    assert len(cases) > 100, output  # the unit modules were collected, not only the stories
    for story in STORIES:
        name = story.split("::", 1)[1]
        ran = [tags for case, tags in cases.items() if case.endswith(f"::{name}")]
        assert len(ran) == 1, (story, sorted(cases), output)
        assert not {"skipped", "failure", "error"} & set(ran[0]), (story, ran, output)
    assert int(suite.get("failures", "1")) == 0 and int(suite.get("errors", "1")) == 0, output

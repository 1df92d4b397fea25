"""The native provider's state as a release left it: a committed fixture, and the script that captures it.

``python -m tests.cli.native_state <release>`` (run with the release checked out and set up) deploys the
program of ``tests/fixtures/upgrade/native-<release>/`` through the native plugin against a fresh emulator and
writes ``pulumi stack export`` of the result there as ``stack.json``. The test in test_upgrade.py imports that
state into a new stack and checks that the current code plans and applies nothing for it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from modelarts_emulator.testing import start_emulator

from ..support import emulator_env
from .front_ends import NATIVE
from .pulumi_cli import REPO, Stack, new_stack
from .story import POLL_ENV, job_args

FIXTURES = REPO / "tests" / "fixtures" / "upgrade"
PROJECT = "native-upgrade"
PINNED_NAME = "native-pinned-job"
SECRET_VALUE = "native-s3cret-value"

# The same three jobs as the dynamic upgrade test: auto-named, a pinned name, secret environment variables.
PROGRAM = '''\
"""Three jobs through the native provider: auto-named, a pinned name, secret environment variables."""

import json
from pathlib import Path

import pulumi
from pulumi_modelarts_native import TrainingJob

ARGS = json.loads((Path(__file__).parent / "args.json").read_text())
for name, args in ARGS.items():
    job = TrainingJob(name, **args)
    pulumi.export(name, {"id": job.id, "name": job.metadata.name})
'''


def job_arguments() -> dict[str, Any]:
    pinned = job_args("pinned name")
    pinned["metadata"]["name"] = PINNED_NAME
    secret = job_args("with environment variables")
    secret["algorithm"]["environments"] = {"API_TOKEN": SECRET_VALUE, "MODE": "train"}
    return {"auto": job_args("auto-named"), "pinned": pinned, "with-secrets": secret}


def fixture_dir(release: str) -> Path:
    return FIXTURES / f"native-{release}"


def project(workdir: Path, state_dir: Path, source: Path, env: dict[str, str]) -> Stack:
    """The fixture's program in workdir, with a new stack (the plugins block points at this environment)."""
    stack = new_stack(
        workdir,
        state_dir,
        PROJECT,
        (source / "__main__.py").read_text(),
        env,
        project_yaml=NATIVE.project_yaml(),
    )
    (workdir / "args.json").write_text((source / "args.json").read_text())
    return stack


def _without_source_positions(value: Any) -> Any:
    """The export without where the program ran (paths of the capturing machine; the engine needs none)."""
    if isinstance(value, dict):
        return {
            k: _without_source_positions(v)
            for k, v in value.items()
            if k not in ("sourcePosition", "stackTrace")
        }
    if isinstance(value, list):
        return [_without_source_positions(v) for v in value]
    return value


def capture(release: str, workdir: Path) -> Path:
    target = fixture_dir(release)
    target.mkdir(parents=True, exist_ok=True)
    (target / "__main__.py").write_text(PROGRAM)
    (target / "args.json").write_text(json.dumps(job_arguments(), indent=2) + "\n")
    emulator = start_emulator(
        creating_seconds=0.2, pending_seconds=0.2, running_seconds=0.2, terminating_seconds=0.2
    )
    try:
        env = {**POLL_ENV, **emulator_env(emulator)}
        stack = project(workdir / "project", workdir / "state", target, env)
        stack.up()
        exported = _without_source_positions(stack.export())
        (target / "stack.json").write_text(json.dumps(exported, indent=2, sort_keys=True) + "\n")
        stack.destroy()
    finally:
        emulator.stop()
    return target


if __name__ == "__main__":
    import tempfile
    from importlib.metadata import version

    if version("pulumi-modelarts") != sys.argv[1]:
        # The state records the plugin's version (the default provider's); recapture once it is the release's.
        print(f"note: this checkout is pulumi-modelarts {version('pulumi-modelarts')}, not {sys.argv[1]}")

    with tempfile.TemporaryDirectory() as tmp:
        print(capture(sys.argv[1], Path(tmp)))

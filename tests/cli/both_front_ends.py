"""One stack holding jobs of both front-ends, for CLI tests whose steps are the same for each: every `pulumi`
command then proves its behaviour for the dynamic provider's jobs and the native plugin's at once.

The program makes every job declared in jobs.json a TrainingJob of the front-end the entry names (the dynamic
provider's from ``pulumi_modelarts``, the native SDK's from ``pulumi_modelarts_native``; both take the same
arguments), exporting {id, name, phase}; ``Pulumi.yaml`` has the native plugin's ``plugins`` block.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import DYNAMIC, NATIVE, FrontEnd
from .pulumi_cli import Stack, new_stack
from .story import POLL_ENV

BOTH = (DYNAMIC, NATIVE)

PROGRAM = '''\
"""Jobs declared in jobs.json (the tests rewrite it between runs), each through the front-end it names."""

import json
from pathlib import Path

import pulumi
import pulumi_modelarts
import pulumi_modelarts_native

SDKS = {"dynamic": pulumi_modelarts, "native": pulumi_modelarts_native}
declared = json.loads((Path(__file__).parent / "jobs.json").read_text())
for name, args in declared.items():
    job = SDKS[args.pop("front_end")].TrainingJob(name, **args)
    pulumi.export(name, {"id": job.id, "name": job.name, "phase": job.phase})
'''


def both_stack(
    tmp_path: Path, emulator: EmulatorProcess, *, credentials_in_env: bool = True, name: str = "rel"
) -> Stack:
    """A stack of PROGRAM declaring nothing yet (credentials from the environment, or from stack config)."""
    env = {**POLL_ENV, **(emulator_env(emulator) if credentials_in_env else {})}
    workdir = tmp_path / "project"
    workdir.mkdir(parents=True)
    (workdir / "jobs.json").write_text("{}")
    return new_stack(workdir, tmp_path / "state", name, PROGRAM, env, project_yaml=NATIVE.project_yaml())


def declare(stack: Stack, jobs: Mapping[str, tuple[FrontEnd, Mapping[str, Any]]]) -> None:
    """Write jobs.json: each job's name, front-end and arguments (wire names, as story.job_args gives)."""
    payload = {name: {**args, "front_end": front_end.name} for name, (front_end, args) in jobs.items()}
    (stack.workdir / "jobs.json").write_text(json.dumps(payload, indent=2))


def jobs_in_state(stack: Stack, front_end: FrontEnd) -> dict[str, dict[str, Any]]:
    """The front-end's TrainingJob resources in the state, by resource name."""
    resources = stack.export()["deployment"].get("resources", [])
    return {r["urn"].rsplit("::", 1)[-1]: r for r in resources if front_end.is_job(r)}

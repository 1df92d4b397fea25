"""Upgrading the package keeps the jobs a stack already has.

Native provider: the state an earlier release's native plugin left (tests/fixtures/upgrade/native-<release>/,
captured by tests/cli/native_state.py) is imported into a new stack; with this checkout the next preview and
up must leave every job as it is.

Dynamic provider:

Jobs are deployed with the first release (0.1.0, the dynamic provider only) through the real CLI against
today's emulator: an auto-named job, a job with a pinned name and one with (secret) environment variables.
Then the same environment is upgraded to this checkout with pip, as a user upgrades, and the next preview must
plan nothing but "same", the next up must call nothing that creates, changes or stops a job, and destroy must
still stop every job.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import NATIVE
from .native_state import FIXTURES
from .native_state import SECRET_VALUE as NATIVE_SECRET
from .native_state import project as native_project
from .pulumi_cli import TOOLS_BIN, Stack, new_stack
from .story import POLL_ENV, all_jobs, assert_no_traceback, emulator_client, job_args
from .upgrade import (
    FIXTURE,
    RELEASE,
    RELEASE_COMMIT,
    build_release_wheel,
    has_module,
    installed_version,
    release_in_history,
    release_wheel,
    upgrade_to_current,
    venv_with_release,
)

pytestmark = pytest.mark.cli

# Written against 0.1.0's API (which today's accepts as well).
PROGRAM = """\
import json
import os
import zipfile
from pathlib import Path

import pulumi

from pulumi_modelarts import TrainingJob

ARGS = json.loads((Path(__file__).parent / "args.json").read_text())
jobs = {
    "auto": TrainingJob("auto", **ARGS["auto"]),
    "pinned": TrainingJob("pinned", **ARGS["pinned"]),
    "with-secrets": TrainingJob("with-secrets", **ARGS["with-secrets"]),
}
for name, job in jobs.items():
    pulumi.export(name, {"id": job.id, "name": job.metadata["name"]})
"""
PINNED_NAME = "upgrade-pinned-job"
SECRET_VALUE = "upgrade-s3cret-value"
# What creates, changes or stops a job (the reads a refresh-free up may do are "get" and "search").
WRITES = ("create", "update", "terminate", "delete")


def _args() -> dict[str, Any]:
    pinned = job_args("pinned name")
    pinned["metadata"]["name"] = PINNED_NAME
    secret = job_args("with environment variables")
    secret["algorithm"]["environments"] = {"API_TOKEN": SECRET_VALUE, "MODE": "train"}
    return {"auto": job_args("auto-named"), "pinned": pinned, "with-secrets": secret}


def _writes(stats: dict[str, Any]) -> dict[str, int]:
    return {op: n for op, n in stats["by_operation"].items() if op in WRITES}


def test_jobs_deployed_with_the_first_release_survive_an_upgrade_to_this_one(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    python = venv_with_release(tmp_path / "venv", release_wheel(tmp_path / "wheel"))
    assert installed_version(python) == RELEASE
    assert not has_module(python, "pulumi_modelarts.frontends.plugin")

    env = {
        **POLL_ENV,
        **emulator_env(emulator),
        # The programs and the dynamic provider run in the environment under test, not in this one.
        "PULUMI_PYTHON_CMD": str(python),
        "PATH": os.pathsep.join([str(TOOLS_BIN), str(python.parent), os.environ.get("PATH", "")]),
    }
    stack: Stack = new_stack(tmp_path / "project", tmp_path / "state", "upgrade", PROGRAM, env)
    (tmp_path / "project" / "args.json").write_text(json.dumps(_args()))
    up = stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    before = stack.outputs()
    assert before["pinned"]["name"] == PINNED_NAME
    assert before["auto"]["name"].startswith("auto-")
    with emulator_client(emulator) as client:
        ids = {str(job.metadata.name): str(job.metadata.id) for job in all_jobs(client) if job.metadata}
    assert sorted(ids.values()) == sorted(v["id"] for v in before.values())
    assert _writes(emulator.stats()) == {"create": 3}  # the count the checks below rely on sees writes
    state_before = stack.export()
    assert SECRET_VALUE not in json.dumps(state_before)

    upgrade_to_current(python)
    # This checkout's modules, not the release's: the native plugin is new, the embedded emulator is gone.
    assert has_module(python, "pulumi_modelarts.frontends.plugin")
    assert not has_module(python, "pulumi_modelarts.emulator")

    # The next preview: every job "same" (no replacement, no update), and not a single call that writes.
    emulator.reset_stats()
    plan = json.loads(stack.preview("--json").stdout)
    # (the JSON preview lists the steps that change something; "same" resources are only counted)
    assert [step["op"] for step in plan.get("steps", []) if step["op"] != "same"] == [], plan["steps"]
    assert plan["changeSummary"] == {"same": 4}, plan["changeSummary"]  # the stack and the three jobs
    assert _writes(emulator.stats()) == {}

    # The next up creates, updates and terminates nothing; the jobs and their names are the ones 0.1.0 made.
    up = stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    assert _writes(emulator.stats()) == {}, emulator.stats()
    after = stack.outputs()
    assert {n: (v["id"], v["name"]) for n, v in after.items()} == {
        n: (v["id"], v["name"]) for n, v in before.items()
    }
    with emulator_client(emulator) as client:
        jobs = all_jobs(client)
        assert sorted(str(j.metadata.id) for j in jobs if j.metadata) == sorted(ids.values())
        assert all(j.phase in ("Creating", "Pending", "Running") for j in jobs), [j.phase for j in jobs]
    stack.preview("--expect-no-changes")

    # destroy, with the current code, stops every job 0.1.0 created.
    destroy = stack.destroy()
    assert_no_traceback(destroy.stdout, destroy.stderr)
    assert stack.resources("TrainingJob") == []
    with emulator_client(emulator) as client:
        for job_id in ids.values():
            assert client.get_job(job_id).phase in ("Terminating", "Terminated"), job_id


def _job_steps(plan: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (step["urn"].rsplit("::", 1)[-1], step["op"])
        for step in plan.get("steps", [])
        if step["urn"].split("::")[2] == NATIVE.type_token and step["op"] != "same"
    ]


@pytest.mark.parametrize(
    "fixture", sorted(FIXTURES.glob("native-*")), ids=lambda path: path.name.removeprefix("native-")
)
def test_a_native_stack_of_an_earlier_release_plans_and_applies_nothing_with_this_one(
    tmp_path: Path, emulator: EmulatorProcess, fixture: Path
) -> None:
    stack = native_project(
        tmp_path / "project", tmp_path / "state", fixture, {**POLL_ENV, **emulator_env(emulator)}
    )
    stack.run("stack", "import", "--file", str(fixture / "stack.json"))
    recorded = {r["urn"]: r["id"] for r in stack.resources(NATIVE.type_token)}
    assert len(recorded) == 3

    # No job is created, updated, replaced or deleted (a newer plugin version may swap the default provider),
    # and the service is not asked to change anything.
    plan = json.loads(stack.preview("--json").stdout)
    assert _job_steps(plan) == [], plan.get("steps")
    up = stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    assert _writes(emulator.stats()) == {}, emulator.stats()
    assert {r["urn"]: r["id"] for r in stack.resources(NATIVE.type_token)} == recorded
    # The environment variables are encrypted in the state (the inputs this up recorded included).
    assert NATIVE_SECRET not in json.dumps(stack.export())
    stack.preview("--expect-no-changes")


def test_the_committed_release_wheel_is_what_the_release_commit_builds(tmp_path: Path) -> None:
    # A shallow clone uses the committed copy; a full one builds it. Both must install the same files.
    if not release_in_history():
        pytest.skip(f"{RELEASE_COMMIT} is not in this clone (shallow): only the committed copy is available")
    built = build_release_wheel(tmp_path)
    with zipfile.ZipFile(built) as fresh, zipfile.ZipFile(FIXTURE) as committed:
        assert {n: fresh.read(n) for n in fresh.namelist()} == {
            n: committed.read(n) for n in committed.namelist()
        }

"""Real create requests (tests/fixtures/real_requests) through the real CLI, on both front-ends: the preview
passes with no API call (showing the expected warnings), `up` creates every job on the emulator, and the
next preview is empty. All of them are jobs of one stack, so each front-end costs one story."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..real_requests import real_requests
from .front_ends import FRONT_ENDS, FrontEnd
from .story import all_jobs, assert_no_traceback, emulator_client, new_story

pytestmark = pytest.mark.cli

REQUESTS = real_requests()


def camel_case(path: str) -> str:
    """A path of field names (no user map keys in these) as the native schema names them."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)


def declared_jobs() -> dict[str, dict[str, Any]]:
    # Each request's inputs as the TrainingJob's arguments; "pending" keeps the wait short.
    return {r.name: {**copy.deepcopy(r.inputs), "wait_for": "pending"} for r in REQUESTS}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_real_requests_preview_go_up_and_stay_unchanged(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, name="real", front_end=front_end)
    story.declare(declared_jobs())
    emulator.reset_stats()

    preview = story.stack.run("preview")
    output = preview.stdout + preview.stderr
    assert_no_traceback(output)
    # A preview reads the account's catalogue for the jobs it plans to create (once a listing), nothing else.
    calls = emulator.stats()["by_operation"]
    assert set(calls) <= {"flavors", "engines"} and all(n == 1 for n in calls.values()), calls
    for real in REQUESTS:
        for wire_path in real.warnings:
            # On the job's row (native, in the schema's camelCase names, as the engine received them), or
            # naming the job (dynamic: no row is reachable).
            path = camel_case(wire_path) if front_end.native else wire_path
            job = real.name if front_end.native else f"training job {real.inputs['metadata']['name']}:"
            warned = [
                line for line in output.splitlines() if "warning" in line and path in line and job in line
            ]
            assert warned, f"{real.name}: no warning about {path}\n{output}"
            print(f"{real.name}: {warned[0].strip()}")

    up = story.stack.run("up", "--yes", "--skip-preview")
    assert_no_traceback(up.stdout + up.stderr)
    with emulator_client(emulator) as client:
        created = {job.metadata.name for job in all_jobs(client)}
    assert created == {r.inputs["metadata"]["name"] for r in REQUESTS}
    assert set(story.jobs_in_state()) == {r.name for r in REQUESTS}

    story.stack.run("preview", "--expect-no-changes")
    story.stack.run("destroy", "--yes")

"""A job in a phase the provider does not know (the service adds phases over time), as the user meets it
through the real CLI: a wait that ends on it tries to stop the job, destroy never drops a job that may still
run, refresh warns, and no message claims that nothing is left running unless that was verified."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import all_jobs, make_stack, state_job_ids
from .front_ends import FRONT_ENDS, FrontEnd

pytestmark = pytest.mark.cli

NOTHING_LEFT = "nothing is left running"
# Two jobs reporting the phase "Exploding" under a running job: the service refuses the terminate of one
# (409 ModelArts.2796, the terminate page's rule) and accepts the other's.
PROGRAM = """\
from pulumi_modelarts import TrainingJob

def job(name, **hooks):
    return TrainingJob(name,
        metadata={{'annotations': {{'emulator/report-phase': 'Exploding',
            'emulator/running-seconds': '600', **hooks}}}},
        algorithm={{'engine': {{'image_url': 'org/trainer:1.0'}}, 'command': 'python train.py'}},
        spec={{'resource': {{'flavor_id': 'modelarts.vm.cpu.2u', 'node_count': 1}}}},
        wait_for={wait_for!r}, wait_timeout='2s')

job('stuck')
job('stoppable', **{{'emulator/report-phase-terminable': 'true'}})
"""


def jobs_by_name(emulator: EmulatorProcess) -> dict[str, dict[str, Any]]:
    """The emulator's jobs by their declared name (stuck, stoppable): the auto-name's prefix."""
    return {job["metadata"]["name"].rsplit("-", 1)[0]: job for job in all_jobs(emulator)}


def error_block(output: str, job_id: str) -> str:
    """The error about one job in the diagnostics (not a progress line naming it), to the next blank line; a
    job kept in the state (its creation failed) has it as the one reason ("1 error occurred: * …")."""
    error = rf"error: (?:1 error occurred:\s+\* )?training job \S+ \(id {job_id}\) "
    found = re.search(error, output[output.index("Diagnostics:") :])
    assert found is not None, output
    start = output.index("Diagnostics:") + found.start()
    end = output.find("\n\n", start)
    return output[start : end if end >= 0 else len(output)]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_wait_ending_on_an_unknown_phase_stops_the_job_or_says_it_may_still_run(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    stack = make_stack(tmp_path, emulator, PROGRAM.format(wait_for="running"), front_end=front_end)
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    jobs = jobs_by_name(emulator)
    stuck, stoppable = jobs["stuck"]["metadata"]["id"], jobs["stoppable"]["metadata"]["id"]
    assert emulator.stats()["by_operation"].get("terminate") == 2, output  # both were tried
    refused = error_block(output, stuck)
    assert "did not reach running within 2.0s (wait_timeout); it was still Exploding" in refused, output
    assert NOTHING_LEFT not in refused and "no longer running" not in refused, output
    assert "the service refused to terminate it (ModelArts.2796" in refused, output
    assert f"may still be running: stop training job {jobs['stuck']['metadata']['name']} (id {stuck})" in (
        " ".join(refused.split())
    ), output
    assert "ModelArts console" in refused and f"/training-jobs/{stuck}/actions" in refused, output
    stopped = error_block(output, stoppable)
    assert "the job was terminated, so nothing is left running outside the Pulumi state." in stopped, output
    assert jobs["stuck"]["status"]["phase"] == "Exploding"
    assert jobs["stoppable"]["status"]["phase"] == "Terminated"  # read back so before it was said
    # The job that may still run is kept in the state (its creation failed), the stopped one is not.
    assert "it is kept in the Pulumi state as a resource whose creation failed" in " ".join(refused.split())
    assert state_job_ids(stack, front_end) == [stuck]
    assert not stack.export()["deployment"].get("pending_operations")


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_destroy_keeps_a_job_in_an_unknown_phase_it_could_not_stop(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    stack = make_stack(tmp_path, emulator, PROGRAM.format(wait_for="none"), front_end=front_end)
    stack.up()
    jobs = jobs_by_name(emulator)
    stuck, stoppable = jobs["stuck"]["metadata"]["id"], jobs["stoppable"]["metadata"]["id"]
    refreshed = stack.refresh()
    said = " ".join((refreshed.stdout + refreshed.stderr).split())
    assert f"(id {stuck}) reports phase Exploding, which this provider does not know" in said, said
    assert NOTHING_LEFT not in said

    result = stack.destroy(check=False)
    output = result.stdout + result.stderr
    text = " ".join(output.split())
    assert result.returncode != 0, output
    assert f"(id {stuck}) is in phase Exploding, which this provider does not know" in text, output
    assert "the service refuses to terminate it (ModelArts.2796" in text, output
    assert "it may still be running, so it stays in the Pulumi state" in text, output
    assert "ModelArts console" in text and NOTHING_LEFT not in text, output
    assert state_job_ids(stack, front_end) == [stuck]
    after = jobs_by_name(emulator)
    assert after["stuck"]["status"]["phase"] == "Exploding"
    # The other one's terminate was accepted: destroy waited until it had stopped, then dropped it.
    assert after["stoppable"]["status"]["phase"] == "Terminated", output
    assert stoppable not in state_job_ids(stack, front_end)

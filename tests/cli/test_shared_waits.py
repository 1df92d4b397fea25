"""Many jobs of one native `up` waiting at once share their polls (searches), and each gets its own answer:
the ones that complete are recorded with their own document, the one that fails fails the `up` naming it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .front_ends import NATIVE
from .story import job_args, new_story

pytestmark = pytest.mark.cli

# The account's budget (calls a second) and the jobs that wait on it at once.
RATE_LIMIT = 10
SWEEP = 30


def test_jobs_waiting_together_share_their_polls_and_each_gets_its_own_answer(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory(creating_seconds=0.2, pending_seconds=0.5, terminating_seconds=0.1)
    jobs = {
        "quick": job_args(wait_for="completed", annotations={"emulator/running-seconds": "0.5"}),
        "slow": job_args(wait_for="completed", annotations={"emulator/running-seconds": "2.5"}),
        "failing": job_args(
            wait_for="completed",
            annotations={"emulator/fail-after-seconds": "1", "emulator/failure-message": "loss is nan"},
        ),
        **{f"fine-{i}": job_args(wait_for="running") for i in range(5)},
    }
    story = new_story(tmp_path, emu, front_end=NATIVE)
    story.declare(jobs)
    up = story.stack.up("--parallel", "32", check=False)
    assert up.returncode != 0
    text = up.stdout + up.stderr
    assert "loss is nan" in text and "Failed" in text
    recorded = {r["urn"].rsplit("::", 1)[1]: r["outputs"] for r in story.stack.resources(NATIVE.type_token)}
    assert recorded["quick"]["phase"] == recorded["slow"]["phase"] == "Completed"
    assert all(recorded[f"fine-{i}"]["phase"] in ("Running", "Completed") for i in range(5))
    assert len({o["metadata"]["id"] for o in recorded.values()}) == len(recorded)  # each its own job
    assert "failing" not in recorded  # a failed create is not recorded (its job was left Failed)
    calls = emu.stats()["by_operation"]
    assert calls.get("search", 0) > 0, calls
    story.stack.destroy()


def test_jobs_against_an_accounts_rate_are_paced_and_each_gets_its_own_answer(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    """30 jobs waiting at once on an account the gateway allows 10 calls a second: once the first refusals
    name a pause, the process paces every call a little under that rate, so the gateway refuses few of the
    reads that follow, and each job ends with its own document at a few calls apiece."""
    emu = emulator_factory(
        creating_seconds=0.2,
        pending_seconds=0.5,
        terminating_seconds=0.1,
        rate_limit=RATE_LIMIT,
        log_level="INFO",  # each answer's status, by method and path
    )
    story = new_story(tmp_path, emu, front_end=NATIVE)
    # On a dedicated pool: the burst is the creates alone (new jobs on a public flavor read the account's
    # catalogue first, one call more in the gateway's first second: tests/cli/test_catalogue_cli.py).
    pooled = job_args(wait_for="running")
    pooled["spec"]["resource"]["pool_id"] = "pool-sweep"
    story.declare({f"sweep-{i}": pooled for i in range(SWEEP)})
    story.stack.up("--parallel", str(2 * SWEEP))
    recorded = [r["outputs"] for r in story.stack.resources(NATIVE.type_token)]
    assert len(recorded) == SWEEP and all(o["phase"] == "Running" for o in recorded)
    assert len({o["metadata"]["id"] for o in recorded}) == SWEEP  # each its own job
    stats = emu.stats()
    assert "flavors" not in stats["by_operation"], stats
    # Each job: its create, its final read, its share of the searches; refused calls counted too.
    assert sum(stats["by_operation"].values()) <= 3 * SWEEP, stats
    answers = re.findall(r"INFO \S+: (GET|POST) (\S+) -> (\d+)", emu.output())
    reads = [(method, path, status) for method, path, status in answers if "training-job" in path]
    reads = [a for a in reads if a[0] == "GET" or a[1].endswith("/training-job-searches")]
    refused_reads = [a for a in reads if a[2] == "429"]
    # The creates the engine sends at once meet the gateway's full bucket and are refused beyond it; the
    # polls and final reads come after the pace is learned.
    assert len(reads) >= SWEEP and len(refused_reads) <= 2, refused_reads
    story.stack.destroy()

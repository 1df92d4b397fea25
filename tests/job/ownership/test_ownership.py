"""The one rule for whether a job found under a create's name is that create's own (``judging.judge``)."""

from __future__ import annotations

import pytest

from pulumi_modelarts.job.ownership import judging
from pulumi_modelarts.job.ownership.judging import Holding


@pytest.mark.parametrize(
    ("phase", "created", "expected"),
    [
        ("Creating", 2000, Holding.ADOPT),
        ("Running", 2000, Holding.ADOPT),
        ("Completed", 2000, Holding.ADOPT),  # a short job may finish while the create is retried
        ("Failed", 2000, Holding.ADOPT),  # the request just sent made it: it is ours, failed or not
        ("Abnormal", 2000, Holding.ADOPT),
        (None, 2000, Holding.ADOPT),
        ("Running", 500, Holding.STALE),  # an older job of that name
        ("Completed", None, Holding.STALE),
        ("Terminating", 2000, Holding.STALE),  # a replacement stops the old job first
        ("Terminated", 2000, Holding.STALE),
    ],
)
def test_a_job_the_lost_request_may_have_made(
    phase: str | None, created: int | None, expected: Holding
) -> None:
    judgment = judging.judge(phase=phase, created_ms=created, since_ms=1000, sent=True)
    assert judgment.holding is expected


def test_a_held_name_needs_a_matching_body_where_the_sent_request_needs_none() -> None:
    differs = ["algorithm.command"]
    held = judging.judge(phase="Running", created_ms=2000, since_ms=1000, differences=differs)
    assert held == judging.Judgment(Holding.MISMATCH, differs)
    assert judging.judge(phase="Running", created_ms=0, since_ms=1000).holding is Holding.ADOPT
    assert judging.judge(phase="Failed", created_ms=2000, since_ms=1000).holding is Holding.STALE


def test_a_job_holding_the_name_in_a_phase_this_code_does_not_know_is_taken_for_a_live_one() -> None:
    """The service adds phases; a job in one may be running, so its record is never judged stale (which
    would delete it to free a pinned name): it is ours when it matches, else some other job."""
    differs = ["algorithm.command"]
    for phase in ("Queuing", None):
        matching = judging.judge(phase=phase, created_ms=0, since_ms=1000)
        assert matching.holding is Holding.ADOPT
        other = judging.judge(phase=phase, created_ms=0, since_ms=1000, differences=differs)
        assert other == judging.Judgment(Holding.MISMATCH, differs)


def test_since_allows_for_clock_skew() -> None:
    assert judging.since_ms(1000.0) == (1000.0 - judging.CLOCK_SKEW_SECONDS) * 1000.0
    assert judging.since_ms(1000.0, skew=0) == 1_000_000.0

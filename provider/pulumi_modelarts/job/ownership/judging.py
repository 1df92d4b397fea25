"""Whether a job found under a name is the one a create declared. Pure: imports only ``phases``.

Two paths meet a job under the name a create wanted, and both ask this module:

- ``lost_creates``, after a create whose answer was lost (the client's ``create_job`` asks it): the request
  may have created a job, so a job of that name created since the call began *is* that request's job,
  whatever its body says and even when it has already failed;
- the create, after the service refused the name as taken (``held_names.post_create``): nothing says who
  created the holder, so it is ours only if it matches the declaration (``matching.judge_holder`` compares
  the bodies).

One rule serves both; the evidence differs (``sent`` and ``differences``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...wire.phases import Phase, is_stopped, may_still_run

__all__ = ["CLOCK_SKEW_SECONDS", "Holding", "Judgment", "judge", "since_ms"]

# Clock difference allowed between this machine and the service when asking whether a job was created since
# a create began (its create_time is the service's clock; the start is ours).
CLOCK_SKEW_SECONDS = 300.0


class Holding(str, enum.Enum):
    """What to do about the job holding the name a create wanted."""

    ADOPT = "adopt"  # it is the job this create declared (an earlier attempt, or a killed `pulumi up`)
    MISMATCH = "mismatch"  # it runs, but it is some other job: refuse
    STALE = "stale"  # stopped or finished before this create began: the name must move on or be freed


@dataclass(frozen=True)
class Judgment:
    holding: Holding
    # Paths where the holder differs from the declaration.
    differences: list[str] = field(default_factory=list)


def since_ms(started: float, skew: float = CLOCK_SKEW_SECONDS) -> float:
    """The earliest service create_time (epoch milliseconds) of a job a create begun at started could make."""
    return (started - skew) * 1000.0


def judge(
    *,
    phase: str | None,
    created_ms: float | None,
    since_ms: float,
    differences: Sequence[str] = (),
    sent: bool = False,
) -> Judgment:
    """Whether the job found under the name is this create's own.

    phase, created_ms: the job's phase and create_time; since_ms: when the create began (``since_ms``).
    differences: where the job differs from the declaration (nothing when the bodies were not compared).
    sent: this create's own request may have made the job moments ago (its answer was lost).

    - A job someone stopped (Terminating, Terminated) is never ours: a replacement stops the old job first.
    - A live job (Creating, Pending, Running, or a phase this code does not know, which may be a running
      one) is ours when it is the request just sent (created since the create began) or, for a job found
      holding the name, when it matches the declaration; a live job matching neither is some other job
      (MISMATCH when it was compared, STALE otherwise: never one whose record may be deleted).
    - A finished job is ours only when created since the create began (a short job may finish while a create
      is retried) and, when compared, matching. Completed counts always; Failed and Abnormal only when it is
      the request just sent (a job found holding the name that failed leaves the name to a new job).
    """
    diff = list(differences)
    if is_stopped(phase):
        return Judgment(Holding.STALE, diff)
    recent = created_ms is not None and created_ms >= since_ms
    if may_still_run(phase):
        if sent:
            return Judgment(Holding.ADOPT if recent and not diff else Holding.STALE, diff)
        return Judgment(Holding.MISMATCH, diff) if diff else Judgment(Holding.ADOPT)
    if recent and not diff and (sent or phase == Phase.COMPLETED):
        return Judgment(Holding.ADOPT)
    return Judgment(Holding.STALE, diff)

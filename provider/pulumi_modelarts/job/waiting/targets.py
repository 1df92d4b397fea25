"""What a job's phase means for a wait: has a job in a given phase reached its ``wait_for`` target, is it
still on its way, or has it failed (``classify``)? Pure. (The phase names and what they mean on their own are
``wire.phases``'s; the targets themselves are ``setting_values``'s.)
"""

from __future__ import annotations

import enum

from ...wire.phases import Phase, is_failure, is_stopped
from ..setting_values import WaitFor

__all__ = ["Verdict", "classify"]


class Verdict(enum.Enum):
    WAIT = "wait"  # not there yet: poll again
    DONE = "done"  # the target was reached
    FAILED = "failed"  # the job failed or was stopped: it will never reach the target


def classify(phase: str | None, wait_for: WaitFor, secondary_phase: str | None = None) -> Verdict:
    """Whether a job in `phase` (and `secondary_phase`) has reached `wait_for`.

    The targets: "none" (the service accepted the job), "pending" (past Creating: scheduled or queued, the
    default), "running" (its containers run, or it already finished successfully), "completed" (it finished
    successfully).

    A job that ended Failed or Abnormal, or whose creation failed (secondary phase CreateFailed), has failed;
    so has one that is Terminating or Terminated while we wait for it (someone stopped it). A Completed job
    satisfies every target: it got past Creating, it ran, and it completed. Phases this code does not know are
    waited on, so a new in-progress phase the service might add does not break deployments; the wait timeout
    bounds that, and a wait that ends on such a phase terminates the job (``phases.may_still_run``).
    """
    if wait_for == "none":
        return Verdict.DONE
    if is_failure(phase, secondary_phase) or is_stopped(phase):
        return Verdict.FAILED
    if phase == Phase.COMPLETED:
        return Verdict.DONE
    if wait_for == "pending":
        return Verdict.DONE if phase in (Phase.PENDING, Phase.RUNNING) else Verdict.WAIT
    if wait_for == "running":
        return Verdict.DONE if phase == Phase.RUNNING else Verdict.WAIT
    if wait_for == "completed":
        return Verdict.WAIT
    # A choice the settings model gained without a rule here (tests/test_generate.py tries every choice).
    raise ValueError(f"no rule for wait_for {wait_for!r}")

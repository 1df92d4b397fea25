"""Waiting for a training job: poll until a condition ends the wait, one fails it, or time runs out.

    job = until(job, lambda: client.get_job(job_id),
                done=[Condition("running", lambda j: j.phase == "Running")],
                fail=[Condition("ended Failed", lambda j: j.phase == "Failed")],
                timeout=600)

The conditions are tested on the job as given, then on each fresh copy ``fetch`` returns; the first failing
condition raises ``WaitFailed`` naming it, the first met ``done`` condition returns the job. Past the timeout
``WaitTimedOut`` is raised; a job the service no longer knows raises ``JobVanished``; once the ``stop`` event
is set (a cancelled deployment) ``WaitCancelled`` is raised without waiting for the next poll. Any other error
of ``fetch`` propagates unchanged: the caller decides what a lost watch means.

``step`` replaces the pause and the fetch together for a wait that shares its polls with others
(``shared_polls``): given the pause, the stop event and the seconds left before the timeout (which it may
lengthen the pause to, never past), it returns the job once due (or sooner, when another job's poll read it
too), or None once ``stop`` is set.

Pauses between polls start at ``PULUMI_MODELARTS_POLL_SECONDS`` (default 1 s) and grow by half each time up to
fifteen times that value (15 s by default). Tests set it to a few hundredths.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...wire.api_errors import NotFoundError
from ..errors import JobVanished, WaitCancelled, WaitFailed, WaitTimedOut

if TYPE_CHECKING:
    from ...wire.models import TrainingJob

__all__ = ["POLL_SECONDS_ENV", "Condition", "Step", "backoff", "poll_base", "poll_delays", "until"]

POLL_SECONDS_ENV = "PULUMI_MODELARTS_POLL_SECONDS"
DEFAULT_POLL_SECONDS = 1.0
POLL_CAP_FACTOR = 15.0


# A pause and a poll in one: the job once due (or sooner), None once the stop event is set. Its arguments:
# the pause, the stop event, the seconds a longer pause may take at most (the wait's time left).
Step = Callable[[float, "threading.Event | None", float], "TrainingJob | None"]


@dataclass(frozen=True)
class Condition:
    """A named test of a job; the name says what meeting it means ("ended Failed", "reached running")."""

    name: str
    holds: Callable[[TrainingJob], bool]


def poll_base(environ: Mapping[str, str] | None = None) -> float:
    """The first pause between polls, from the poll knob (an unusable value means the default)."""
    environ = os.environ if environ is None else environ
    try:
        base = float(environ.get(POLL_SECONDS_ENV, "") or DEFAULT_POLL_SECONDS)
    except ValueError:
        base = DEFAULT_POLL_SECONDS
    return base if 0 < base <= 60 else DEFAULT_POLL_SECONDS


def poll_delays(environ: Mapping[str, str] | None = None) -> Iterator[float]:
    """The pauses between polls, from the poll knob (an unusable value means the default)."""
    base = poll_base(environ)
    return backoff(base, base * POLL_CAP_FACTOR)


def until(
    job: TrainingJob,
    fetch: Callable[[], TrainingJob],
    *,
    done: Sequence[Condition],
    fail: Sequence[Condition] = (),
    timeout: float,
    delays: Iterator[float] | None = None,
    on_change: Callable[[TrainingJob, float], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    stop: threading.Event | None = None,
    step: Step | None = None,
) -> TrainingJob:
    """The job once a ``done`` condition holds; raises WaitFailed, WaitTimedOut, WaitCancelled or JobVanished
    otherwise.

    on_change(job, elapsed seconds) is called whenever a fetched job's phase differs from the last one seen.
    """
    start = clock()
    deadline = start + timeout
    pauses = poll_delays() if delays is None else delays
    seen_phase = job.phase
    while True:
        if job.phase != seen_phase:
            seen_phase = job.phase
            if on_change is not None:
                on_change(job, clock() - start)
        for condition in fail:
            if condition.holds(job):
                raise WaitFailed(job, condition.name, clock() - start)
        if any(condition.holds(job) for condition in done):
            return job
        now = clock()
        if now >= deadline:
            raise WaitTimedOut(job, " or ".join(c.name for c in done), timeout, now - start)
        pause = max(0.0, min(next(pauses), deadline - now))
        try:
            fresh = _next(pause, deadline - now, fetch, sleep, stop, step)
        except NotFoundError:
            raise JobVanished(job, clock() - start) from None
        if fresh is None:
            raise WaitCancelled(job, clock() - start)
        job = fresh


def _next(
    pause: float,
    latest: float,
    fetch: Callable[[], TrainingJob],
    sleep: Callable[[float], None],
    stop: threading.Event | None,
    step: Step | None,
) -> TrainingJob | None:
    """The job after pause: fetched once the pause is over, or as step has it (which may pause longer, up to
    latest); None once stopped."""
    if step is not None:
        return step(pause, stop, latest)
    if stop is None:
        sleep(pause)
    elif stop.is_set() or stop.wait(pause):
        return None
    return fetch()


def backoff(initial: float = 1.0, cap: float = 15.0, factor: float = 1.5) -> Iterator[float]:
    """Pauses between polls: initial, then growing by factor, never above cap (an endless iterator)."""
    if not (initial > 0 and cap > 0 and factor >= 1):
        raise ValueError("backoff needs initial > 0, cap > 0 and factor >= 1")
    delay = min(initial, cap)
    while True:
        yield delay
        delay = min(delay * factor, cap)

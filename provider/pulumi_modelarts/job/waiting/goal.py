"""Waiting for a job just created to reach what wait_for asks (the log's newest line shown meanwhile), the
bounds of every wait and which setting set them, and the retry budget a front-end's timeout leaves the
client. The polling loop itself is ``polling.until``; a wait that fails gives up through
``giving_up.give_up``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ...wire.api_errors import MAX_SERVICE_PAUSE, ThrottledError
from ...wire.phases import SecondaryPhase, is_stopped
from ...wire.throttling import account_throttled
from ..errors import JobVanished, ProvisioningError, WaitCancelled, WaitFailed, WaitTimedOut
from ..labels import describe_job, format_elapsed
from ..progress import Progress
from ..secret_paths import ENVIRONMENTS, found
from ..setting_values import (
    DEFAULT_WAIT_FOR,
    DEFAULT_WAIT_TIMEOUT_SECONDS,
    WaitFor,
    parse_duration,
    parse_wait_for,
)
from .giving_up import give_up, lost_watch
from .polling import Condition, until
from .shared_polls import shared_step
from .targets import Verdict, classify

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import TrainingJob
    from .logtail import LogFollower

__all__ = [
    "CUSTOM_TIMEOUTS",
    "Bound",
    "clamp",
    "log_follower",
    "named",
    "retry_budget",
    "wait_created",
    "wait_settings",
]


class Bound(NamedTuple):
    """How long a wait may take and which setting said so (named when the wait times out)."""

    seconds: float
    source: str


CUSTOM_TIMEOUTS = "customTimeouts"


# How long past a wait's end its last read may take (one attempt's time, about).
LAST_READ_SECONDS = 10.0


def named(bound: Bound) -> str:
    return f" ({bound.source})" if bound.source else ""


def clamp(limit: float | None, bound: Bound) -> Bound:
    """bound, or a front-end's own timeout (limit: Pulumi's customTimeouts) where that is shorter: the one
    rule for every wait and retry budget. None or 0 (the engine sends 0 when none is set) is no limit."""
    if limit is not None and 0 < limit < bound.seconds:
        return Bound(limit, CUSTOM_TIMEOUTS)
    return bound


@contextlib.contextmanager
def retry_budget(client: ModelArtsAPI, limit: float | None) -> Iterator[None]:
    """The client's retries (throttling, 5xx, lost connections) end within limit seconds for these calls."""
    before = client.transport.max_retry_seconds
    client.transport.max_retry_seconds = clamp(limit, Bound(before, "")).seconds
    try:
        yield
    finally:
        client.transport.max_retry_seconds = before


def wait_settings(inputs: Mapping[str, Any]) -> tuple[WaitFor, float]:
    wait_for = inputs.get("wait_for")
    timeout = inputs.get("wait_timeout")
    return (
        parse_wait_for(wait_for) if wait_for is not None else DEFAULT_WAIT_FOR,
        parse_duration(timeout) if timeout is not None else DEFAULT_WAIT_TIMEOUT_SECONDS,
    )


def wait_created(
    client: ModelArtsAPI,
    job: TrainingJob,
    job_id: str,
    wait_for: WaitFor,
    bound: Bound,
    progress: Progress,
    stop: threading.Event | None,
    follow: LogFollower | None = None,
) -> TrainingJob:
    name = job.name
    last = job  # the job as last fetched: what a lost watch reports and decides on

    def seen(j: TrainingJob) -> TrainingJob:
        nonlocal last
        last = j
        if follow is not None:
            follow.poll(last)  # returns at once: the log is read beside the wait, never in its way
        return last

    def changed(j: TrainingJob, elapsed: float) -> None:
        progress.say(f"{name} (id {job_id}) {j.phase or 'unknown'} after {format_elapsed(elapsed)}")

    ends = time.monotonic() + bound.seconds + LAST_READ_SECONDS  # the end of every call of the wait
    try:
        return _watch(client, job, job_id, wait_for, bound, stop, seen, changed)
    except WaitFailed as exc:
        ended = exc.job
        if is_stopped(ended.phase):
            reason = f"was stopped (phase {ended.phase}) before it reached {wait_for}"
        else:
            reason = f"ended {ended.phase}"
            if ended.secondary_phase == SecondaryPhase.CREATE_FAILED:
                reason += " (creation failed)"
        raise give_up(client, ended, job_id, reason, wait_for, progress) from None
    except WaitTimedOut as exc:
        reason = (
            f"did not reach {wait_for} within {format_elapsed(bound.seconds)} "
            f"({bound.source}); it was still {exc.job.phase or 'unknown'}"
        )
        raise give_up(client, exc.job, job_id, reason, wait_for, progress) from None
    except WaitCancelled as exc:
        reason = (
            f"was still {exc.job.phase or 'unknown'} when the deployment was cancelled, before it reached "
            f"{wait_for}"
        )
        raise give_up(client, exc.job, job_id, reason, wait_for, progress) from None
    except JobVanished:
        raise ProvisioningError(
            f"{describe_job(name, job_id)} disappeared while waiting for it to reach "
            f"{wait_for}; nothing is left running."
        ) from None
    except ThrottledError as exc:
        if not _paused_past(exc, ends):
            raise give_up(client, last, job_id, lost_watch(client, exc), wait_for, progress) from None
        # The account's pause outlasts the wait: it ends now, as a wait that timed out, saying why.
        reason = (
            f"did not reach {wait_for} within {format_elapsed(bound.seconds)}{named(bound)}: "
            f"{_asked_pause(exc)}, past the wait's end, so it could not be read again; it was still "
            f"{last.phase or 'unknown'} when last read"
        )
        raise give_up(client, last, job_id, reason, wait_for, progress) from None
    except Exception as exc:
        # Anything else (the service, a credential source, a parser, a bug) would leave a job Pulumi never
        # learns about running and billing: it is given up on as every other failed wait is (stopped while the
        # engine listens, else kept in the state). Its text is not ours: it is scrubbed.
        raise give_up(client, last, job_id, lost_watch(client, exc), wait_for, progress) from None
    finally:
        if follow is not None:
            follow.close()  # a read still in flight shows nothing more


def _paused_past(exc: ThrottledError, ends: float) -> bool:
    """exc is the account's throttling, its pause reaching past ends (a time.monotonic()): a call of the wait
    refused by the service, or not sent, because its deadline (``within``) comes before the pause's end."""
    pause = exc.retry_after
    return account_throttled(exc) and pause is not None and time.monotonic() + pause >= ends


def _asked_pause(exc: ThrottledError) -> str:
    """'the service asked to pause the account's calls for 60s or more (APIG.0308)'."""
    pause = exc.retry_after or 0.0
    length = format_elapsed(pause) + (" or more" if pause >= MAX_SERVICE_PAUSE else "")
    code = f" ({exc.error_code})" if exc.error_code else ""
    return f"the service asked to pause the account's calls for {length}{code}"


def _watch(
    client: ModelArtsAPI,
    job: TrainingJob,
    job_id: str,
    wait_for: WaitFor,
    bound: Bound,
    stop: threading.Event | None,
    seen: Callable[[TrainingJob], TrainingJob],
    changed: Callable[[TrainingJob, float], None],
) -> TrainingJob:
    """``until`` for a create's wait, its polls shared with the process's other waits (``shared_polls``):
    what ends it is read by id. seen(job) is told of every fresh copy."""

    def reached(j: TrainingJob) -> bool:
        return classify(j.phase, wait_for, j.secondary_phase) is Verdict.DONE

    def lost(j: TrainingJob) -> bool:
        return classify(j.phase, wait_for, j.secondary_phase) is Verdict.FAILED

    def over(j: TrainingJob) -> bool:
        return classify(j.phase, wait_for, j.secondary_phase) is not Verdict.WAIT

    # Every call of the wait ends with it (a pause the service names included), give or take the last read.
    with (
        client.transport.within(bound.seconds + LAST_READ_SECONDS),
        shared_step(client, job_id, over) as shared,
    ):

        def step(pause: float, stop: threading.Event | None, latest: float) -> TrainingJob | None:
            found = None if shared is None else shared(pause, stop, latest)
            return None if found is None else seen(found)

        return until(
            job,
            lambda: seen(client.get_job(job_id)),
            done=[Condition(wait_for, reached)],
            fail=[Condition(f"can no longer reach {wait_for}", lost)],
            timeout=bound.seconds,
            on_change=changed,
            stop=stop,
            step=None if shared is None else step,
        )


def log_follower(
    client: ModelArtsAPI, job: TrainingJob, inputs: Mapping[str, Any], progress: Progress
) -> LogFollower | None:
    """What shows the newest log line on the job's row while the wait goes on past Running (``logtail``);
    None when show_logs is off. Hidden: every environment value declared (the service may not echo them)."""
    from ...generated.fields import SETTING_DEFAULTS
    from .logtail import LogFollower

    wanted = inputs.get("show_logs")
    if not (SETTING_DEFAULTS["show_logs"] if wanted is None else wanted is True):
        return None
    hidden = [
        str(v)
        for environments in found(inputs, ENVIRONMENTS)
        if isinstance(environments, Mapping)
        for v in environments.values()
        if v is not None
    ]
    job_id, name = job.job_id or "", job.name or job.job_id or "the job"

    def read(task: str) -> Any:
        return client.get_log_preview(job_id, task, attempts=1)  # a refusal waits for the next turn

    def show(line: str) -> None:
        progress.status(f"{name} {line}")

    return LogFollower(read, show, client.transport.scrub, hidden=hidden)

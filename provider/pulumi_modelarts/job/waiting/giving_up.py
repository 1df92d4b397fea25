"""Giving up on a job: the error a failed create raises, the failure report it carries (the failing task's
log tail and the newest error events), and a short label for an unknown phase.

A create that gives up on its job stops it first while the engine listens, and says only what was seen: the
job "was terminated" once it was read back in a final phase after an accepted terminate, "is no longer
running" once the service showed it ended or gone. Anything less (a terminate refused, failed with whatever
exception, or accepted but not seen through; the engine gone) leaves a job that may still run: the error is
then ``JobMayStillRun``, which carries the job, so the front-ends record it in the state (the engine's
partial create: a resource whose creation failed) rather than leave it running outside it.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from ...wire.api_errors import NotFoundError, NotTerminableError
from ...wire.errors import redact
from ...wire.phases import is_failure, is_known, may_still_run
from ..errors import ProvisioningError, WaitTimedOut
from ..labels import brief, described, format_elapsed, job_label
from ..progress import Progress
from ..secret_paths import ATTRIBUTES, ENVIRONMENTS, found
from ..setting_values import WaitFor
from .failure_text import describe_failure, unknown_phase
from .stopped import has_stopped, until_stopped

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import TrainingJob

__all__ = [
    "REPORT_LINE_CHARS",
    "STOP_CONFIRM_SECONDS",
    "TERMINATE_SECONDS",
    "JobMayStillRun",
    "give_up",
    "lost_watch",
    "warn_unknown_phase",
]

# The failure report of a job that ended Failed or Abnormal: the last lines of the failing task's log and the
# newest error events, each line shortened, so the error stays readable. Fetched with few attempts: the
# report is a courtesy and must not hold up (or fail) the error it belongs to.
REPORT_LOG_LINES = 20
REPORT_EVENTS = 5
REPORT_LINE_CHARS = 200
REPORT_ATTEMPTS = 2
# How long a create that gave up waits, after an accepted terminate, to read its job in a final phase (real
# time, whatever the poll knob says). The service stops a job in seconds; a job still Terminating after this
# is recorded in the state, where `pulumi destroy` waits for it.
STOP_CONFIRM_SECONDS = 60.0
# How long the terminate of a create that gave up, and the one read that tells whether it stopped, may each
# take (one attempt's time, about): a pause the account is in (the service's Retry-After) is not slept out
# for them, the job is kept in the state as one that may still run instead.
TERMINATE_SECONDS = 10.0


class JobMayStillRun(ProvisioningError):
    """A create gave up on a job it did not see stopped: the job may still run, so the state must hold it.

    job is the job as last read; outputs are the resource's outputs for the state (``core.create`` sets
    them: it has the declared inputs). A front-end answers the engine with them as a partial create (the
    resource is recorded, its creation reported as failed with this text), so `pulumi destroy` stops the job
    and the next `pulumi up` reads it again.
    """

    def __init__(self, text: str, job: TrainingJob, job_id: str) -> None:
        super().__init__(text)
        self.job = job
        self.job_id = job_id
        self.outputs: dict[str, Any] | None = None


class _Fate(enum.Enum):
    TERMINATED = "terminated"  # a terminate was accepted and the job was then read in a final phase
    ENDED = "ended"  # read in a final phase, or gone, without a terminate of ours accepted
    TERMINATING = "terminating"  # a terminate was accepted, but the job was not seen stopped
    MAY_RUN = "may run"  # not terminated: refused, failed, or the engine is gone


def lost_watch(client: ModelArtsAPI, exc: BaseException) -> str:
    """The reason a create gives up on a job whose watch an unexpected error cut short."""
    return f"could not be watched any more ({described(exc, client.transport.scrub)})"


def warn_unknown_phase(job: TrainingJob, job_id: str, progress: Progress) -> None:
    """Say so when a job read (refresh, import) is in a phase this code does not know: the state records it
    as it is, and nothing here may claim it has ended."""
    if may_still_run(job.phase, job.secondary_phase) and not is_known(job.phase):
        progress.say(
            f"warning: {job_label(job, job_id)} reports phase {job.phase or '(none)'}, which this provider "
            "does not know: it is recorded as it is and may still run (a destroy tries to terminate it)"
        )


def give_up(
    client: ModelArtsAPI,
    job: TrainingJob,
    job_id: str,
    reason: str,
    wait_for: WaitFor,
    progress: Progress,
) -> ProvisioningError:
    """Terminate the job if it may still run, and build the error create raises.

    A job may still run in a terminable phase and in any phase this code does not know (``may_still_run``):
    the service adds phases over time, so both are terminated. The error's last lines say what is true:
    terminated or ended (only once the service showed it so), or that it may still run, how to stop it, and
    (``JobMayStillRun``) that it is kept in the state.

    A job is terminated only while the engine listens. Once the engine is gone (`pulumi up` was killed) the
    job belongs to the recovery procedure: modelarts-orphans adopts or stops it, and stopping it here could
    end a job the user is keeping.

    Never raises: whatever fails in here (a terminate, a read, the report), the error returned says the job
    may still run unless it was seen stopped.
    """
    try:
        return _give_up(client, job, job_id, reason, wait_for, progress)
    except Exception as exc:  # a last net: no failure may hide a job that may still run
        text = describe_failure(
            name=job.name,
            job_id=job_id,
            status=None,
            reason=reason,
            terminated=None,
            wait_for=wait_for,
            notes=[f"giving up on it failed ({described(exc, client.transport.scrub)})"],
            recorded=True,
        )
        return JobMayStillRun(text, job, job_id)


def _give_up(
    client: ModelArtsAPI,
    job: TrainingJob,
    job_id: str,
    reason: str,
    wait_for: WaitFor,
    progress: Progress,
) -> ProvisioningError:
    fate = _Fate.ENDED
    listening = True
    notes: list[str] = []
    if may_still_run(job.phase, job.secondary_phase):
        listening = _listening(progress)
        if listening:
            fate, job = _terminate(client, job, job_id, reason, progress, notes)
        else:
            fate = _Fate.MAY_RUN
        if fate is _Fate.MAY_RUN and not is_known(job.phase):  # the phase as last read
            notes.insert(0, unknown_phase(job.phase))
    elif not has_stopped(job):  # Terminating (someone stopped it): seen through like our own terminate
        fate, job = _seen_through(client, job, job_id, accepted=False, notes=notes)
    status = job.status.model_dump(mode="json", exclude_none=True)
    may_run = fate in (_Fate.TERMINATING, _Fate.MAY_RUN)
    text = describe_failure(
        name=job.name,
        job_id=job_id,
        status=status,
        reason=reason,
        terminated={_Fate.TERMINATED: True, _Fate.ENDED: False}.get(fate),
        wait_for=wait_for,
        notes=notes,
        terminating=fate is _Fate.TERMINATING,
        recorded=may_run and listening,
    )
    if is_failure(job.phase, job.secondary_phase):
        text += "\n" + "\n".join(_failure_report(client, job, job_id))
    return JobMayStillRun(text, job, job_id) if may_run else ProvisioningError(text)


def _listening(progress: Progress) -> bool:
    try:
        return progress.engine_listening()
    except Exception:  # it cannot tell: the engine is taken to listen, so the job is stopped, and said so
        return True


def _terminate(
    client: ModelArtsAPI, job: TrainingJob, job_id: str, reason: str, progress: Progress, notes: list[str]
) -> tuple[_Fate, TrainingJob]:
    """Terminate a job that may still run, then read it back: its fate, and the job as last read (notes say
    why when it may still run)."""
    label = job_label(job, job_id)
    progress.say(f"{label} {reason}; terminating it")
    accepted = False
    try:
        with client.transport.within(TERMINATE_SECONDS):
            answer = client.terminate_job(job_id)
        accepted = True
        progress.say(f"{label}: terminate accepted ({answer.phase or 'phase not given'})")
    except NotFoundError:
        return _Fate.ENDED, job
    except NotTerminableError as exc:
        # 409 ModelArts.2796 is an answer, not a failure: the service will not terminate the job in the phase
        # it is in now. Whether that means it has ended is what its phase, read again, says.
        notes.append(f"the service refused to terminate it ({brief(exc)})")
    except Exception as exc:  # whatever it is (ours, httpx, a credential source, a parser): it may still run
        detail = described(exc, client.transport.scrub)
        progress.say(f"terminating {label} failed: {detail}")
        notes.append(f"terminating it failed ({detail})")
    fate, job = _seen_through(client, job, job_id, accepted=accepted, notes=notes)
    if fate is _Fate.TERMINATED:
        progress.say(f"{label} terminated (read back {job.phase})")
    return fate, job


def _seen_through(
    client: ModelArtsAPI, job: TrainingJob, job_id: str, *, accepted: bool, notes: list[str]
) -> tuple[_Fate, TrainingJob]:
    """The job's fate as the service shows it now: read again (never the terminate's own answer), and, when
    it is stopping, waited for until it is read in a final phase (``STOP_CONFIRM_SECONDS`` at most)."""
    unseen = _Fate.TERMINATING if accepted else _Fate.MAY_RUN
    try:
        with client.transport.within(TERMINATE_SECONDS):
            job = client.get_job(job_id)
        if may_still_run(job.phase, job.secondary_phase) and not accepted:
            return _Fate.MAY_RUN, job  # not terminated, and it runs on
        with client.transport.within(STOP_CONFIRM_SECONDS + TERMINATE_SECONDS):  # its last read included
            stopped = until_stopped(client, job, job_id, STOP_CONFIRM_SECONDS)
    except NotFoundError:
        return _Fate.ENDED, job
    except WaitTimedOut as exc:
        job = exc.job
        notes.append(
            f"it was still {job.phase or 'in no phase'} after {format_elapsed(exc.elapsed)} "
            "(a terminate takes effect once the service has stopped the job)"
        )
        return unseen, job
    except Exception as exc:  # the read failed: nothing says it has stopped
        notes.append(f"it could not be read again ({described(exc, client.transport.scrub)})")
        return unseen, job
    if stopped is None:
        return _Fate.ENDED, job
    return (_Fate.TERMINATED if accepted else _Fate.ENDED), stopped


def _failure_report(client: ModelArtsAPI, job: TrainingJob, job_id: str) -> list[str]:
    """Why the job failed, as far as the service can tell: its failing task's log tail and error events.

    Never raises: a log not generated yet or already cleared (ModelArts.2776/2777/2818/2819, HTTP 204), a
    timeout or any other trouble turns into a line saying what was not available.
    """
    from ...wire.models import environments_map

    # The log is the job's own output: it may print a credential or an environment variable's value (the
    # job's or any task's).
    hidden = [v for sent in found(job, ENVIRONMENTS, ATTRIBUTES) for v in environments_map(sent).values()]

    def clean(line: str) -> str:
        # Indentation stays (a traceback reads by it); only the length is bounded.
        try:
            text = client.transport.scrub(redact(line, hidden)).rstrip().replace("\t", "    ")
        except Exception:  # scrubbing failed (a credential source): the line cannot be shown safely
            return "(left out: it could not be checked for credentials)"
        return text if len(text) <= REPORT_LINE_CHARS else text[: REPORT_LINE_CHARS - 1] + "…"

    lines: list[str] = []
    task = _failing_task(job)
    if task is None:
        lines.append("  the job's log was not available (the service named no task)")
    else:
        try:
            preview = client.get_log_preview(job_id, task, attempts=REPORT_ATTEMPTS)
            content = preview.content if preview is not None else None
            tail = [line for line in (content or "").splitlines() if line.strip()][-REPORT_LOG_LINES:]
            if tail:
                lines.append(f"  last {len(tail)} log lines of task {task}:")
                lines.extend(f"    | {clean(line)}" for line in tail)
            else:
                lines.append(f"  the log of task {task} was not available (the service has none yet)")
        except Exception as exc:  # the report must never replace the failure it explains
            lines.append(f"  the log of task {task} was not available ({clean(brief(exc))})")
    try:
        events = client.list_events(job_id, level="Error", limit=REPORT_EVENTS, attempts=REPORT_ATTEMPTS)
        shown = events.events[:REPORT_EVENTS]
        if shown:
            lines.append(f"  recent error events ({len(shown)}):")
            for event in shown:
                where = " ".join(part for part in (event.time, event.source) if part)
                message = event.message or "(no message)"
                lines.append(f"    {clean(f'{where}: {message}' if where else message)}")
    except Exception as exc:  # as above
        lines.append(f"  the job's events were not available ({clean(brief(exc))})")
    return lines


def _failing_task(job: TrainingJob) -> str | None:
    """The task whose log explains the failure: the first with a non-zero exit code, else the first task."""
    for entry in job.status.task_statuses:
        if entry.task and entry.exit_code not in (None, 0):
            return entry.task
    named = [t for t in job.status.tasks if t] or [e.task for e in job.status.task_statuses if e.task]
    return named[0] if named else None

"""Giving up on a job: the error a failed create raises (the job stopped first while the engine listens) and
the failure report it carries (the failing task's log tail and the newest error events), plus the short
labels and error texts every progress line uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..wire.errors import (
    APIError,
    ModelArtsError,
    NotFoundError,
    NotTerminableError,
    ProvisioningError,
    redact,
)
from ..wire.phases import is_failure, is_known, may_still_run
from . import lifecycle as lc
from .progress import Progress
from .secret_paths import ATTRIBUTES, ENVIRONMENTS, found

if TYPE_CHECKING:
    from ..wire.models import TrainingJob
    from .client import ModelArtsClient

__all__ = ["REPORT_LINE_CHARS", "brief", "give_up", "job_label", "warn_unknown_phase"]

# The failure report of a job that ended Failed or Abnormal: the last lines of the failing task's log and the
# newest error events, each line shortened, so the error stays readable. Fetched with few attempts: the
# report is a courtesy and must not hold up (or fail) the error it belongs to.
REPORT_LOG_LINES = 20
REPORT_EVENTS = 5
REPORT_LINE_CHARS = 200
REPORT_ATTEMPTS = 2


def job_label(job: TrainingJob, fallback_id: str | None = None) -> str:
    """How progress lines and errors name a job: "training job NAME (id ID)" (``lifecycle.describe_job``)."""
    return lc.describe_job(job.name, job.job_id or fallback_id)


def brief(exc: BaseException) -> str:
    """An error in one line: the service's code and message for an API error, else its text."""
    if isinstance(exc, APIError) and exc.error_code:
        return f"{exc.error_code}: {exc.error_msg or exc.describe_kind()}"
    return str(exc) or type(exc).__name__


def warn_unknown_phase(job: TrainingJob, job_id: str, progress: Progress) -> None:
    """Say so when a job read (refresh, import) is in a phase this code does not know: the state records it
    as it is, and nothing here may claim it has ended."""
    if may_still_run(job.phase, job.secondary_phase) and not is_known(job.phase):
        progress.say(
            f"warning: {job_label(job, job_id)} reports phase {job.phase or '(none)'}, which this provider "
            "does not know: it is recorded as it is and may still run (a destroy tries to terminate it)"
        )


def give_up(
    client: ModelArtsClient,
    job: TrainingJob,
    job_id: str,
    reason: str,
    wait_for: lc.WaitFor,
    progress: Progress,
) -> ProvisioningError:
    """Terminate the job if it may still run, and build the error create raises (no id reaches the state).

    A job may still run in a terminable phase and in any phase this code does not know (``may_still_run``):
    the service adds phases over time, so both are terminated. The error's last line says what is true:
    terminated, ended (only when the service's phase or a not-found said so), or how to stop it.

    A job is terminated only while the engine listens. Once the engine is gone (`pulumi up` was killed) the
    job belongs to the recovery procedure: modelarts-orphans adopts or stops it, and stopping it here could
    end a job the user is keeping.
    """
    terminated: bool | None = False
    notes: list[str] = []
    if may_still_run(job.phase, job.secondary_phase):
        if not progress.engine_listening():
            terminated = None
        else:
            terminated, job = _terminate(client, job, job_id, reason, progress, notes)
        if terminated is None and not is_known(job.phase):  # the phase as last read
            notes.insert(0, lc.unknown_phase(job.phase))
    status = job.status.model_dump(mode="json", exclude_none=True)
    text = lc.describe_failure(
        name=job.name,
        job_id=job_id,
        status=status,
        reason=reason,
        terminated=terminated,
        wait_for=wait_for,
        notes=notes,
    )
    if is_failure(job.phase, job.secondary_phase):
        text += "\n" + "\n".join(_failure_report(client, job, job_id))
    return ProvisioningError(text)


def _terminate(
    client: ModelArtsClient, job: TrainingJob, job_id: str, reason: str, progress: Progress, notes: list[str]
) -> tuple[bool | None, TrainingJob]:
    """Terminate a job that may still run, and the job as last seen: True when the service accepted, False
    when it is gone or has ended (read again after a refusal), None when it may still run (notes say why)."""
    label = job_label(job, job_id)
    progress.say(f"{label} {reason}; terminating it")
    try:
        client.terminate_job(job_id)
    except NotFoundError:
        return False, job
    except NotTerminableError as exc:
        # 409 ModelArts.2796 is an answer, not a failure: the service will not terminate the job in the phase
        # it is in now. Whether that means it has ended is what its phase, read again, says.
        notes.append(f"the service refused to terminate it ({brief(exc)})")
        try:
            job = client.get_job(job_id)
        except NotFoundError:
            return False, job
        except ModelArtsError:
            return None, job
        return (None if may_still_run(job.phase, job.secondary_phase) else False), job
    except ModelArtsError as exc:
        progress.say(f"terminating {label} failed: {exc}")
        notes.append(f"terminating it failed ({brief(exc)})")
        return None, job
    progress.say(f"{label} terminated")
    return True, job


def _failure_report(client: ModelArtsClient, job: TrainingJob, job_id: str) -> list[str]:
    """Why the job failed, as far as the service can tell: its failing task's log tail and error events.

    Never raises: a log not generated yet or already cleared (ModelArts.2776/2777/2818/2819, HTTP 204), a
    timeout or any other trouble turns into a line saying what was not available.
    """
    from ..wire.models import environments_map

    # The log is the job's own output: it may print a credential or an environment variable's value (the
    # job's or any task's).
    hidden = [v for sent in found(job, ENVIRONMENTS, ATTRIBUTES) for v in environments_map(sent).values()]

    def clean(line: str) -> str:
        # Indentation stays (a traceback reads by it); only the length is bounded.
        text = client.scrub(redact(line, hidden)).rstrip().replace("\t", "    ")
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

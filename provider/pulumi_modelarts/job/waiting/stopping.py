"""Stopping a job: terminate it if it may still run and wait until it has stopped (delete), and delete a
stopped job's record and wait until the service no longer knows it (``on_destroy: delete``, or freeing a held
name). What counts as stopped, and the wait for it, are ``stopped``'s.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...wire.api_errors import BadRequestError, NotFoundError, NotTerminableError
from ...wire.errors import ModelArtsError
from ...wire.phases import Phase, is_known, is_terminable, may_still_run
from ..errors import JobVanished, ProvisioningError, WaitTimedOut
from ..labels import brief, format_elapsed, how_to_stop, job_label
from ..progress import Progress
from .goal import CUSTOM_TIMEOUTS, Bound, clamp, named
from .polling import until
from .stopped import until_stopped

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import TrainingJob

__all__ = ["DELETE_WAIT_SECONDS", "delete_bound", "delete_record", "stop_job"]

# How long delete waits for a terminated job to leave Terminating (real time, whatever the poll knob says).
DELETE_WAIT_SECONDS = 300.0


def delete_bound(limit: float | None) -> Bound:
    """delete's bound: the front-end's own timeout (customTimeouts) when shorter than the built-in one."""
    return clamp(limit, Bound(DELETE_WAIT_SECONDS, ""))  # the built-in bound: no setting to name


def stop_job(job_id: str, client: ModelArtsAPI, progress: Progress, bound: Bound) -> TrainingJob | None:
    """Terminate the job if it may still run and wait until it has stopped: the job then, or None when gone.

    A job in a phase this code does not know may still run (``may_still_run``): it is terminated like a
    running one. Raises ProvisioningError when the service refuses to terminate such a job (409
    ModelArts.2796): it may still run, so it must stay in the state (a destroy fails, saying how to stop it).
    """
    try:
        job: TrainingJob = client.get_job(job_id)
    except NotFoundError:
        progress.say(f"training job {job_id} is already gone")
        return None
    label = job_label(job, job_id)
    if may_still_run(job.phase, job.secondary_phase):
        terminating = _terminate(client, job, job_id, label, progress)
        if terminating is None:
            return None
        job = terminating
    elif job.phase != Phase.TERMINATING:
        return job  # it has already ended (completed, failed, terminated): nothing to stop or wait for
    start = time.monotonic()
    # Right after terminate the service may still report the old phase; Terminating comes next.
    stopped = _wait_stopped(client, job, job_id, label, bound)
    if stopped is not None:
        elapsed = format_elapsed(time.monotonic() - start)
        progress.say(f"{label} {stopped.phase or 'stopped'} after {elapsed}")
    return stopped


def _terminate(
    client: ModelArtsAPI, job: TrainingJob, job_id: str, label: str, progress: Progress
) -> TrainingJob | None:
    """Terminate a job that may still run: the job as the service then shows it, or None once it is gone."""
    try:
        job = client.terminate_job(job_id)
        progress.say(f"{label} terminating")
        return job
    except NotFoundError:
        return None
    except BadRequestError as exc:
        # It may have finished, been stopped or gone between the two calls (409 ModelArts.2796 says it is
        # no longer terminable): look again; the wait after this sees it as it is now.
        try:
            job = client.get_job(job_id)
        except NotFoundError:
            progress.say(f"{label} is already gone")
            return None
        if may_still_run(job.phase, job.secondary_phase) and not isinstance(exc, NotTerminableError):
            raise
        if may_still_run(job.phase, job.secondary_phase) and not is_known(job.phase):
            raise _refused(label, job, job_id, exc) from None
        return job


def _refused(label: str, job: TrainingJob, job_id: str, exc: BadRequestError) -> ProvisioningError:
    """A job in a phase this code does not know whose terminate the service refuses: it may still run, so it
    is not removed from the state; nothing says it has stopped, so only the user can tell."""
    return ProvisioningError(
        f"{label} is in phase {job.phase or '(none)'}, which this provider does not know, and the service "
        f"refuses to terminate it ({brief(exc)}): it may still be running, so it stays in the Pulumi state. "
        f"Check it: {how_to_stop(job.name, job_id)} if it still runs; once it has stopped, run "
        "`pulumi destroy` (or `pulumi up`) again. If you know it has ended, `pulumi state delete` with its "
        "URN drops it from the state without stopping anything"
    )


def _wait_stopped(
    client: ModelArtsAPI, job: TrainingJob, job_id: str, label: str, bound: Bound
) -> TrainingJob | None:
    """Wait until the job has stopped (``stopped.has_stopped``): the job then, or None once gone.

    Raises ProvisioningError when it is still stopping after bound.
    """
    try:
        # A destroy of many jobs waits for them all at once: their polls are shared (shared_polls).
        return until_stopped(client, job, job_id, bound.seconds)
    except WaitTimedOut as exc:
        raise _still_stopping(label, exc, bound) from None


def _still_stopping(label: str, exc: WaitTimedOut, bound: Bound) -> ProvisioningError:
    more = (
        ", or allow the delete more time in the resource's customTimeouts"
        if bound.source == CUSTOM_TIMEOUTS
        else ""
    )
    return ProvisioningError(
        f"{label} is still {exc.job.phase} after {format_elapsed(exc.elapsed)}{named(bound)}; "
        f"run `pulumi destroy` (or `pulumi up`) again to finish deleting it{more}"
    )


def delete_record(
    client: ModelArtsAPI, job: TrainingJob, progress: Progress, bound: Bound, *, on_destroy: bool = False
) -> None:
    """Delete a stopped job's record and wait until the service no longer knows it (its name is then free).

    on_destroy (a destroy's ``on_destroy: delete``): once the job has stopped, a delete the service refuses,
    or a record still listed at the end of the wait, is a warning: the stopped job leaves the state all the
    same, and the user is told its record stays. Otherwise (freeing a held name) they are errors."""
    job_id = job.job_id or ""
    label = job_label(job, job_id)
    if job.phase == Phase.TERMINATING:
        stopped = _wait_stopped(client, job, job_id, label, bound)
        if stopped is None:
            return
        job = stopped
    if is_terminable(job.phase):
        raise ProvisioningError(f"{label} is {job.phase}; a running job's record is never deleted")
    if may_still_run(job.phase, job.secondary_phase):
        raise ProvisioningError(
            f"{label} is in phase {job.phase or '(none)'}, which this provider does not know: it may still "
            f"be running, so its record is not deleted; {how_to_stop(job.name, job_id)} if it still runs"
        )
    try:
        client.delete_job(job_id)
    except NotFoundError:
        return
    except ModelArtsError as exc:
        if not on_destroy:
            raise
        progress.say(
            f"warning: {label} has stopped ({job.phase}) but its record could not be deleted ({exc}): the "
            "record stays in ModelArts and its name stays taken; delete it in the ModelArts console"
        )
        return
    try:
        until(job, lambda: client.get_job(job_id), done=[], timeout=bound.seconds)
    except JobVanished:
        progress.say(f"{label}: record deleted")
        return
    except WaitTimedOut:
        waited = f"{format_elapsed(bound.seconds)}{named(bound)}"
        if not on_destroy:
            raise ProvisioningError(
                f"{label}'s record was deleted but the service still lists it after {waited}; run the "
                "command again"
            ) from None
        progress.say(
            f"warning: {label} has stopped and the deletion of its record was accepted, but the service "
            f"still lists it after {waited}; its name is free once it is gone"
        )

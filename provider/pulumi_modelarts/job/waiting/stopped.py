"""Whether a job has stopped, and waiting until it is read so: the one test behind every "terminated" and
"nothing is left running" this package says (a destroy's wait, a failed create's terminate).

A job has stopped once the service shows it in a known final phase (Completed, Failed, Abnormal, Terminated,
or a failed creation) or no longer knows it. Terminating has not stopped yet, and neither has a phase this
code does not know (``phases.may_still_run``). The wait shares its polls with the process's other waits
(``shared_polls``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...wire.phases import Phase, may_still_run
from ..errors import JobVanished
from .polling import Condition, until
from .shared_polls import shared_step

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import TrainingJob

__all__ = ["has_stopped", "until_stopped"]


def has_stopped(job: TrainingJob) -> bool:
    # A phase this code does not know is not stopped: only a known final phase (or gone) ends a wait for it.
    return not (may_still_run(job.phase, job.secondary_phase) or job.phase == Phase.TERMINATING)


def until_stopped(client: ModelArtsAPI, job: TrainingJob, job_id: str, seconds: float) -> TrainingJob | None:
    """The job once read in a final phase (job itself when it is in one), None once the service no longer
    knows it. Raises ``WaitTimedOut`` (its job: as last read) when it has not stopped after seconds; any
    error of a read propagates."""
    try:
        with shared_step(client, job_id, has_stopped) as step:
            return until(
                job,
                lambda: client.get_job(job_id),
                done=[Condition("stopped", has_stopped)],
                timeout=seconds,
                step=step,
            )
    except JobVanished:
        return None

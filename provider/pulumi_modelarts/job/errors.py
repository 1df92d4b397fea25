"""The job layer's errors: declared inputs refused, a job looked up that does not exist, a create that did
not provision, and a wait that ended without its goal (``WaitError`` and its kinds; ``job`` is the job as last
seen). Their messages name the job and what happened to it, never a credential.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..wire.errors import ModelArtsError

if TYPE_CHECKING:
    from ..wire.models import TrainingJob

__all__ = [
    "InvalidInputsError",
    "JobNotFoundError",
    "JobVanished",
    "ProvisioningError",
    "WaitCancelled",
    "WaitError",
    "WaitFailed",
    "WaitTimedOut",
]


class InvalidInputsError(ModelArtsError, ValueError):
    """Declared inputs that do not make a valid create request; ``failures`` holds (path, reason) pairs."""

    def __init__(self, failures: Iterable[tuple[str, str]]) -> None:
        self.failures = list(failures)
        details = "; ".join(f"{path}: {reason}" for path, reason in self.failures)
        super().__init__(f"the training job inputs are not valid: {details}")


class JobNotFoundError(ModelArtsError, LookupError):
    """A job looked up by id (``TrainingJob.get``) does not exist."""


class ProvisioningError(ModelArtsError):
    """A job failed, was stopped, vanished or timed out while create waited for it, or would not stop."""


class WaitError(ModelArtsError):
    """A wait for a training job ended without its goal; ``job`` is the job as last seen."""

    def __init__(self, message: str, job: TrainingJob, elapsed: float) -> None:
        super().__init__(message)
        self.job = job
        self.elapsed = elapsed


class WaitFailed(WaitError):
    """The job met a condition that fails the wait (``condition`` names it)."""

    def __init__(self, job: TrainingJob, condition: str, elapsed: float) -> None:
        super().__init__(f"training job {job.job_id or job.name}: {condition}", job, elapsed)
        self.condition = condition


class WaitTimedOut(WaitError):
    """The job met none of the conditions before the timeout; ``goal`` names what was waited for."""

    def __init__(self, job: TrainingJob, goal: str, timeout: float, elapsed: float) -> None:
        super().__init__(
            f"training job {job.job_id or job.name}: gave up after {timeout:g}s waiting until {goal} "
            f"(last phase {job.phase or 'unknown'})",
            job,
            elapsed,
        )
        self.goal = goal
        self.timeout = timeout


class WaitCancelled(WaitError):
    """The wait was stopped from outside (the deployment was cancelled) before the job met a condition."""

    def __init__(self, job: TrainingJob, elapsed: float) -> None:
        super().__init__(f"training job {job.job_id or job.name}: the wait was cancelled", job, elapsed)


class JobVanished(WaitError):
    """The job no longer exists (the service answered not found while it was watched)."""

    def __init__(self, job: TrainingJob, elapsed: float) -> None:
        super().__init__(f"training job {job.job_id or job.name} no longer exists", job, elapsed)

"""Errors raised by the ModelArts client, settings resolution, input validation and the lifecycle operations:
the one import path of the whole hierarchy.

Every message is written for a person reading a `pulumi up` failure: what was being done, what the service
answered (status, error code, message, suggested solution) and the request id to quote to support.
Messages are built only from the service's answer and the operation's description, never from request
headers, so no credential can reach them; `redact` also scrubs any known secret the service might echo back.

The families live in modules of their own and are re-exported here: the base and the text rules
(``error_base``), the service's refusals and their codes (``api_errors``), calls with no usable answer
(``transport_errors``). This module holds the rest: settings, inputs, a job not found, provisioning, waits.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .api_errors import API_NOT_FOUND_CODE as API_NOT_FOUND_CODE
from .api_errors import AUTH_ERROR_CODES as AUTH_ERROR_CODES
from .api_errors import DUPLICATE_NAME_CODE as DUPLICATE_NAME_CODE
from .api_errors import JOB_NOT_FOUND_CODE as JOB_NOT_FOUND_CODE
from .api_errors import MAX_SERVICE_PAUSE as MAX_SERVICE_PAUSE
from .api_errors import MODELARTS_THROTTLED_CODE as MODELARTS_THROTTLED_CODE
from .api_errors import MODELARTS_THROTTLED_MIN_PAUSE as MODELARTS_THROTTLED_MIN_PAUSE
from .api_errors import NOT_TERMINABLE_CODE as NOT_TERMINABLE_CODE
from .api_errors import SEARCH_ERROR_CODES as SEARCH_ERROR_CODES
from .api_errors import STATUS_CHANGED_CODE as STATUS_CHANGED_CODE
from .api_errors import THROTTLED_ERROR_CODE as THROTTLED_ERROR_CODE
from .api_errors import TOKEN_ERROR_CODES as TOKEN_ERROR_CODES
from .api_errors import APIError as APIError
from .api_errors import AuthenticationError as AuthenticationError
from .api_errors import BadRequestError as BadRequestError
from .api_errors import DuplicateNameError as DuplicateNameError
from .api_errors import ForbiddenError as ForbiddenError
from .api_errors import NotFoundError as NotFoundError
from .api_errors import NotTerminableError as NotTerminableError
from .api_errors import SearchRejectedError as SearchRejectedError
from .api_errors import ServerError as ServerError
from .api_errors import StatusChangedError as StatusChangedError
from .api_errors import ThrottledError as ThrottledError
from .api_errors import api_error_class as api_error_class
from .error_base import QUOTED_CHARS as QUOTED_CHARS
from .error_base import ModelArtsError as ModelArtsError
from .error_base import listing as listing
from .error_base import redact as redact
from .error_base import shorten as shorten
from .transport_errors import CertificateError as CertificateError
from .transport_errors import InvalidResponseError as InvalidResponseError
from .transport_errors import TransportError as TransportError
from .transport_errors import certificate_problem as certificate_problem

if TYPE_CHECKING:
    from .models import TrainingJob


class SettingsError(ModelArtsError, ValueError):
    """Region, project, endpoint or credentials are missing or unusable (names places, never values)."""


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

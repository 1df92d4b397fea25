"""The service's refusals: the error codes it answers with, ``APIError`` and a subclass per kind of refusal,
and which one an answer is (``api_error_class``). A message holds what the service answered (status, error
code, message, suggested solution) and the request id to quote to support, never a request header.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .errors import ModelArtsError, shorten

__all__ = [
    "API_NOT_FOUND_CODE",
    "AUTH_ERROR_CODES",
    "DUPLICATE_NAME_CODE",
    "JOB_NOT_FOUND_CODE",
    "MAX_SERVICE_PAUSE",
    "MODELARTS_THROTTLED_CODE",
    "MODELARTS_THROTTLED_MIN_PAUSE",
    "NOT_TERMINABLE_CODE",
    "SEARCH_ERROR_CODES",
    "STATUS_CHANGED_CODE",
    "THROTTLED_ERROR_CODE",
    "TOKEN_ERROR_CODES",
    "APIError",
    "AuthenticationError",
    "BadRequestError",
    "DuplicateNameError",
    "ForbiddenError",
    "NotFoundError",
    "NotTerminableError",
    "SearchRejectedError",
    "ServerError",
    "StatusChangedError",
    "ThrottledError",
    "api_error_class",
]

# Codes the API gateway uses for failed authentication or authorisation; retrying these can lock the key.
AUTH_ERROR_CODES = frozenset({"APIG.0301", "APIG.0302", "APIG.0303", "APIG.0304", "APIG.0305", "APIG.0307"})
# The ModelArts platform's own codes for a token it cannot accept (invalid, missing, unparsable, illegal).
TOKEN_ERROR_CODES = frozenset({"ModelArts.0203", "ModelArts.4101", "ModelArts.4102", "ModelArts.4103"})
THROTTLED_ERROR_CODE = "APIG.0308"
# ModelArts' own throttling (HTTP 429); Huawei advises waiting 2-5 s before the next attempt.
MODELARTS_THROTTLED_CODE = "ModelArts.2799"
MODELARTS_THROTTLED_MIN_PAUSE = 2.0
# The longest pause a service may name (Retry-After) that this client honours: longer ones (an hour, a date
# years ahead, "inf") are cut to it. A minute covers any gateway's refill and is half a call's default retry
# budget; a wait, a create or a delete must end on time whatever an answer says.
MAX_SERVICE_PAUSE = 60.0
# A create whose metadata.name a kept job (stopped ones included) already holds.
DUPLICATE_NAME_CODE = "ModelArts.2751"
# Terminate of a job that is no longer Creating, Pending or Running.
NOT_TERMINABLE_CODE = "ModelArts.2796"
# "The job's status changed, try again later": a transient conflict, retried like throttling.
STATUS_CHANGED_CODE = "ModelArts.2878"
# The search API's refusals: filter key, sort_by, condition keys, operator, values.
SEARCH_ERROR_CODES = frozenset(
    {"ModelArts.2789", "ModelArts.2790", "ModelArts.2807", "ModelArts.2808", "ModelArts.2809"}
)
# ModelArts answers an unknown training job id with HTTP 400 and this code rather than 404.
JOB_NOT_FOUND_CODE = "ModelArts.2775"
# The gateway's "this API does not exist" (a wrong endpoint or path): a 404 that says nothing about any job.
API_NOT_FOUND_CODE = "APIG.0101"


class APIError(ModelArtsError):
    """The service answered with an error status or an error body."""

    #: What the refusal means, for a person; each subclass says its own.
    KIND: ClassVar[str] = "the service returned an error"

    def __init__(
        self,
        status_code: int,
        error_code: str | None = None,
        error_msg: str | None = None,
        error_solution: str | None = None,
        request_id: str | None = None,
        *,
        operation: str | None = None,
    ) -> None:
        self.status_code = status_code
        self.error_code = error_code or None
        self.error_msg = error_msg or None
        self.error_solution = error_solution or None
        self.request_id = request_id or None
        self.operation = operation
        super().__init__(self._message())

    def _message(self) -> str:
        what = f"{self.operation} failed" if self.operation else "ModelArts request failed"
        parts = [f"{what}: {self.describe_kind()} (HTTP {self.status_code}"]
        parts.append(f", error code {self.error_code})" if self.error_code else ")")
        text = "".join(parts)
        if self.error_msg:
            text += f": {shorten(self.error_msg)}"
        if self.error_solution:
            # The service's messages often end with a full stop already; one is enough.
            text += f"{'' if text.endswith('.') else '.'} Suggested fix: {shorten(self.error_solution)}"
        if self.request_id:
            text += f" [request id {self.request_id}]"
        return text

    def describe_kind(self) -> str:
        return self.KIND

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only arguments would otherwise break pickling (multiprocessing, test runners).
        return (
            _rebuild_api_error,
            (
                type(self),
                self.status_code,
                self.error_code,
                self.error_msg,
                self.error_solution,
                self.request_id,
                self.operation,
            ),
        )


def _rebuild_api_error(
    cls: type[APIError],
    status_code: int,
    error_code: str | None,
    error_msg: str | None,
    error_solution: str | None,
    request_id: str | None,
    operation: str | None,
) -> APIError:
    return cls(status_code, error_code, error_msg, error_solution, request_id, operation=operation)


class NotFoundError(APIError):
    """The training job does not exist (HTTP 404, or HTTP 400 with ModelArts.2775)."""

    KIND = "the training job was not found"


class AuthenticationError(APIError):
    """The credentials were refused (HTTP 401, or an APIG authentication or ModelArts token code). Never
    retried."""

    KIND = "the credentials were refused; check the access key, secret key, token and project id"


class ForbiddenError(APIError):
    """HTTP 403 with any other code (or none): the request was understood and refused, which says nothing
    against the credentials themselves. Never retried."""

    KIND = (
        "the request is forbidden: the account or IAM user lacks a permission it needs, or the project "
        "id is not one these credentials may use"
    )


class ThrottledError(APIError):
    """Too many requests (HTTP 429 or APIG.0308)."""

    KIND = "the service is throttling requests"

    def __init__(
        self,
        status_code: int,
        error_code: str | None = None,
        error_msg: str | None = None,
        error_solution: str | None = None,
        request_id: str | None = None,
        *,
        operation: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.retry_after = retry_after
        super().__init__(status_code, error_code, error_msg, error_solution, request_id, operation=operation)


class StatusChangedError(ThrottledError):
    """The job's status was changing (409 ModelArts.2878, "try again later"); retried like throttling."""

    KIND = "the training job's status was changing; try again later"


class ServerError(APIError):
    """The service failed (HTTP 5xx)."""

    KIND = "the service had an internal error"


class BadRequestError(APIError):
    """The service rejected the request (any other 4xx)."""

    KIND = "the service rejected the request"


class DuplicateNameError(BadRequestError):
    """A job the service keeps (stopped ones included) already holds the name (400 ModelArts.2751)."""

    KIND = "a training job of that name already exists (the service keeps stopped jobs' names too)"


class NotTerminableError(BadRequestError):
    """The job is no longer Creating, Pending or Running, so it cannot be terminated (409 ModelArts.2796)."""

    KIND = "the training job can no longer be terminated"


class SearchRejectedError(BadRequestError):
    """The search API refused a filter, sort order or condition (ModelArts.2789/2790/2807-2809)."""

    KIND = "the service refused the search"


def api_error_class(status_code: int, error_code: str | None) -> type[APIError]:
    """Which APIError subclass fits a status code and error code."""
    if error_code == STATUS_CHANGED_CODE:
        return StatusChangedError
    if status_code == 429 or error_code in (THROTTLED_ERROR_CODE, MODELARTS_THROTTLED_CODE):
        return ThrottledError
    if status_code == 401 or error_code in AUTH_ERROR_CODES or error_code in TOKEN_ERROR_CODES:
        return AuthenticationError
    if status_code == 403:
        # A 403 is what its code says: only an authentication code blames the credentials (above).
        return ForbiddenError
    if error_code == API_NOT_FOUND_CODE:
        return BadRequestError
    if status_code == 404 or (400 <= status_code < 500 and error_code == JOB_NOT_FOUND_CODE):
        return NotFoundError
    if status_code >= 500:
        return ServerError
    if error_code == DUPLICATE_NAME_CODE:
        return DuplicateNameError
    if error_code == NOT_TERMINABLE_CODE:
        return NotTerminableError
    if error_code in SEARCH_ERROR_CODES:
        return SearchRejectedError
    return BadRequestError

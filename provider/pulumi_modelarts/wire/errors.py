"""Errors raised by the ModelArts client, settings resolution, input validation and the lifecycle operations.

Every message is written for a person reading a `pulumi up` failure: what was being done, what the service
answered (status, error code, message, suggested solution) and the request id to quote to support.
Messages are built only from the service's answer and the operation's description, never from request
headers, so no credential can reach them; `redact` also scrubs any known secret the service might echo back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import TrainingJob

# Codes the API gateway uses for failed authentication or authorisation; retrying these can lock the key.
AUTH_ERROR_CODES = frozenset({"APIG.0301", "APIG.0302", "APIG.0303", "APIG.0304", "APIG.0305", "APIG.0307"})
# The ModelArts platform's own codes for a token it cannot accept (invalid, missing, unparsable, illegal).
TOKEN_ERROR_CODES = frozenset({"ModelArts.0203", "ModelArts.4101", "ModelArts.4102", "ModelArts.4103"})
THROTTLED_ERROR_CODE = "APIG.0308"
# ModelArts' own throttling (HTTP 429); Huawei advises waiting 2-5 s before the next attempt.
MODELARTS_THROTTLED_CODE = "ModelArts.2799"
MODELARTS_THROTTLED_MIN_PAUSE = 2.0
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

_MAX_TEXT = 500


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace every occurrence of each (non-trivial) secret in text with "***"."""
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def shorten(text: str, limit: int = _MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ModelArtsError(Exception):
    """Base class of everything this package raises about talking to ModelArts."""


class APIError(ModelArtsError):
    """The service answered with an error status or an error body."""

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
        return "the service returned an error"

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

    def describe_kind(self) -> str:
        return "the training job was not found"


class AuthenticationError(APIError):
    """The credentials were refused (HTTP 401, or an APIG authentication or ModelArts token code). Never
    retried."""

    def describe_kind(self) -> str:
        return "the credentials were refused; check the access key, secret key, token and project id"


class ForbiddenError(APIError):
    """HTTP 403 with any other code (or none): the request was understood and refused, which says nothing
    against the credentials themselves. Never retried."""

    def describe_kind(self) -> str:
        return (
            "the request is forbidden: the account or IAM user lacks a permission it needs, or the project "
            "id is not one these credentials may use"
        )


class ThrottledError(APIError):
    """Too many requests (HTTP 429 or APIG.0308)."""

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

    def describe_kind(self) -> str:
        return "the service is throttling requests"


class StatusChangedError(ThrottledError):
    """The job's status was changing (409 ModelArts.2878, "try again later"); retried like throttling."""

    def describe_kind(self) -> str:
        return "the training job's status was changing; try again later"


class ServerError(APIError):
    """The service failed (HTTP 5xx)."""

    def describe_kind(self) -> str:
        return "the service had an internal error"


class BadRequestError(APIError):
    """The service rejected the request (any other 4xx)."""

    def describe_kind(self) -> str:
        return "the service rejected the request"


class DuplicateNameError(BadRequestError):
    """A job the service keeps (stopped ones included) already holds the name (400 ModelArts.2751)."""

    def describe_kind(self) -> str:
        return "a training job of that name already exists (the service keeps stopped jobs' names too)"


class NotTerminableError(BadRequestError):
    """The job is no longer Creating, Pending or Running, so it cannot be terminated (409 ModelArts.2796)."""

    def describe_kind(self) -> str:
        return "the training job can no longer be terminated"


class SearchRejectedError(BadRequestError):
    """The search API refused a filter, sort order or condition (ModelArts.2789/2790/2807-2809)."""

    def describe_kind(self) -> str:
        return "the service refused the search"


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


class TransportError(ModelArtsError):
    """The request did not get an answer: connection refused or dropped, DNS failure, or a timeout."""

    def __init__(
        self, operation: str, reason: str, *, attempts: int = 1, endpoint: str | None = None
    ) -> None:
        self.operation = operation
        self.reason = reason
        self.attempts = attempts
        # The endpoint URL carries no credential: settings refuse user info in it.
        self.endpoint = endpoint
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        where = f" at {endpoint}" if endpoint else ""
        super().__init__(f"{operation} failed{tries}: no answer from ModelArts{where} ({reason})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_transport_error, (self.operation, self.reason, self.attempts, self.endpoint))


def _rebuild_transport_error(
    operation: str, reason: str, attempts: int, endpoint: str | None = None
) -> TransportError:
    return TransportError(operation, reason, attempts=attempts, endpoint=endpoint)


# OpenSSL's verify codes (X509_V_ERR_*) a certificate refusal is explained by.
_UNTRUSTED_CODES = frozenset({2, 18, 19, 20, 21})  # unknown issuer, self-signed (leaf or in the chain)
_SELF_SIGNED_CODES = frozenset({18, 19})
_EXPIRED, _NOT_YET_VALID, _REVOKED = 10, 9, 23
_NAME_MISMATCH_CODES = frozenset({62, 64})  # host name, IP address
_TRUST_ADVICE = (
    "if the endpoint is the right one and its certificate comes from a private or corporate authority, set "
    "SSL_CERT_FILE to a CA bundle (PEM) that includes the issuer"
)


def certificate_problem(verify_code: int | None, verify_message: str | None, host: str) -> str:
    """What a refused certificate means and what to do, from OpenSSL's verify code and message."""
    said = f" (OpenSSL: {verify_message})" if verify_message else ""
    if verify_code in _SELF_SIGNED_CODES:
        return f"it is self-signed, so no authority this machine trusts vouches for it{said}; {_TRUST_ADVICE}"
    if verify_code in _UNTRUSTED_CODES:
        return f"its issuer is not an authority this machine trusts{said}; {_TRUST_ADVICE}"
    if verify_code == _EXPIRED:
        return (
            f"it has expired{said}; check this machine's clock, else the endpoint must renew its certificate"
        )
    if verify_code == _NOT_YET_VALID:
        return f"it is not valid yet{said}; check this machine's clock"
    if verify_code == _REVOKED:
        return f"it has been revoked{said}; the endpoint must get a new certificate"
    if verify_code in _NAME_MISMATCH_CODES:
        return (
            f"it was not issued for the host {host}{said}; check the endpoint (modelarts:endpoint or "
            "HW_MODELARTS_ENDPOINT): it must use the host name the certificate names"
        )
    code = f" (verify code {verify_code})" if verify_code is not None else ""
    return f"it could not be verified{said}{code}; {_TRUST_ADVICE}"


class CertificateError(TransportError):
    """The endpoint's TLS certificate failed verification. Never retried: the next attempt meets the same
    certificate. Verification stays on; the message says how to trust a private authority."""

    def __init__(self, operation: str, problem: str, *, endpoint: str | None = None) -> None:
        self.operation = operation
        self.problem = problem
        self.reason = f"could not connect: the server's TLS certificate was refused: {problem}"
        self.attempts = 1
        self.endpoint = endpoint
        where = f" at {endpoint}" if endpoint else ""
        # Not TransportError's "no answer from ModelArts": a server answered, with a certificate not trusted.
        ModelArtsError.__init__(
            self,
            f"{operation} failed: could not connect to ModelArts{where}: the server's TLS certificate was "
            f"refused: {problem}",
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_certificate_error, (self.operation, self.problem, self.endpoint))


def _rebuild_certificate_error(operation: str, problem: str, endpoint: str | None) -> CertificateError:
    return CertificateError(operation, problem, endpoint=endpoint)


class InvalidResponseError(ModelArtsError):
    """The service answered something this client cannot use (not JSON, wrong shape, missing fields)."""

    def __init__(
        self,
        operation: str,
        problem: str,
        *,
        status_code: int | None = None,
        excerpt: str | None = None,
        request_id: str | None = None,
    ) -> None:
        self.operation = operation
        self.problem = problem
        self.status_code = status_code
        self.excerpt = excerpt
        self.request_id = request_id
        text = f"{operation} failed: ModelArts gave an unusable answer: {problem}"
        if status_code is not None:
            text += f" (HTTP {status_code})"
        if excerpt:
            text += f"; the answer began: {excerpt!r}"
        if request_id:
            text += f" [request id {request_id}]"
        super().__init__(text)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild_invalid_response_error,
            (self.operation, self.problem, self.status_code, self.excerpt, self.request_id),
        )


def _rebuild_invalid_response_error(
    operation: str, problem: str, status_code: int | None, excerpt: str | None, request_id: str | None
) -> InvalidResponseError:
    return InvalidResponseError(
        operation, problem, status_code=status_code, excerpt=excerpt, request_id=request_id
    )


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

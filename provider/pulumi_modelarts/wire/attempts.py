"""What one failed attempt of a call means: no answer at all (and whether the request may have reached the
service, or nothing listens at the endpoint), keys refused as expired and renewed, a refused certificate, and
whether a retry may apply it twice. The transport's retry loop decides on these; they are pure.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass

import httpx

from .api_errors import AuthenticationError, ServerError, StatusChangedError, ThrottledError
from .errors import CertificateError, TransportError, certificate_problem

__all__ = [
    "OUT_OF_TIME",
    "AttemptFailure",
    "KeysRenewed",
    "NoAnswer",
    "connect_failure",
    "failure_of",
    "may_have_been_applied",
    "not_sent",
]

OUT_OF_TIME = "the time allowed for it ran out before it was sent"


class NoAnswer(Exception):
    """One attempt got no HTTP answer. `ambiguous`: the request may have reached the service.

    `unreachable`: nothing answered at the endpoint at all (connection refused, host name not found).
    """

    def __init__(self, reason: str, *, ambiguous: bool, unreachable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ambiguous = ambiguous
        self.unreachable = unreachable


class KeysRenewed(Exception):
    """One attempt was refused because its temporary keys had expired (APIG.0307), and the signer fetched
    fresh ones: it is sent again (a create only after its job was looked for). The service did answer: once
    no attempt is left, ``refusal`` is what is raised, never "no answer"."""

    def __init__(self, refusal: AuthenticationError) -> None:
        super().__init__("the temporary keys had expired; fresh ones were fetched")
        self.refusal = refusal


@dataclass(frozen=True)
class AttemptFailure:
    """A retryable failure of one attempt: what is raised once no retry is left, and why it is retried."""

    error: Exception
    reason: str
    retry_after: float | None = None
    unreachable: bool = False


def failure_of(exc: Exception, operation: str, attempt: int, endpoint: str) -> AttemptFailure:
    """What a retryable failure of one attempt is called, raises and allows."""
    if isinstance(exc, NoAnswer):
        error = TransportError(operation, exc.reason, attempts=attempt, endpoint=endpoint)
        return AttemptFailure(error, exc.reason, unreachable=exc.unreachable)
    if isinstance(exc, KeysRenewed):
        return AttemptFailure(exc.refusal, str(exc))
    if isinstance(exc, ThrottledError):  # also StatusChangedError (409 ModelArts.2878, "try again later")
        reason = "the job's status was changing" if isinstance(exc, StatusChangedError) else "throttled"
        return AttemptFailure(exc, reason, retry_after=exc.retry_after)
    assert isinstance(exc, ServerError)
    return AttemptFailure(exc, f"HTTP {exc.status_code}")


def may_have_been_applied(exc: BaseException) -> bool:
    """Whether a failed attempt may have been applied: no answer after sending, or a 5xx (a gateway can time
    out after the backend committed)."""
    return (isinstance(exc, NoAnswer) and exc.ambiguous) or isinstance(exc, ServerError)


def connect_failure(exc: BaseException, operation: str, endpoint: str) -> NoAnswer | CertificateError:
    """What a failed connect means, from the OS error httpx wraps (refused and DNS failures end retries; a
    refused certificate is raised at once, as CertificateError)."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ssl.SSLCertVerificationError):
        host = httpx.URL(endpoint).host
        problem = certificate_problem(cause.verify_code, cause.verify_message, host)
        return CertificateError(operation, problem, endpoint=endpoint)
    if isinstance(cause, ssl.SSLError):
        # Another handshake failure (https to a plain-HTTP port, say): retried once, as a refused connection.
        detail = cause.reason or type(cause).__name__
        return NoAnswer(
            f"could not connect: the TLS handshake failed ({detail})", ambiguous=False, unreachable=True
        )
    if isinstance(cause, socket.gaierror):
        reason = "could not connect: the host name could not be resolved"
        return NoAnswer(reason, ambiguous=False, unreachable=True)
    if isinstance(cause, ConnectionRefusedError):
        return NoAnswer("could not connect: connection refused", ambiguous=False, unreachable=True)
    return NoAnswer(f"could not connect ({type(exc).__name__})", ambiguous=False)


def not_sent(operation: str, pause: float, left: float) -> ThrottledError:
    """The error of a call the account's pause (or its turn at the pace) outlasts: it is not sent, as it would
    only spend, after the call's time, a turn the account's bucket does not have."""
    if pause > 0:
        reason = (
            f"the account's calls are paused for {pause:.0f}s more, as the service asked, and this call has "
            f"{left:.0f}s left; it was not sent"
        )
    else:
        reason = f"the account's calls are paced; this call's turn comes after its {left:.0f}s left: not sent"
    return ThrottledError(429, None, reason, operation=operation, retry_after=pause or None)

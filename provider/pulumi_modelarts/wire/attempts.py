"""What one failed attempt of a call means: no answer at all (and whether the request may have reached the
service, or nothing listens at the endpoint), a refused certificate, and whether a retry may apply it twice.
The transport's retry loop decides on these; they are pure.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass

import httpx

from .errors import CertificateError, ServerError, certificate_problem

__all__ = ["AttemptFailure", "NoAnswer", "connect_failure", "may_have_been_applied"]


class NoAnswer(Exception):
    """One attempt got no HTTP answer. `ambiguous`: the request may have reached the service.

    `unreachable`: nothing answered at the endpoint at all (connection refused, host name not found).
    """

    def __init__(self, reason: str, *, ambiguous: bool, unreachable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ambiguous = ambiguous
        self.unreachable = unreachable


@dataclass(frozen=True)
class AttemptFailure:
    """A retryable failure of one attempt: what is raised once no retry is left, and why it is retried."""

    error: Exception
    reason: str
    retry_after: float | None = None
    unreachable: bool = False


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

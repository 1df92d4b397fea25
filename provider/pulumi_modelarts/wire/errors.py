"""The errors of a call to ModelArts, and the base of every error the package raises about one.

The base and the rules of their texts: a known secret never appears (``redact``), and whatever an error
quotes that it did not write (a service's message or body, a list an answer or a file gave) is cut to
``QUOTED_CHARS`` with a count of what was left out (``shorten`` for a text, ``listing`` for a list): an IAM
listing 10,000 projects, none matching, must not print them all. Then the errors of a value the wire was
handed and cannot use (``UnusableValueError``: an endpoint URL, a CA file, a header value; the account's
``SettingsError`` is one kind of it), and of a call that got no usable answer: none at all
(``TransportError``), a certificate refused (``CertificateError``, with what it means:
``certificate_problem``), or an answer this client cannot use (``InvalidResponseError``). The service's
own refusals are ``api_errors``; the job layer's errors (inputs, provisioning, waits) are ``job.errors``.

Every message is written for a person reading a `pulumi up` failure, built only from the operation's
description and what came back, never from request headers: no credential can reach it. A message names the
operation and the endpoint (settings refuse user info in an endpoint URL).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "QUOTED_CHARS",
    "CertificateError",
    "InvalidResponseError",
    "ModelArtsError",
    "TransportError",
    "UnusableValueError",
    "certificate_problem",
    "listing",
    "redact",
    "shorten",
]

# The most characters of a quoted text or list in an error, the note of what was left out included.
QUOTED_CHARS = 500


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace every occurrence of each (non-trivial) secret in text with "***"."""
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def shorten(text: str, limit: int = QUOTED_CHARS) -> str:
    """text on one line, cut to at most limit characters saying how many were left out."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    # The note's width with the largest count it can show, so that the result never passes limit.
    keep = limit - len(f"… ({len(text)} more characters)")
    if keep <= 0:
        return text[: limit - 1] + "…"
    return f"{text[:keep]}… ({len(text) - keep} more characters)"


def listing(items: Iterable[str], limit: int = QUOTED_CHARS, separator: str = ", ") -> str:
    """items joined, as many whole ones as fit in limit characters with the note of how many were left out
    (the first one cut short when even it does not fit)."""
    names = [" ".join(str(item).split()) for item in items]
    width = 0
    for count, name in enumerate(names):
        width += len(separator) * bool(count) + len(name)
        left = len(names) - count - 1
        if width + (len(f"{separator}and {left} more") if left else 0) > limit:
            break
    else:
        return separator.join(names)
    if count == 0:
        note = f"{separator}and {len(names) - 1} more" if len(names) > 1 else ""
        return shorten(names[0], max(1, limit - len(note))) + note
    return f"{separator.join(names[:count])}{separator}and {len(names) - count} more"


class ModelArtsError(Exception):
    """Base class of everything this package raises about talking to ModelArts."""


class UnusableValueError(ModelArtsError, ValueError):
    """A value the wire was handed cannot be used: an endpoint URL, a CA file, a value a request header cannot
    carry (names places, never values). ``account.errors.SettingsError``, a setting missing or unusable, is
    one kind of it."""


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
    "modelarts:caCertFile or HW_CACERT_FILE to that authority's certificate (PEM; it is trusted besides the "
    "default roots), or SSL_CERT_FILE to a CA bundle (PEM) that includes the issuer"
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

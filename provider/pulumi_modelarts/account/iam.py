"""IAM's calls: the HTTP client they share, their errors, and the two sources of temporary keys IAM gives.

* ``AgencyKeys``: an agency's keys (``assumeRole``), asked for with the base credentials:
  ``POST {iam}/v3.0/OS-CREDENTIAL/securitytokens`` with ``methods: ["assume_role"]``;
* ``OidcKeys``: a CI system's id token (file read at each renewal: CI systems rotate it) traded for an
  unscoped token (``POST {iam}/v3.0/OS-AUTH/id-token/tokens``, ``X-Idp-Id``; the token comes back in
  ``X-Subject-Token``), then for keys (``securitytokens`` with ``methods: ["token"]``), as the official SDK's
  ``FederalAccessor`` does: both calls unsigned, the token being the proof.

``{iam}`` is IAM's base URL without ``/v3``. A refusal names the call, the HTTP status, IAM's message and its
request id (``X-IAM-Trace-Id`` or ``X-Request-Id``); nothing a caller sent or IAM issued is ever quoted.
"""

from __future__ import annotations

import collections
import json
import socket
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import httpx

from ..wire.errors import certificate_problem, redact, shorten
from ..wire.reading import Received, TooLarge, Unreadable, read_file, receive
from ..wire.tls import ssl_context_for
from ..wire.transport import USER_AGENT
from .errors import AccountError, as_settings_error
from .keys import TemporaryKeys, keys_from_answer
from .settings import AssumeRole

__all__ = ["OIDC_DURATION_SECONDS", "AgencyKeys", "Iam", "OidcKeys", "request_id"]

SECURITY_TOKENS_PATH = "/v3.0/OS-CREDENTIAL/securitytokens"
ID_TOKEN_LOGIN_PATH = "/v3.0/OS-AUTH/id-token/tokens"
# What the official SDK asks an OIDC login's keys to last (FederalAccessor: 6 hours).
OIDC_DURATION_SECONDS = 6 * 60 * 60
IAM_SETTINGS = "modelarts:iamEndpoint or HW_AUTH_URL"
# IAM is retried a little (a 5xx, 429 or lost connection): each call here is safe to repeat.
IAM_ATTEMPTS = 3
_REMEMBERED = 8
UNSENDABLE = "a key or token of the credentials holds characters a request header cannot carry"


def request_id(answer: Received) -> str | None:
    return answer.headers.get("X-IAM-Trace-Id") or answer.headers.get("X-Request-Id") or None


def _no_answer_reason(exc: httpx.HTTPError) -> str:
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, socket.gaierror):
        return "the host name could not be resolved"
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({type(exc).__name__})"
    return f"the connection failed ({type(exc).__name__})"


def _certificate(exc: httpx.HTTPError, host: str) -> str | None:
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, ssl.SSLCertVerificationError):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    return certificate_problem(cause.verify_code, cause.verify_message, host)


class Iam:
    """Calls to IAM at ``base`` (its URL without /v3), with the provider's trusted roots and a timeout.

    ``secrets`` gives what must be scrubbed from IAM's own messages (the keys and tokens in play).
    """

    def __init__(
        self,
        base: str,
        *,
        ca_cert_file: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        secrets: Callable[[], Iterable[str]] = tuple,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base = base.rstrip("/")
        self.ca_cert_file = ca_cert_file
        self._timeout = timeout
        self._transport = transport
        self._secrets = secrets
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"Iam({self.base!r})"

    def send(
        self,
        method: str,
        path: str,
        *,
        operation: str,
        auth: httpx.Auth | None = None,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Received:
        """The answer (any status; read by the one careful reader, ``wire.reading``), retried on 5xx, 429 and
        lost connections; AccountError when IAM gave no answer at all or one too large to read, or when the
        request could not be built (nothing was sent: not retried)."""
        with as_settings_error():  # the CA file is the user's setting
            verify = ssl_context_for(self.base, self.ca_cert_file) if self._transport is None else True
        content = None if body is None else json.dumps(body).encode("utf-8")
        sent = {"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})}
        if content is not None:
            sent["Content-Type"] = "application/json;charset=UTF-8"
        with httpx.Client(
            auth=auth, timeout=self._timeout, verify=verify, transport=self._transport, follow_redirects=False
        ) as http:
            for attempt in range(1, IAM_ATTEMPTS + 1):
                try:
                    request = http.build_request(
                        method, self.base + path, params=params, content=content, headers=sent
                    )
                    answer = receive(http, request)
                except (httpx.LocalProtocolError, UnicodeEncodeError):
                    raise AccountError(f"{operation} failed before anything was sent: {UNSENDABLE}") from None
                except TooLarge as exc:
                    raise AccountError(f"{operation} failed: IAM's answer is {exc.problem}") from None
                except httpx.HTTPError as exc:
                    problem = _certificate(exc, httpx.URL(self.base).host)
                    if problem is not None or attempt == IAM_ATTEMPTS:
                        raise AccountError(
                            f"{operation} failed: no answer from IAM at {self.base} "
                            f"({problem or _no_answer_reason(exc)}); check {IAM_SETTINGS}"
                        ) from None
                else:
                    retryable = answer.status_code == 429 or answer.status_code >= 500
                    if not retryable or attempt == IAM_ATTEMPTS:
                        return answer
                self._sleep(float(attempt))
        raise AssertionError("unreachable")

    def refusal(self, answer: Received, operation: str, advice: str = "") -> AccountError:
        """The error for an answer that is not what the call needed: status, IAM's words, request id."""
        return AccountError(self.said(answer, f"{operation} failed: IAM answered", advice))

    def unreadable(self, answer: Received, operation: str, advice: str = "") -> AccountError:
        """The error for an answer whose body cannot be read (``answer.problem``): never quoted."""
        rid = request_id(answer)
        text = f"{operation} failed: IAM answered HTTP {answer.status_code}, a body that is {answer.problem}"
        text += f" [request id {rid}]" if rid else ""
        return AccountError(f"{text}. {advice}" if advice else text)

    def said(self, answer: Received, lead: str, advice: str = "") -> str:
        message, code = _message_of(answer.payload) if answer.problem is None else (answer.text, "")
        text = f"{lead} HTTP {answer.status_code}{f' ({code})' if code else ''}"
        if message:
            text += f": {shorten(redact(message.strip(), self._secrets()))}"
        rid = request_id(answer)
        text += f" [request id {rid}]" if rid else ""
        return f"{text}. {advice}" if advice else text

    def keys(self, answer: Received, operation: str) -> TemporaryKeys:
        """The keys of a securitytokens answer (201), or the error saying what IAM answered instead."""
        if answer.status_code not in (200, 201):
            raise self.refusal(answer, operation)
        if answer.problem is not None:
            raise self.unreadable(answer, operation)
        return keys_from_answer(answer.payload, f"IAM ({operation})")


def _message_of(payload: Any) -> tuple[str, str]:
    """IAM's (keystone's) or the gateway's error message and code."""
    if not isinstance(payload, Mapping):
        return "", ""
    error = payload.get("error")
    if isinstance(error, Mapping):
        return str(error.get("message") or ""), str(error.get("code") or "")
    return str(payload.get("error_msg") or ""), str(payload.get("error_code") or "")


class AgencyKeys:
    """An agency's temporary keys, asked for with the base credentials (any source) signing the call."""

    def __init__(self, iam: Iam, base_auth: httpx.Auth, role: AssumeRole) -> None:
        self._iam = iam
        self._base_auth = base_auth
        self._role = role

    @property
    def name(self) -> str:
        domain = self._role.domain_name or self._role.domain_id
        return f"the agency {self._role.agency_name!r} of account {domain!r} (IAM at {self._iam.base})"

    def fetch(self) -> TemporaryKeys:
        role: dict[str, Any] = {"agency_name": self._role.agency_name}
        if self._role.domain_name:
            role["domain_name"] = self._role.domain_name
        if self._role.domain_id:
            role["domain_id"] = self._role.domain_id
        if self._role.duration_seconds:
            role["duration_seconds"] = self._role.duration_seconds
        body = {"auth": {"identity": {"methods": ["assume_role"], "assume_role": role}}}
        operation = f"assuming the agency {self._role.agency_name!r}"
        answer = self._iam.send(
            "POST", SECURITY_TOKENS_PATH, operation=operation, auth=self._base_auth, body=body
        )
        return self._iam.keys(answer, operation)

    def secrets(self) -> tuple[str, ...]:
        return ()


class OidcKeys:
    """Keys for a CI system's OIDC id token (``idp_id`` names the identity provider configured in IAM)."""

    def __init__(self, iam: Iam, idp_id: str, id_token_file: str, duration: int = OIDC_DURATION_SECONDS):
        self._iam = iam
        self._idp_id = idp_id
        self._file = id_token_file
        self._duration = duration
        self._handled: collections.deque[str] = collections.deque(maxlen=_REMEMBERED)

    @property
    def name(self) -> str:
        return f"an OIDC login with identity provider {self._idp_id!r} (IAM at {self._iam.base})"

    def secrets(self) -> tuple[str, ...]:
        return tuple(self._handled)

    def id_token(self) -> str:
        """The file's content, read now (CI systems rotate it); AccountError naming the file, never its
        text."""
        where = f"the id token file {self._file} (idTokenFile / HUAWEICLOUD_SDK_ID_TOKEN_FILE)"
        try:
            content = read_file(Path(self._file)).strip()  # the one careful reader: at most 1 MiB, UTF-8
        except Unreadable as exc:
            raise AccountError(f"{where} is {exc.problem}") from None
        except OSError as exc:
            raise AccountError(f"cannot read {where}: {type(exc).__name__}") from None
        if not content:
            raise AccountError(f"{where} is empty")
        if content not in self._handled:
            self._handled.append(content)
        return content

    def fetch(self) -> TemporaryKeys:
        login = {"auth": {"id_token": {"id": self.id_token()}}}
        operation = f"logging in with the id token (identity provider {self._idp_id!r})"
        answer = self._iam.send(
            "POST", ID_TOKEN_LOGIN_PATH, operation=operation, body=login, headers={"X-Idp-Id": self._idp_id}
        )
        subject = answer.headers.get("X-Subject-Token")
        if answer.status_code not in (200, 201) or not subject:
            advice = "" if answer.status_code >= 300 else "It sent no X-Subject-Token."
            raise self._iam.refusal(answer, operation, advice)
        if subject not in self._handled:
            self._handled.append(subject)
        trade = {"methods": ["token"], "token": {"id": subject, "duration_seconds": self._duration}}
        operation = "trading the id token login's token for temporary keys"
        body = {"auth": {"identity": trade}}
        answer = self._iam.send("POST", SECURITY_TOKENS_PATH, operation=operation, body=body)
        return self._iam.keys(answer, operation)

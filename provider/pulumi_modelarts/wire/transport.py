"""The API's HTTP transport: one connection pool, signing, one attempt, the retry loop and its decisions.

One `httpx.Client` (one connection pool) per transport; every call has a timeout and a bounded retry budget.
Retried: throttling (HTTP 429 / APIG.0308), server errors (5xx), connection failures and timeouts, with
exponential backoff and full jitter, honouring ``Retry-After`` (up to ``MAX_SERVICE_PAUSE``); the account's
throttling, once it shows a rate, paces the process's calls to it, each within its budget (``throttling``).
Every pause ends within what the call has left: its retry budget (``max_retry_seconds``) and its deadline
(``within``), which also bounds each attempt's timeout; a call whose time ends before the account's pause is
refused unsent. Authentication failures are never retried (five in a row lock the access key), except
temporary keys refused as expired (APIG.0307) by a signer that can renew them (``RenewableAuth``): fresh keys,
and the call is sent again, a create only after its job was looked for.

A call that must not be applied twice (a create) goes through ``request_or_find``: after an *ambiguous*
failure - the request may have reached the service but no answer came back (connection dropped or read
timeout after sending) or a 5xx came back (a gateway can time out after the backend committed) - the caller's
``find`` looks for what the call made before it is sent again. Failures before the request leaves (connection
refused, connect timeout) and throttling are not ambiguous and are simply retried. A refused connection or a
host name that does not resolve is retried once, after a short pause: nothing listens at the endpoint, which
more attempts would not change. A certificate that fails verification is not retried (CertificateError says
why and what to do), nor is a request that cannot be built (a header no header can carry): it was never
sent. Every transport error names the endpoint. Answers are read by ``interpreting``.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import httpx

from .api_errors import AuthenticationError, ServerError, ThrottledError
from .attempts import (
    OUT_OF_TIME,
    AttemptFailure,
    KeysRenewed,
    NoAnswer,
    connect_failure,
    failure_of,
    may_have_been_applied,
    not_sent,
)
from .auth import KEY_EXPIRED_CODE, RenewableAuth
from .endpoints import normalize_endpoint
from .errors import InvalidResponseError, TransportError, UnusableValueError, redact
from .interpreting import Answer, interpret
from .reading import MAX_ANSWER_BYTES, TooLarge, read_body
from .sendable import path_segment, project_id_problem
from .throttling import ThrottleGate, gate_for
from .tls import ssl_context_for, verifying_ssl_context

__all__ = ["MAX_BODY_BYTES", "Transport", "path_segment", "verifying_ssl_context"]

MAX_BODY_BYTES = MAX_ANSWER_BYTES  # the one reader's bound (``reading``)
# Attempts for a refused connection or an unresolvable host name: one quick retry covers a gateway restarting,
# more would only make a wrong endpoint slow to report.
UNREACHABLE_ATTEMPTS = 2
# An attempt needs at least this long before its deadline to be worth sending.
MIN_ATTEMPT_SECONDS = 0.01
JSON_CONTENT_TYPE = "application/json;charset=UTF-8"
USER_AGENT = "pulumi-modelarts/0.1"

_T = TypeVar("_T")
_S = TypeVar("_S", bound="Transport")

_CLOSED_STREAM = httpx.ByteStream(b"")


def _json_content(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


class Transport:
    """Calls under ``{endpoint}/v2/{project_id}``: each signed by ``auth``, sent, retried, and its answer read
    or mapped to its typed error. ``api.ModelArtsAPI`` holds one and builds the operations on it. Use as a
    context manager, or call ``close()``.

    ``sleep``, ``clock`` (monotonic seconds) and ``rng`` (0..1) are injectable so tests run without waiting.
    ``secrets`` are the strings scrubbed from every error message (the credentials behind ``auth``), with
    whatever ``hide`` adds; ``renewed_secrets``, asked at each scrub, those that change while the transport
    works (temporary keys renewed, the tokens that got them). ``ca_cert_file``: a PEM file of authorities
    trusted besides the system's (a private CA). ``base_delay``, ``max_delay`` (seconds, also attributes
    read at each retry): the pause before a retry, doubling from base_delay up to max_delay, jittered, never
    shorter than the service's Retry-After; a base_delay of 0 retries without pausing (tests).
    ``transport``: httpx's own (a mock in tests), in place of the network.
    """

    def __init__(
        self,
        *,
        endpoint: str,
        project_id: str,
        auth: httpx.Auth,
        timeout: float = 30.0,
        max_attempts: int = 5,
        max_retry_seconds: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        log: Callable[[str], None] | None = None,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        secrets: Iterable[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: Callable[[], float] = random.random,
        renewed_secrets: Callable[[], Iterable[str]] = tuple,
        ca_cert_file: str | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.endpoint = normalize_endpoint(endpoint)
        problem = project_id_problem(project_id)
        if problem is not None:
            raise ValueError(f"project_id is not usable: {problem}")
        self.project_id = project_id
        project_segment = path_segment(project_id, "project_id")
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.max_retry_seconds = max_retry_seconds
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._log = log
        self._sleep = sleep
        self._clock = clock
        self._rng = rng
        self._deadline: float | None = None  # on clock: set by ``within``
        self._secrets = tuple(s for s in secrets if isinstance(s, str) and s)
        self.auth = auth  # the signer (account.keys.RenewingAuth when keys renew)
        self._renewed_secrets = renewed_secrets
        self._http = httpx.Client(
            base_url=self.endpoint,
            auth=auth,
            timeout=httpx.Timeout(timeout),
            transport=transport,
            verify=ssl_context_for(self.endpoint, ca_cert_file) if transport is None else True,
            follow_redirects=False,  # a redirect must never carry a signed request elsewhere
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        )
        self._url_prefix = f"{str(self._http.base_url).rstrip('/')}/v2/{project_segment}"
        self._gate = gate_for(self.endpoint, project_id, clock, sleep)

    def __reduce__(self) -> Any:
        name = type(self).__name__
        raise TypeError(f"{name} holds credentials and a connection pool and must not be pickled")

    def __repr__(self) -> str:
        return f"Transport(endpoint={self.endpoint!r}, project_id={self.project_id!r})"

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def say(self, message: str) -> None:
        """A progress line (the retries, a lost create looked for), to the log the client was given."""
        if self._log is not None:
            self._log(message)

    def hide(self, values: Iterable[str]) -> None:
        """Scrub these values too from now on: a job's secret inputs, which the service may echo back."""
        added = [v for v in values if isinstance(v, str) and v and v not in self._secrets]
        self._secrets = (*self._secrets, *added)

    @contextlib.contextmanager
    def within(self, seconds: float | None) -> Iterator[None]:
        """Every call made in the block ends within seconds from now (None: no bound beyond the retry budget):
        its attempts' timeouts, its retries and the account's pauses. A call that cannot be sent in time is
        refused unsent (``ThrottledError`` while the account is paused). A block inside another keeps the
        sooner end."""
        before = self._deadline
        if seconds is not None:
            end = self._clock() + max(0.0, seconds)
            self._deadline = end if before is None else min(before, end)
        try:
            yield
        finally:
            self._deadline = before

    def scrub(self, text: str) -> str:
        """text with every credential of this client, and every value it was told to hide, replaced by "***"
        (for text the client did not build)."""
        return redact(redact(text, self._secrets), tuple(self._renewed_secrets()))

    # ---------------------------------------------------------------- calls

    def request(
        self,
        method: str,
        path: str,
        body: Any,
        *,
        operation: str,
        body_required: bool = True,
        attempts: int | None = None,
    ) -> Answer:
        """The answer to method path (under the project) with body as JSON, retried as the module says; at
        most attempts attempts (never more than max_attempts)."""
        content = None if body is None else _json_content(body)

        def attempt() -> Answer:
            try:
                return self._once(method, path, content, operation=operation, body_required=body_required)
            except AuthenticationError as exc:
                if not self._fresh_keys(exc):
                    raise
            self.say(f"{operation}: the temporary keys had expired; sending again with fresh ones")
            return self._once(method, path, content, operation=operation, body_required=body_required)

        return self._call(attempt, operation=operation, attempts=attempts)

    def request_or_find(
        self, method: str, path: str, body: Any, *, operation: str, find: Callable[[], _T | None]
    ) -> Answer | _T:
        """request() for a call that must not be applied twice (a create): after an ambiguous failure, find()
        looks for what the call made before it is sent again, and once more when no attempt is left; what it
        finds is returned instead of an answer."""
        content = _json_content(body)
        attempts = 0
        lost = False  # the last attempt may have been applied without saying so

        def attempt() -> Answer | _T:
            nonlocal attempts, lost
            attempts += 1
            look, lost = lost, False
            if look:
                found = find()
                if found is not None:
                    return found
            try:
                return self._once(method, path, content, operation=operation, body_required=True)
            except Exception as exc:
                lost = may_have_been_applied(exc)
                if not (isinstance(exc, AuthenticationError) and self._fresh_keys(exc)):
                    raise
                lost = True  # fresh keys: sent again only after find() looked, as after an ambiguous failure
                raise KeysRenewed(exc) from None

        try:
            return self._call(attempt, operation=operation)
        except Exception:
            if not lost:
                raise
            # Out of attempts: one last look, after the pause another attempt would have waited.
            self.say(f"{operation}: checking whether the job was created before giving up")
            self._sleep(max(0.0, min(self._retry_delay(attempts), self._deadline_left())))
            found = find()
            if found is None:
                raise
            return found

    # ---------------------------------------------------------------- the retry loop and its decisions

    @property
    def throttle_gate(self) -> ThrottleGate:
        return self._gate

    def _call(self, attempt: Callable[[], _T], *, operation: str, attempts: int | None = None) -> _T:
        """attempt() until it answers, retrying what ``_should_retry`` allows after ``_retry_delay``; every
        attempt first waits out the account's pause and its turn at its pace (``throttling``), within the
        retry budget."""
        started = self._clock()
        count = 0
        served: float | None = None  # the back-off this call's own throttled answer set, slept out below
        failure: AttemptFailure | None = None
        while True:
            count += 1
            if self._gate.wait(self._time_left(started), served) is None:
                raise not_sent(operation, self._gate.paused_for(), max(0.0, self._time_left(started)))
            if self._deadline_left() < MIN_ATTEMPT_SECONDS:
                raise self._out_of_time(operation, failure)
            try:
                return self._gate.answering(attempt)
            except (NoAnswer, ThrottledError, ServerError, KeysRenewed) as exc:
                failure = failure_of(exc, operation, count, self.endpoint)
            delay = self._retry_delay(count, failure.retry_after)
            allowed = self._attempts_allowed(failure, attempts)
            served = self._gate.refused(failure.error, delay)  # told even when this call gives up
            if served is not None:
                # The account's pause is this call's back-off too: after it, the pace spreads the retries.
                delay = max(0.0, served - self._clock())
            if not self._should_retry(count, allowed, started, delay):
                raise failure.error
            self.say(
                f"{operation}: {failure.reason}; retrying in {delay:.1f}s (attempt {count + 1} of {allowed})"
            )
            self._sleep(delay)

    def _attempts_allowed(self, failure: AttemptFailure, attempts: int | None) -> int:
        allowed = max(1, min(self.max_attempts, attempts or self.max_attempts))
        return min(allowed, UNREACHABLE_ATTEMPTS) if failure.unreachable else allowed

    def _should_retry(self, attempt: int, allowed: int, started: float, delay: float) -> bool:
        """Another attempt is allowed, and waiting for it stays within the time the call has left."""
        return attempt < allowed and delay <= self._time_left(started)

    def _time_left(self, started: float) -> float:
        """What the call begun at started may still spend: its retry budget, or its deadline when sooner."""
        return min(self.max_retry_seconds - (self._clock() - started), self._deadline_left())

    def _deadline_left(self) -> float:
        return float("inf") if self._deadline is None else self._deadline - self._clock()

    def _out_of_time(self, operation: str, failure: AttemptFailure | None) -> Exception:
        """The error of a call whose deadline (``within``) passed before another attempt: its last failure's,
        else one saying it was not sent."""
        if failure is not None:
            return failure.error
        return TransportError(operation, OUT_OF_TIME, endpoint=self.endpoint)

    def _retry_delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential backoff with full jitter after the given attempt, never shorter than Retry-After."""
        cap = min(self.max_delay, self.base_delay * (2.0 ** (attempt - 1)))
        jittered = self._rng() * cap
        return max(jittered, retry_after) if retry_after is not None else jittered

    # ---------------------------------------------------------------- one attempt

    def _once(
        self, method: str, path: str, content: bytes | None, *, operation: str, body_required: bool
    ) -> Answer:
        headers = {"Content-Type": JSON_CONTENT_TYPE} if content is not None else None
        timeout = min(self.timeout, self._deadline_left())
        deadline = self._clock() + timeout
        # An absolute URL parses once; a relative one is parsed and then re-parsed onto base_url by httpx.
        request = self._http.build_request(
            method,
            httpx.URL(self._url_prefix + path),
            content=content,
            headers=headers,
            timeout=httpx.Timeout(timeout) if timeout < self.timeout else httpx.USE_CLIENT_DEFAULT,
        )
        try:
            response = self._http.send(request, stream=True)
            try:
                raw = self._read_capped(response, deadline, operation)
            except httpx.DecodingError:
                # Not a transport failure (httpx.DecodingError is no TransportError): the answer arrived but
                # its body does not match its Content-Encoding. Without this it escaped as a raw httpx error.
                raise InvalidResponseError(
                    operation,
                    "the answer's body could not be decoded (it does not match its Content-Encoding "
                    f"{response.headers.get('Content-Encoding', '')!r})",
                    status_code=response.status_code,
                    request_id=response.headers.get("X-Request-Id") or None,
                ) from None
            finally:
                response.close()
                # httpx links a streamed response and its stream both ways; unlinking them lets reference
                # counting free each call's request and response at once instead of leaving about 40 objects
                # per call for the cyclic garbage collector.
                response.stream = _CLOSED_STREAM
        except (httpx.LocalProtocolError, UnicodeEncodeError):
            # The request could not be built (h11 refuses a header with a line break, httpx one that is not
            # ASCII): nothing was sent, and no retry would send it.
            raise UnusableValueError(
                f"{operation} failed before anything was sent: the project id, an access key or a token "
                "holds characters a request header cannot carry (only visible ASCII, no spaces)"
            ) from None
        except httpx.ConnectError as exc:
            raise connect_failure(exc, operation, self.endpoint) from None
        except (httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise NoAnswer(f"could not connect ({type(exc).__name__})", ambiguous=False) from None
        except httpx.TimeoutException as exc:
            raise NoAnswer(
                f"timed out waiting for the answer ({type(exc).__name__})", ambiguous=True
            ) from None
        except httpx.TransportError as exc:
            raise NoAnswer(f"the connection failed ({type(exc).__name__})", ambiguous=True) from None
        return interpret(response, raw, operation=operation, body_required=body_required, scrub=self.scrub)

    def _fresh_keys(self, exc: Exception) -> bool:
        """Whether exc refused expired keys (APIG.0307) that the signer has now renewed."""
        expired = isinstance(exc, AuthenticationError) and exc.error_code == KEY_EXPIRED_CODE
        return expired and isinstance(self.auth, RenewableAuth) and self.auth.renew()

    def _read_capped(self, response: httpx.Response, deadline: float, operation: str) -> bytes:
        try:
            return read_body(response.iter_bytes(), past_deadline=lambda: self._clock() > deadline)
        except TooLarge as exc:
            raise InvalidResponseError(
                operation, f"the answer is {exc.problem}", status_code=response.status_code
            ) from None
        except TimeoutError as exc:
            raise httpx.ReadTimeout(str(exc)) from None

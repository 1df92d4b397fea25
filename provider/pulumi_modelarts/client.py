"""A small, careful HTTP client for the ModelArts training-job API.

One `httpx.Client` (one connection pool) per `ModelArtsClient`; every call has a timeout and a bounded
retry budget. What is retried: throttling (HTTP 429 / APIG.0308), server errors (5xx), connection failures
and timeouts, with exponential backoff and full jitter, honouring ``Retry-After``. Authentication failures
are never retried: five in a row lock the access key.

Creating a job is the one call that is not safe to repeat blindly. After an *ambiguous* failure - the request
may have reached the service but no answer came back (connection dropped or read timeout after sending) or a
5xx came back (a gateway can time out after the backend committed) - the client first searches for a job with
exactly that name created since the call began, and returns it if found; only otherwise does it post again.
Failures that happen before the request leaves (connection refused, connect timeout) and throttling are not
ambiguous and are simply retried. A refused connection or a host name that does not resolve is retried only
once, after a short pause: it means nothing listens at the endpoint (a wrong port or host, a stopped
emulator), which ten attempts with growing pauses would not change. Every transport error names the endpoint.
"""

from __future__ import annotations

import json
import os
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import httpx
import pydantic

from .errors import (
    MODELARTS_THROTTLED_CODE,
    MODELARTS_THROTTLED_MIN_PAUSE,
    APIError,
    InvalidResponseError,
    SearchRejectedError,
    ServerError,
    StatusChangedError,
    ThrottledError,
    TransportError,
    api_error_class,
    redact,
    shorten,
)
from .models import (
    CreateTrainingJobRequest,
    JobEvents,
    LogPreview,
    SearchFilter,
    SearchRequest,
    SearchResponse,
    TrainingJob,
    to_wire,
)
from .phases import is_stopped
from .settings import Settings, normalize_endpoint

__all__ = ["MAX_PAGE_SIZE", "ModelArtsClient"]

MAX_PAGE_SIZE = 50
# Hard cap on pages in one listing, whatever the service claims: a broken server cannot loop us forever.
MAX_PAGES = 2000
# Largest answer body read; a training job is a few kB and a page of 50 is well under a megabyte.
MAX_BODY_BYTES = 16 * 1024 * 1024
EXCERPT_CHARS = 200
# Attempts for a refused connection or an unresolvable host name: one quick retry covers a gateway restarting,
# more would only make a wrong endpoint slow to report.
UNREACHABLE_ATTEMPTS = 2
JSON_CONTENT_TYPE = "application/json;charset=UTF-8"
USER_AGENT = "pulumi-modelarts/0.1"

_M = TypeVar("_M", bound=pydantic.BaseModel)

_CLOSED_STREAM = httpx.ByteStream(b"")

_SSL_LOCK = threading.Lock()
_SSL_CONTEXTS: dict[tuple[str, str], ssl.SSLContext] = {}


def _verifying_ssl_context() -> ssl.SSLContext:
    """httpx's default verifying context, built once per process (per SSL_CERT_FILE/SSL_CERT_DIR).

    Building one loads the whole CA bundle (about 20 ms of CPU); the provider opens a client per
    resource call, so a shared context keeps that cost off every create, read and delete.
    """
    key = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
    with _SSL_LOCK:
        context = _SSL_CONTEXTS.get(key)
        if context is None:
            context = _SSL_CONTEXTS[key] = httpx.create_ssl_context()
        return context


@dataclass(frozen=True)
class _Answer:
    status_code: int
    payload: Any
    request_id: str | None


class _NoAnswer(Exception):
    """One attempt got no HTTP answer. `ambiguous`: the request may have reached the service.

    `unreachable`: nothing answered at the endpoint at all (connection refused, host name not found).
    """

    def __init__(self, reason: str, *, ambiguous: bool, unreachable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ambiguous = ambiguous
        self.unreachable = unreachable


def _connect_failure(exc: BaseException) -> _NoAnswer:
    """What a failed connect means, from the OS error httpx wraps (refused and DNS failures end retries)."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, socket.gaierror):
        reason = "could not connect: the host name could not be resolved"
        return _NoAnswer(reason, ambiguous=False, unreachable=True)
    if isinstance(cause, ConnectionRefusedError):
        return _NoAnswer("could not connect: connection refused", ambiguous=False, unreachable=True)
    return _NoAnswer(f"could not connect ({type(exc).__name__})", ambiguous=False)


def _job_path_segment(value: str, what: str) -> str:
    if not value or not value.strip():
        raise ValueError(f"{what} must not be empty")
    if value in (".", ".."):
        # URL libraries collapse dot-segments, which would silently change the path.
        raise ValueError(f"{what} {value!r} is not a valid id")
    # Nothing in an id is allowed to change the path ("/", "..", "?" are all encoded).
    return quote(value, safe="")


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None  # HTTP-date form: not used by this API; fall back to our own backoff.
    return seconds if seconds >= 0 else None


class ModelArtsClient:
    """ModelArts training-job API client. Use as a context manager, or call `close()`.

    `sleep`, `clock` (monotonic seconds), `wall_clock` (epoch seconds) and `rng` (0..1) are injectable so
    tests run without waiting. `secrets` are the strings scrubbed from every error message: the credentials
    behind `auth` (`from_settings` passes them).
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
        create_skew_seconds: float = 300.0,
        secrets: Iterable[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        rng: Callable[[], float] = random.random,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.endpoint = normalize_endpoint(endpoint)
        self.project_id = project_id
        self._project_segment = _job_path_segment(project_id, "project_id")
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.max_retry_seconds = max_retry_seconds
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.create_skew_seconds = create_skew_seconds
        self._log = log
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._rng = rng
        self._secrets = tuple(s for s in secrets if isinstance(s, str) and s)
        self._http = httpx.Client(
            base_url=self.endpoint,
            auth=auth,
            timeout=httpx.Timeout(timeout),
            transport=transport,
            verify=_verifying_ssl_context() if transport is None else True,
            follow_redirects=False,  # a redirect must never carry a signed request elsewhere
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        )
        self._url_prefix = str(self._http.base_url).rstrip("/")

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> ModelArtsClient:
        """A client for resolved settings; keyword arguments go to the constructor (timeout, log, ...)."""
        return cls(
            endpoint=settings.endpoint,
            project_id=settings.project_id,
            auth=settings.auth(),
            secrets=settings.secrets(),
            **kwargs,
        )

    def __repr__(self) -> str:
        return f"ModelArtsClient(endpoint={self.endpoint!r}, project_id={self.project_id!r})"

    def __reduce__(self) -> Any:
        raise TypeError("ModelArtsClient holds credentials and a connection pool and must not be pickled")

    def __enter__(self) -> ModelArtsClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ---------------------------------------------------------------- operations

    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob:
        """Create a training job; after an ambiguous failure, find a job this call already created first."""
        name = request.metadata.name
        if not name:
            raise ValueError("a training job needs metadata.name before it can be created")
        operation = f"create training job {name!r}"
        since = self._wall_clock() - self.create_skew_seconds
        body = to_wire(request)
        path = f"/v2/{self._project_segment}/training-jobs"

        def recover() -> TrainingJob | None:
            return self._find_created_job(name, since, operation)

        answer = self._call("POST", path, body, operation=operation, recover=recover)
        if isinstance(answer, TrainingJob):
            return answer
        job = self._parse(TrainingJob, answer, operation)
        if not job.metadata.id:
            raise InvalidResponseError(
                operation,
                "the answer has no metadata.id for the new job",
                status_code=answer.status_code,
                excerpt=self._excerpt(json.dumps(answer.payload, ensure_ascii=False)),
                request_id=answer.request_id,
            )
        return job

    def get_job(self, job_id: str) -> TrainingJob:
        operation = f"get training job {job_id!r}"
        path = f"/v2/{self._project_segment}/training-jobs/{_job_path_segment(job_id, 'job id')}"
        answer = self._answer("GET", path, None, operation=operation)
        job = self._parse(TrainingJob, answer, operation)
        # Another job's details must never pass for this one: a refresh would move the state to that id.
        if job.metadata.id and job.metadata.id != job_id:
            raise InvalidResponseError(
                operation,
                f"the answer describes a different job ({job.metadata.id!r})",
                status_code=answer.status_code,
                request_id=answer.request_id,
            )
        return job

    def terminate_job(self, job_id: str) -> TrainingJob:
        operation = f"terminate training job {job_id!r}"
        path = f"/v2/{self._project_segment}/training-jobs/{_job_path_segment(job_id, 'job id')}/actions"
        answer = self._answer("POST", path, {"action_type": "terminate"}, operation=operation)
        return self._parse(TrainingJob, answer, operation)

    def update_description(self, job_id: str, description: str) -> None:
        operation = f"update the description of training job {job_id!r}"
        path = f"/v2/{self._project_segment}/training-jobs/{_job_path_segment(job_id, 'job id')}"
        self._answer("PUT", path, {"description": description}, operation=operation, body_required=False)

    def delete_job(self, job_id: str) -> None:
        operation = f"delete training job {job_id!r}"
        path = f"/v2/{self._project_segment}/training-jobs/{_job_path_segment(job_id, 'job id')}"
        self._answer("DELETE", path, None, operation=operation, body_required=False)

    def get_log_preview(self, job_id: str, task: str, *, attempts: int | None = None) -> LogPreview | None:
        """The latest part of a task's log; None when the service has none yet (HTTP 204).

        attempts: fewer attempts than the client's own, for a caller that only wants it if it comes quickly.
        """
        operation = f"read the log of task {task!r} of training job {job_id!r}"
        path = (
            f"/v2/{self._project_segment}/training-jobs/{_job_path_segment(job_id, 'job id')}"
            f"/tasks/{_job_path_segment(task, 'task')}/logs/preview"
        )
        answer = self._answer("GET", path, None, operation=operation, body_required=False, attempts=attempts)
        if answer.payload is None:
            return None
        return self._parse(LogPreview, answer, operation)

    def list_events(
        self, job_id: str, *, level: str | None = None, limit: int = 50, attempts: int | None = None
    ) -> JobEvents:
        """The newest events of a job (one page of at most `limit`, 1..100), optionally of one level only."""
        operation = f"list the events of training job {job_id!r}"
        query = {"limit": str(limit), **({"level": level} if level else {})}
        path = (
            f"/v2/{self._project_segment}/training-jobs/{_job_path_segment(job_id, 'job id')}/events"
            f"?{urlencode(query)}"
        )
        answer = self._answer("GET", path, None, operation=operation, attempts=attempts)
        return self._parse(JobEvents, answer, operation)

    def search_jobs(self, request: SearchRequest) -> SearchResponse:
        operation = "search training jobs"
        path = f"/v2/{self._project_segment}/training-job-searches"
        try:
            answer = self._answer("POST", path, to_wire(request), operation=operation)
        except SearchRejectedError as exc:
            # The service's text may not say which condition it refused: name what was sent.
            sent = "; ".join(f"{f.key} {f.operator} {f.value}" for f in request.filters or []) or "none"
            order = f"sort_by {request.sort_by} {request.order or ''}".strip() if request.sort_by else ""
            detail = f"filters sent: {sent}" + (f"; {order}" if order else "")
            message = f"{exc.error_msg} ({detail})" if exc.error_msg else detail
            raise SearchRejectedError(
                exc.status_code,
                exc.error_code,
                message,
                exc.error_solution,
                exc.request_id,
                operation=operation,
            ) from None
        return self._parse(SearchResponse, answer, operation)

    def iter_jobs(
        self,
        filters: Sequence[SearchFilter] | None = None,
        *,
        sort_by: str = "create_time",
        order: str = "desc",
        page_size: int = MAX_PAGE_SIZE,
    ) -> Iterator[TrainingJob]:
        """Every job matching the filters, page by page (offset is a page index; limit at most 50).

        Stops after a short or empty page or once `total` jobs were seen; a page that only repeats jobs
        already seen, or more pages than the total allows, is an InvalidResponseError, not an endless loop.
        """
        limit = max(1, min(page_size, MAX_PAGE_SIZE))
        seen: set[str] = set()
        count = 0
        page = 0
        page_cap = MAX_PAGES
        while True:
            request = SearchRequest(
                offset=page, limit=limit, sort_by=sort_by, order=order, filters=list(filters or [])
            )
            answer = self.search_jobs(request)
            items = list(answer.items or [])
            new = 0
            for job in items:
                key = job.metadata.id or None
                if key is not None:
                    if key in seen:
                        continue
                    seen.add(key)
                new += 1
                count += 1
                yield job
            total = answer.total
            if len(items) < limit or (total is not None and count >= total):
                return
            if new == 0:
                raise InvalidResponseError(
                    "list training jobs", f"page {page} only repeated jobs already listed"
                )
            if page == 0 and total is not None:
                # Fixed by the first answer (plus slack for jobs created meanwhile): a server whose total
                # keeps growing cannot keep us paging.
                page_cap = min(MAX_PAGES, total // limit + 3)
            page += 1
            if page >= page_cap:
                raise InvalidResponseError(
                    "list training jobs", f"the service kept returning full pages beyond page {page - 1}"
                )

    # ---------------------------------------------------------------- lost-create recovery

    def _find_created_job(self, name: str, since: float, operation: str) -> TrainingJob | None:
        since_ms = since * 1000.0
        try:
            for job in self.iter_jobs([SearchFilter(key="name", operator="like", value=[name])]):
                meta = job.metadata
                if meta.name != name or not meta.id:
                    continue
                if is_stopped(job.phase):
                    # Stopped: an earlier job of this name (replacing a job terminates it first), not the one
                    # this call created moments ago. A finished job can be ours (a short job may complete
                    # while the create is retried), so Completed and Failed stay candidates.
                    continue
                created = meta.create_time
                if created is not None and created >= since_ms:
                    return job
        except (APIError, TransportError, InvalidResponseError) as exc:
            raise TransportError(
                operation,
                "the create request may or may not have been applied, and looking for the job by name failed "
                f"too ({exc}); check the ModelArts console before retrying",
            ) from exc
        return None

    # ---------------------------------------------------------------- transport, retries, parsing

    def _answer(
        self,
        method: str,
        path: str,
        body: Any,
        *,
        operation: str,
        body_required: bool = True,
        attempts: int | None = None,
    ) -> _Answer:
        answer = self._call(
            method, path, body, operation=operation, body_required=body_required, attempts=attempts
        )
        assert isinstance(answer, _Answer)
        return answer

    def _call(
        self,
        method: str,
        path: str,
        body: Any,
        *,
        operation: str,
        body_required: bool = True,
        recover: Callable[[], TrainingJob | None] | None = None,
        attempts: int | None = None,
    ) -> _Answer | TrainingJob:
        started = self._clock()
        content = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            attempt += 1
            needs_recovery = False
            retry_after: float | None = None
            attempts_left = max(1, min(self.max_attempts, attempts or self.max_attempts))
            try:
                return self._once(method, path, content, operation=operation, body_required=body_required)
            except _NoAnswer as exc:
                failure: Exception = TransportError(
                    operation, exc.reason, attempts=attempt, endpoint=self.endpoint
                )
                needs_recovery = exc.ambiguous
                reason = exc.reason
                if exc.unreachable:
                    attempts_left = min(attempts_left, UNREACHABLE_ATTEMPTS)
            except ThrottledError as exc:  # also StatusChangedError (409 ModelArts.2878, "try again later")
                changing = isinstance(exc, StatusChangedError)
                reason = "the job's status was changing" if changing else "throttled"
                failure, retry_after = exc, exc.retry_after
            except ServerError as exc:
                failure, reason = exc, f"HTTP {exc.status_code}"
                needs_recovery = True
            recovering = needs_recovery and recover is not None
            delay = self._backoff(attempt, retry_after)
            exhausted = attempt >= attempts_left or self._clock() - started + delay > self.max_retry_seconds
            if exhausted and not recovering:
                raise failure
            if exhausted:
                self._say(f"{operation}: {reason}; checking whether the job was created before giving up")
            elif recovering:
                self._say(
                    f"{operation}: {reason}; the request may have been applied, so looking for the job "
                    f"in {delay:.1f}s before retrying (attempt {attempt + 1} of {attempts_left})"
                )
            else:
                self._say(
                    f"{operation}: {reason}; retrying in {delay:.1f}s "
                    f"(attempt {attempt + 1} of {attempts_left})"
                )
            self._sleep(delay)
            if recovering and recover is not None:
                found = recover()
                if found is not None:
                    self._say(
                        f"{operation}: found the job the earlier attempt created; not creating it again"
                    )
                    return found
            if exhausted:
                raise failure

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        cap = min(self.max_delay, self.base_delay * (2.0 ** (attempt - 1)))
        jittered = self._rng() * cap
        return max(jittered, retry_after) if retry_after is not None else jittered

    def _say(self, message: str) -> None:
        if self._log is not None:
            self._log(message)

    def _once(
        self, method: str, path: str, content: bytes | None, *, operation: str, body_required: bool
    ) -> _Answer:
        headers = {"Content-Type": JSON_CONTENT_TYPE} if content is not None else None
        deadline = self._clock() + self.timeout
        # An absolute URL parses once; a relative one is parsed and then re-parsed onto base_url by httpx.
        request = self._http.build_request(
            method, httpx.URL(self._url_prefix + path), content=content, headers=headers
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
        except httpx.ConnectError as exc:
            raise _connect_failure(exc) from None
        except (httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise _NoAnswer(f"could not connect ({type(exc).__name__})", ambiguous=False) from None
        except httpx.TimeoutException as exc:
            raise _NoAnswer(
                f"timed out waiting for the answer ({type(exc).__name__})", ambiguous=True
            ) from None
        except httpx.TransportError as exc:
            raise _NoAnswer(f"the connection failed ({type(exc).__name__})", ambiguous=True) from None
        return self._interpret(response, raw, operation=operation, body_required=body_required)

    def _read_capped(self, response: httpx.Response, deadline: float, operation: str) -> bytes:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise InvalidResponseError(
                    operation,
                    f"the answer is larger than {MAX_BODY_BYTES} bytes",
                    status_code=response.status_code,
                )
            chunks.append(chunk)
            if self._clock() > deadline:
                # Each read has its own timeout; this bounds a server that trickles bytes forever.
                raise httpx.ReadTimeout("the answer took longer than the timeout to arrive")
        return b"".join(chunks)

    def _interpret(
        self, response: httpx.Response, raw: bytes, *, operation: str, body_required: bool
    ) -> _Answer:
        status = response.status_code
        request_id = response.headers.get("X-Request-Id") or None
        text = raw.decode("utf-8", errors="replace")
        payload: Any = None
        parsed = False
        if text.strip():
            try:
                payload = json.loads(text)
                parsed = True
            except ValueError:
                parsed = False
        if parsed and isinstance(payload, dict) and request_id is None:
            body_id = payload.get("request_id")
            request_id = body_id if isinstance(body_id, str) and body_id else None

        if 200 <= status < 300:
            if not text.strip():
                if body_required:
                    raise InvalidResponseError(operation, "the answer is empty", status_code=status)
                return _Answer(status, None, request_id)
            if not parsed:
                raise InvalidResponseError(
                    operation, "the answer is not JSON", status_code=status,
                    excerpt=self._excerpt(text), request_id=request_id,
                )  # fmt: skip
            if isinstance(payload, dict) and payload.get("error_code"):
                raise InvalidResponseError(
                    operation,
                    "a success status came with an error body",
                    status_code=status,
                    excerpt=self._excerpt(text),
                    request_id=request_id,
                )
            if body_required and not isinstance(payload, dict):
                raise InvalidResponseError(
                    operation, "the answer is not a JSON object", status_code=status,
                    excerpt=self._excerpt(text), request_id=request_id,
                )  # fmt: skip
            return _Answer(status, payload, request_id)

        if 300 <= status < 400:
            raise InvalidResponseError(
                operation,
                "the service answered with a redirect, which this client does not follow; check the endpoint",
                status_code=status,
                request_id=request_id,
            )

        fields = payload if parsed and isinstance(payload, dict) else {}
        error_code = _text_field(fields, "error_code")
        error_msg = _text_field(fields, "error_msg")
        error_solution = _text_field(fields, "error_solution")
        cls = api_error_class(status, error_code)
        if not error_code and not error_msg:
            # Not a ModelArts error body (an HTML gateway page, say). The status alone is trustworthy for
            # authentication, throttling and server failures; for other 4xx it could be anything (a wrong
            # endpoint answering 404 must not look like "the job is gone").
            if not (status in (401, 403, 429) or status >= 500):
                raise InvalidResponseError(
                    operation,
                    "the answer is not a ModelArts error body; check the endpoint",
                    status_code=status,
                    excerpt=self._excerpt(text) if text.strip() else None,
                    request_id=request_id,
                )
            error_msg = f"non-JSON answer: {self._excerpt(text)}" if text.strip() else None
        args = (
            status,
            error_code,
            self.scrub(error_msg) if error_msg else None,
            self.scrub(error_solution) if error_solution else None,
            request_id,
        )
        if issubclass(cls, ThrottledError):
            retry_after = _retry_after_seconds(response.headers.get("Retry-After"))
            if error_code == MODELARTS_THROTTLED_CODE:
                # ModelArts' own throttling: Huawei advises waiting 2-5 s, whatever the backoff would say.
                retry_after = max(retry_after or 0.0, MODELARTS_THROTTLED_MIN_PAUSE)
            raise cls(*args, operation=operation, retry_after=retry_after)
        raise cls(*args, operation=operation)

    def _parse(self, model: type[_M], answer: _Answer, operation: str) -> _M:
        try:
            return model.model_validate(answer.payload)
        except pydantic.ValidationError as exc:
            where = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in exc.errors()[:3]
            )
            raise InvalidResponseError(
                operation,
                f"the answer does not have the expected shape ({where})",
                status_code=answer.status_code,
                excerpt=self._excerpt(json.dumps(answer.payload, ensure_ascii=False)),
                request_id=answer.request_id,
            ) from None

    def scrub(self, text: str) -> str:
        """text with every credential of this client replaced by "***" (for text the client did not build)."""
        return redact(text, self._secrets)

    def _excerpt(self, text: str) -> str:
        return shorten(self.scrub(text), EXCERPT_CHARS)


def _text_field(fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    return value if isinstance(value, str) and value else None

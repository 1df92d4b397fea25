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
emulator), which ten attempts with growing pauses would not change. A certificate that fails verification is
not retried at all (CertificateError says why and what to do). Every transport error names the endpoint.

An answer the client cannot use (not UTF-8, not JSON, nested too deeply, the wrong shape) is an
InvalidResponseError naming the operation and the HTTP status, whatever the status. A create answered with a
success status but such a body did make the job: it is looked up by name, as after a lost answer, and never
posted again.
"""

from __future__ import annotations

import json
import os
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import httpx
import pydantic

from . import ownership
from .errors import (
    MODELARTS_THROTTLED_CODE,
    MODELARTS_THROTTLED_MIN_PAUSE,
    APIError,
    CertificateError,
    InvalidResponseError,
    SearchRejectedError,
    ServerError,
    StatusChangedError,
    ThrottledError,
    TransportError,
    api_error_class,
    certificate_problem,
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
    SearchTag,
    TagsAnswer,
    TrainingJob,
    tags_body,
    to_wire,
)
from .settings import Settings, normalize_endpoint

__all__ = ["MAX_PAGE_SIZE", "ModelArtsClient"]

MAX_PAGE_SIZE = 50
# Hard cap on pages in one listing, whatever the service claims: a broken server cannot loop us forever.
MAX_PAGES = 2000
# Largest answer body read; a training job is a few kB and a page of 50 is well under a megabyte.
MAX_BODY_BYTES = 16 * 1024 * 1024
EXCERPT_CHARS = 200
# Deepest nesting of arrays and objects accepted in an answer: a job is under 10 levels deep. Deeper values
# would break later, outside this client (recursive validation and serialisation, the engine's protobuf
# messages), where the failure could name neither the call nor the job.
MAX_JSON_DEPTH = 32
# Attempts for a refused connection or an unresolvable host name: one quick retry covers a gateway restarting,
# more would only make a wrong endpoint slow to report.
UNREACHABLE_ATTEMPTS = 2
JSON_CONTENT_TYPE = "application/json;charset=UTF-8"
USER_AGENT = "pulumi-modelarts/0.1"

_M = TypeVar("_M", bound=pydantic.BaseModel)
_T = TypeVar("_T")

_CLOSED_STREAM = httpx.ByteStream(b"")

_SSL_LOCK = threading.Lock()
_SSL_CONTEXTS: dict[tuple[str, str], ssl.SSLContext] = {}


def verifying_ssl_context() -> ssl.SSLContext:
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


@dataclass(frozen=True)
class _Received:
    """An answer as read: status, text, the JSON value (parsed: whether the text is usable JSON; if not,
    unreadable says why) and request id."""

    status: int
    text: str
    payload: Any
    parsed: bool
    request_id: str | None
    unreadable: str = ""

    @classmethod
    def of(cls, response: httpx.Response, raw: bytes) -> _Received:
        text, payload, unreadable = _read_json(raw)
        parsed = unreadable is None
        request_id = response.headers.get("X-Request-Id") or None
        if request_id is None and parsed and isinstance(payload, dict):
            body_id = payload.get("request_id")
            request_id = body_id if isinstance(body_id, str) and body_id else None
        return cls(response.status_code, text, payload, parsed, request_id, unreadable or "")


def _read_json(raw: bytes) -> tuple[str, Any, str | None]:
    """The body as text, its JSON value, and why it is unusable (None: it is usable, or empty)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        # JSON is UTF-8 (RFC 8259): a replacement character would pass for the service's text.
        return raw.decode("utf-8", errors="replace"), None, "not valid UTF-8"
    if not text.strip():
        return text, None, None
    try:
        payload = json.loads(text)
    except ValueError:
        return text, None, "not JSON"
    except RecursionError:
        # The parser recurses once per level: a hostile "[[[[…" must not escape as a crash.
        return text, None, f"nested too deeply to read (more than {MAX_JSON_DEPTH} levels)"
    if _deeper_than(payload, MAX_JSON_DEPTH):
        return text, None, f"nested too deeply to read (more than {MAX_JSON_DEPTH} levels)"
    return text, payload, None


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether a JSON value nests more than limit arrays and objects, level by level (no recursion)."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below.extend(c for c in children if type(c) is dict or type(c) is list)
        level = below
    return False


class _NoAnswer(Exception):
    """One attempt got no HTTP answer. `ambiguous`: the request may have reached the service.

    `unreachable`: nothing answered at the endpoint at all (connection refused, host name not found).
    """

    def __init__(self, reason: str, *, ambiguous: bool, unreachable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ambiguous = ambiguous
        self.unreachable = unreachable


@dataclass(frozen=True)
class _Failure:
    """A retryable failure of one attempt: what is raised once no retry is left, and why it is retried."""

    error: Exception
    reason: str
    retry_after: float | None = None
    unreachable: bool = False


def _ambiguous(exc: BaseException) -> bool:
    """Whether a failed attempt may have been applied: no answer after sending, or a 5xx (a gateway can time
    out after the backend committed)."""
    return (isinstance(exc, _NoAnswer) and exc.ambiguous) or isinstance(exc, ServerError)


def _json_content(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _connect_failure(exc: BaseException, operation: str, endpoint: str) -> _NoAnswer | CertificateError:
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
        return _NoAnswer(
            f"could not connect: the TLS handshake failed ({detail})", ambiguous=False, unreachable=True
        )
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
    behind `auth` (`from_settings` passes them), and whatever `hide` adds.
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
        create_skew_seconds: float = ownership.CLOCK_SKEW_SECONDS,
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
            verify=verifying_ssl_context() if transport is None else True,
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
        since = ownership.since_ms(self._wall_clock(), self.create_skew_seconds)
        content = _json_content(to_wire(request))
        path = f"/v2/{self._project_segment}/training-jobs"
        attempts = 0
        lost = False  # the last attempt may have created the job without saying so

        def attempt() -> _Answer | TrainingJob:
            nonlocal attempts, lost
            attempts += 1
            look, lost = lost, False
            if look:
                found = self._find_created_job(name, since, operation)
                if found is not None:
                    return found
            try:
                return self._once("POST", path, content, operation=operation, body_required=True)
            except Exception as exc:
                lost = _ambiguous(exc)
                raise

        try:
            answer = self._call(attempt, operation=operation)
        except InvalidResponseError as exc:
            return self._adopt_unreadable_create(exc, name, since, operation)
        except Exception:
            if not lost:
                raise
            # Out of attempts: one last look, after the pause another attempt would have waited.
            self._say(f"{operation}: checking whether the job was created before giving up")
            self._sleep(self._retry_delay(attempts))
            found = self._find_created_job(name, since, operation)
            if found is None:
                raise
            return found
        if isinstance(answer, TrainingJob):
            return answer
        try:
            job = self._parse(TrainingJob, answer, operation)
        except InvalidResponseError as exc:
            return self._adopt_unreadable_create(exc, name, since, operation)
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

    # ---------------------------------------------------------------- tags (TMS tags kept beside the job)

    def _tags_path(self, job_id: str) -> str:
        segment = _job_path_segment(job_id, "job id")
        return f"/v2/{self._project_segment}/modelarts-training-job/{segment}/tags"

    def get_tags(self, job_id: str) -> dict[str, str]:
        """The job's tags, key to value."""
        operation = f"get the tags of training job {job_id!r}"
        answer = self._answer("GET", self._tags_path(job_id), None, operation=operation, body_required=False)
        return self._parse(TagsAnswer, answer, operation).as_map() if answer.payload else {}

    def add_tags(self, job_id: str, tags: Mapping[str, str]) -> None:
        """Set these tags (a key the job already has takes the new value); idempotent, so retried."""
        if not tags:
            return
        operation = f"tag training job {job_id!r}"
        path = self._tags_path(job_id) + "/create"
        self._answer("POST", path, to_wire(tags_body(tags)), operation=operation, body_required=False)

    def remove_tags(self, job_id: str, tags: Mapping[str, str]) -> None:
        """Remove these tags (key and value as the job has them)."""
        if not tags:
            return
        operation = f"remove tags of training job {job_id!r}"
        path = self._tags_path(job_id) + "/delete"
        self._answer("DELETE", path, to_wire(tags_body(tags)), operation=operation, body_required=False)

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
        sort_by: str | None = None,
        order: str | None = None,
        page_size: int = MAX_PAGE_SIZE,
        tags: Mapping[str, str] | None = None,
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
                offset=page,
                limit=limit,
                sort_by=sort_by,
                order=order,
                filters=list(filters or []),
                tags=[SearchTag(key=k, values=[v]) for k, v in sorted(tags.items())] if tags else None,
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

    def _adopt_unreadable_create(
        self, exc: InvalidResponseError, name: str, since_ms: float, operation: str
    ) -> TrainingJob:
        """After a create answered with a success status but an unusable body: the job it made, found by name
        (never a second post), else exc saying what the search found. Another status's exc is raised as is."""
        if exc.status_code is None or not 200 <= exc.status_code < 300:
            raise exc
        looking = "the job was created but the answer could not be read; looking for it by name"
        try:
            found = self._find_created_job(name, since_ms, operation, looking=looking)
        except TransportError as lookup:
            outcome = f"and looking for it by name failed too ({lookup.__cause__ or lookup})"
        else:
            if found is not None:
                return found
            outcome = "but a search by its name does not list it"
        raise InvalidResponseError(
            operation,
            f"{exc.problem}; the job was probably created, {outcome}; check the ModelArts console before "
            "retrying",
            status_code=exc.status_code,
            excerpt=exc.excerpt,
            request_id=exc.request_id,
        ) from None

    def _find_created_job(
        self, name: str, since_ms: float, operation: str, *, looking: str | None = None
    ) -> TrainingJob | None:
        """The job a create whose answer was lost made (``ownership.judge`` with ``sent``), or None.

        looking: what the progress line says is being done (by default: before posting again).
        """
        self._say(
            f"{operation}: "
            f"{looking or 'the request may have been applied; looking for the job before posting again'}"
        )
        try:
            for job in self.iter_jobs([SearchFilter(key="name", operator="like", value=[name])]):
                meta = job.metadata
                if meta.name != name or not meta.id:
                    continue
                judgment = ownership.judge(
                    phase=job.phase, created_ms=meta.create_time, since_ms=since_ms, sent=True
                )
                if judgment.holding is ownership.Holding.ADOPT:
                    self._say(
                        f"{operation}: found the job the earlier attempt created; not creating it again"
                    )
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
        content = None if body is None else _json_content(body)

        def attempt() -> _Answer:
            return self._once(method, path, content, operation=operation, body_required=body_required)

        return self._call(attempt, operation=operation, attempts=attempts)

    def _call(self, attempt: Callable[[], _T], *, operation: str, attempts: int | None = None) -> _T:
        """attempt() until it answers, retrying what ``_should_retry`` allows after ``_retry_delay``.

        attempts: at most this many (never more than the client's own max_attempts).
        """
        started = self._clock()
        count = 0
        while True:
            count += 1
            try:
                return attempt()
            except (_NoAnswer, ThrottledError, ServerError) as exc:
                failure = self._failure(exc, operation, count)
            delay = self._retry_delay(count, failure.retry_after)
            allowed = self._attempts_allowed(failure, attempts)
            if not self._should_retry(count, allowed, started, delay):
                raise failure.error
            self._say(
                f"{operation}: {failure.reason}; retrying in {delay:.1f}s (attempt {count + 1} of {allowed})"
            )
            self._sleep(delay)

    def _failure(self, exc: Exception, operation: str, attempt: int) -> _Failure:
        """What a retryable failure of one attempt is called, raises and allows."""
        if isinstance(exc, _NoAnswer):
            error = TransportError(operation, exc.reason, attempts=attempt, endpoint=self.endpoint)
            return _Failure(error, exc.reason, unreachable=exc.unreachable)
        if isinstance(exc, ThrottledError):  # also StatusChangedError (409 ModelArts.2878, "try again later")
            reason = "the job's status was changing" if isinstance(exc, StatusChangedError) else "throttled"
            return _Failure(exc, reason, retry_after=exc.retry_after)
        assert isinstance(exc, ServerError)
        return _Failure(exc, f"HTTP {exc.status_code}")

    def _attempts_allowed(self, failure: _Failure, attempts: int | None) -> int:
        allowed = max(1, min(self.max_attempts, attempts or self.max_attempts))
        return min(allowed, UNREACHABLE_ATTEMPTS) if failure.unreachable else allowed

    def _should_retry(self, attempt: int, allowed: int, started: float, delay: float) -> bool:
        """Another attempt is allowed, and waiting for it stays within max_retry_seconds."""
        return attempt < allowed and self._clock() - started + delay <= self.max_retry_seconds

    def _retry_delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential backoff with full jitter after the given attempt, never shorter than Retry-After."""
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
            raise _connect_failure(exc, operation, self.endpoint) from None
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
        """The answer of a 2xx; the typed error of anything else."""
        got = _Received.of(response, raw)
        if 200 <= got.status < 300:
            return self._success(got, operation=operation, body_required=body_required)
        if 300 <= got.status < 400:
            raise InvalidResponseError(
                operation,
                "the service answered with a redirect, which this client does not follow; check the endpoint",
                status_code=got.status,
                request_id=got.request_id,
            )
        raise self._error(got, response.headers.get("Retry-After"), operation=operation)

    def _success(self, got: _Received, *, operation: str, body_required: bool) -> _Answer:
        """A 2xx answer's payload, refusing a body that is empty (when one is required), not JSON, an error
        body, or not an object (when one is required)."""
        problem: str | None = None
        if not got.text.strip():
            if body_required:
                raise InvalidResponseError(operation, "the answer is empty", status_code=got.status)
            return _Answer(got.status, None, got.request_id)
        if not got.parsed:
            problem = f"the answer is {got.unreadable}"
        elif isinstance(got.payload, dict) and got.payload.get("error_code"):
            problem = "a success status came with an error body"
        elif body_required and not isinstance(got.payload, dict):
            problem = "the answer is not a JSON object"
        if problem is not None:
            raise InvalidResponseError(
                operation, problem, status_code=got.status,
                excerpt=self._excerpt(got.text), request_id=got.request_id,
            )  # fmt: skip
        return _Answer(got.status, got.payload, got.request_id)

    def _error(self, got: _Received, retry_after_header: str | None, *, operation: str) -> Exception:
        """The typed error for a 4xx or 5xx answer (``errors.api_error_class``), its texts scrubbed."""
        fields = got.payload if got.parsed and isinstance(got.payload, dict) else {}
        error_code = _text_field(fields, "error_code")
        error_msg = _text_field(fields, "error_msg")
        error_solution = _text_field(fields, "error_solution")
        has_text = bool(got.text.strip())
        if not error_code and not error_msg:
            # Not a ModelArts error body (an HTML gateway page, say). The status alone is trustworthy for
            # authentication, throttling and server failures; for other 4xx it could be anything (a wrong
            # endpoint answering 404 must not look like "the job is gone").
            unreadable = f" (it is {got.unreadable})" if has_text and not got.parsed else ""
            if not (got.status in (401, 403, 429) or got.status >= 500):
                return InvalidResponseError(
                    operation,
                    f"the answer is not a ModelArts error body{unreadable}; check the endpoint",
                    status_code=got.status,
                    excerpt=self._excerpt(got.text) if has_text else None,
                    request_id=got.request_id,
                )
            # Labelled by what is wrong with it (JSON without the error fields keeps its old label).
            what = (
                f"answer {got.unreadable}"
                if unreadable and got.unreadable != "not JSON"
                else "non-JSON answer"
            )
            error_msg = f"{what}: {self._excerpt(got.text)}" if has_text else None
        cls = api_error_class(got.status, error_code)
        args = (
            got.status,
            error_code,
            self.scrub(error_msg) if error_msg else None,
            self.scrub(error_solution) if error_solution else None,
            got.request_id,
        )
        if issubclass(cls, ThrottledError):
            retry_after = _retry_after_seconds(retry_after_header)
            if error_code == MODELARTS_THROTTLED_CODE:
                # ModelArts' own throttling: Huawei advises waiting 2-5 s, whatever the backoff would say.
                retry_after = max(retry_after or 0.0, MODELARTS_THROTTLED_MIN_PAUSE)
            return cls(*args, operation=operation, retry_after=retry_after)
        return cls(*args, operation=operation)

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

    def hide(self, values: Iterable[str]) -> None:
        """Scrub these values too from now on: the secret inputs of the job being worked on
        (``diffing.secret_values``), which the service may echo in an error message."""
        added = [v for v in values if isinstance(v, str) and v and v not in self._secrets]
        self._secrets = (*self._secrets, *added)

    def scrub(self, text: str) -> str:
        """text with every credential of this client, and every value it was told to hide, replaced by "***"
        (for text the client did not build)."""
        return redact(text, self._secrets)

    def _excerpt(self, text: str) -> str:
        return shorten(self.scrub(text), EXCERPT_CHARS)


def _text_field(fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    return value if isinstance(value, str) and value else None

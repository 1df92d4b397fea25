"""An HTTP answer of the ModelArts API interpreted: its JSON value, what a 2xx must carry, the typed error of
anything else, and validation into a response model.

An answer the client cannot use (not UTF-8, not JSON, nested too deeply: ``reading``, the one reader of
every answer and file; the wrong shape) is an InvalidResponseError naming the operation and the HTTP status,
whatever the status. Every text taken from the answer goes through ``scrub`` (the transport's: credentials
and hidden values become "***"), and is cut short with a count of what was left out. A pause the service
names (``Retry-After``) is honoured up to ``MAX_SERVICE_PAUSE``.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pydantic

from .api_errors import (
    MAX_SERVICE_PAUSE,
    MODELARTS_THROTTLED_CODE,
    MODELARTS_THROTTLED_MIN_PAUSE,
    ThrottledError,
    api_error_class,
)
from .errors import InvalidResponseError, listing, shorten
from .reading import MAX_JSON_DEPTH, read_json

__all__ = [
    "EXCERPT_CHARS",
    "MAX_JSON_DEPTH",
    "Answer",
    "excerpt",
    "interpret",
    "parse",
    "retry_after_seconds",
]

EXCERPT_CHARS = 200

_M = TypeVar("_M", bound=pydantic.BaseModel)

Scrub = Callable[[str], str]


@dataclass(frozen=True)
class Answer:
    """A usable 2xx answer: its status, JSON value (None for an empty body) and request id."""

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
        text, payload, unreadable = read_json(raw)
        parsed = unreadable is None
        request_id = response.headers.get("X-Request-Id") or None
        if request_id is None and parsed and isinstance(payload, dict):
            body_id = payload.get("request_id")
            request_id = body_id if isinstance(body_id, str) and body_id else None
        return cls(response.status_code, text, payload, parsed, request_id, unreadable or "")


def excerpt(text: str, scrub: Scrub) -> str:
    """The start of a text taken from an answer, scrubbed, for an error message."""
    return shorten(scrub(text), EXCERPT_CHARS)


def interpret(
    response: httpx.Response, raw: bytes, *, operation: str, body_required: bool, scrub: Scrub
) -> Answer:
    """The answer of a 2xx; the typed error of anything else (raised)."""
    got = _Received.of(response, raw)
    if 200 <= got.status < 300:
        return _success(got, operation=operation, body_required=body_required, scrub=scrub)
    if 300 <= got.status < 400:
        raise InvalidResponseError(
            operation,
            "the service answered with a redirect, which this client does not follow; check the endpoint",
            status_code=got.status,
            request_id=got.request_id,
        )
    raise _error(got, response.headers.get("Retry-After"), operation=operation, scrub=scrub)


def _success(got: _Received, *, operation: str, body_required: bool, scrub: Scrub) -> Answer:
    """A 2xx answer's payload, refusing a body that is empty (when one is required), not JSON, an error
    body, or not an object (when one is required)."""
    problem: str | None = None
    if not got.text.strip():
        if body_required:
            raise InvalidResponseError(operation, "the answer is empty", status_code=got.status)
        return Answer(got.status, None, got.request_id)
    if not got.parsed:
        problem = f"the answer is {got.unreadable}"
    elif isinstance(got.payload, dict) and got.payload.get("error_code"):
        problem = "a success status came with an error body"
    elif body_required and not isinstance(got.payload, dict):
        problem = "the answer is not a JSON object"
    if problem is not None:
        raise InvalidResponseError(
            operation, problem, status_code=got.status,
            excerpt=excerpt(got.text, scrub), request_id=got.request_id,
        )  # fmt: skip
    return Answer(got.status, got.payload, got.request_id)


def _error(got: _Received, retry_after_header: str | None, *, operation: str, scrub: Scrub) -> Exception:
    """The typed error for a 4xx or 5xx answer (``api_errors.api_error_class``), its texts scrubbed."""
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
                excerpt=excerpt(got.text, scrub) if has_text else None,
                request_id=got.request_id,
            )
        # Labelled by what is wrong with it (JSON without the error fields keeps its old label).
        what = (
            f"answer {got.unreadable}" if unreadable and got.unreadable != "not JSON" else "non-JSON answer"
        )
        error_msg = f"{what}: {excerpt(got.text, scrub)}" if has_text else None
    cls = api_error_class(got.status, error_code)
    args = (
        got.status,
        error_code,
        scrub(error_msg) if error_msg else None,
        scrub(error_solution) if error_solution else None,
        got.request_id,
    )
    if issubclass(cls, ThrottledError):
        retry_after = retry_after_seconds(retry_after_header)
        if error_code == MODELARTS_THROTTLED_CODE:
            # ModelArts' own throttling: Huawei advises waiting 2-5 s, whatever the backoff would say.
            retry_after = max(retry_after or 0.0, MODELARTS_THROTTLED_MIN_PAUSE)
        return cls(*args, operation=operation, retry_after=retry_after)
    return cls(*args, operation=operation)


def _text_field(fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    return value if isinstance(value, str) and value else None


def retry_after_seconds(value: str | None, now: Callable[[], float] = time.time) -> float | None:
    """The pause a ``Retry-After`` header names, in seconds or as an HTTP date, at most ``MAX_SERVICE_PAUSE``
    (an hour, "inf" or a date years ahead too; a date passed is no pause); None (the client's own backoff)
    for none, or one that names no pause ("nan", a negative number, a date that is not one)."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:  # RFC 9110 dates are GMT; a bare one is read so rather than as local time
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = max(0.0, when.timestamp() - now())
    if math.isnan(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_SERVICE_PAUSE)


def parse(model: type[_M], answer: Answer, operation: str, scrub: Scrub) -> _M:
    """The answer validated into model; a value of another shape is an InvalidResponseError naming where."""
    try:
        return model.model_validate(answer.payload)
    except pydantic.ValidationError as exc:
        where = listing(
            (f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in exc.errors()),
            limit=EXCERPT_CHARS,
            separator="; ",
        )
        raise InvalidResponseError(
            operation,
            f"the answer does not have the expected shape ({where})",
            status_code=answer.status_code,
            excerpt=excerpt(json.dumps(answer.payload, ensure_ascii=False), scrub),
            request_id=answer.request_id,
        ) from None

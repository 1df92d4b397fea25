"""One careful reader for every answer and file this package reads: ModelArts' answers
(``interpreting``), IAM's and the instance metadata service's (``account.iam``, ``account.metadata``) and
the account files (``account.files``).

What it reads is bounded in size (``MAX_ANSWER_BYTES``, ``MAX_FILE_BYTES``: only that much is ever read),
must be UTF-8 (a replacement character would pass for the other side's text) and, as JSON, nest at most
``MAX_JSON_DEPTH`` arrays and objects (deeper values break later, outside any caller that could name the
call or the file: the parser's and pydantic's recursion, the engine's protobuf messages). What it refuses is
an ``Unreadable`` whose ``problem`` says what is wrong, never what the text holds: callers name the service or
the file and the operation.

It loads no HTTP library: the settings, which read the account files, stay light for a Pulumi program.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

__all__ = [
    "MAX_ANSWER_BYTES",
    "MAX_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "Received",
    "TooLarge",
    "Unreadable",
    "read_body",
    "read_file",
    "read_json",
    "receive",
    "strict_json",
]

# Largest answer body read: a training job is a few kB, a page of 50 well under a megabyte, IAM's list of
# 10,000 projects about 3 MB.
MAX_ANSWER_BYTES = 16 * 1024 * 1024
# Largest account file read (a credentials file, hcloud's profiles): a few hundred bytes per profile.
MAX_FILE_BYTES = 1024 * 1024
# Deepest nesting of arrays and objects accepted: a job is under 10 levels deep.
MAX_JSON_DEPTH = 32

NOT_UTF8 = "not valid UTF-8"
NOT_JSON = "not JSON"
TOO_DEEP = f"nested too deeply to read (more than {MAX_JSON_DEPTH} levels)"


class Unreadable(ValueError):
    """Text that cannot be used; ``problem`` says why ("not JSON"...), ``line`` and ``column`` where, when the
    parser knows (1-based)."""

    def __init__(self, problem: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column


class TooLarge(Unreadable):
    """More bytes than the reader takes; nothing past the limit was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


def strict_json(raw: bytes | str) -> Any:
    """The JSON value of raw (UTF-8 when bytes); Unreadable when it is not UTF-8, not JSON or too deep."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise Unreadable(NOT_UTF8) from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(NOT_JSON, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        # The parser recurses once per level: a hostile "[[[[..." must not escape as a crash.
        raise Unreadable(TOO_DEEP) from None
    if _deeper_than(payload, MAX_JSON_DEPTH):
        raise Unreadable(TOO_DEEP)
    return payload


def read_json(raw: bytes) -> tuple[str, Any, str | None]:
    """An answer's body as text, its JSON value (None for an empty body), and why it is unusable as JSON
    (None: usable, or empty). Text that is not UTF-8 is given back with replacement characters, to quote."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), None, NOT_UTF8
    if not text.strip():
        return text, None, None
    try:
        return text, strict_json(text), None
    except Unreadable as exc:
        return text, None, exc.problem


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


def read_body(
    chunks: Iterable[bytes],
    *,
    limit: int = MAX_ANSWER_BYTES,
    past_deadline: Callable[[], bool] = lambda: False,
) -> bytes:
    """The bytes of a streamed body (``httpx.Response.iter_bytes()``), at most limit of them: TooLarge past
    it, without reading on. past_deadline() is asked after each chunk: TimeoutError once it holds (each read
    has its own timeout; this bounds a server that trickles bytes forever)."""
    taken: list[bytes] = []
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        taken.append(chunk)
        if past_deadline():
            raise TimeoutError("the answer took longer than the timeout to arrive")
    return b"".join(taken)


def read_file(path: Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """A file's text (UTF-8), at most limit bytes of it read: TooLarge past it, Unreadable when it is not
    UTF-8; OSError as open and read raise it."""
    with path.open("rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise TooLarge(limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8 text") from None


@dataclass(frozen=True, repr=False)
class Received:
    """An answer as read: its status, headers, text (with replacement characters where it is not UTF-8, to
    quote), JSON value (None: empty or unusable) and why that is unusable (None: usable, or empty)."""

    status_code: int
    headers: Mapping[str, str]
    text: str
    payload: Any
    problem: str | None

    def __repr__(self) -> str:
        return f"Received(status_code={self.status_code})"


def receive(http: httpx.Client, request: httpx.Request, *, limit: int = MAX_ANSWER_BYTES) -> Received:
    """request sent with http and its answer read (at most limit bytes: TooLarge past it); the HTTP
    library's errors as it raises them."""
    response = http.send(request, stream=True)
    try:
        raw = read_body(response.iter_bytes(), limit=limit)
    finally:
        response.close()
    text, payload, problem = read_json(raw)
    return Received(response.status_code, response.headers, text, payload, problem)

"""A job's events (phase changes, scheduling, task exits) and the events query, as pure functions.

Events have a ``level`` (Info, Warning, Error), a ``source`` (Job, Task or K8S, the sources the events page
lists), a ``message`` and a ``time`` (UTC, ISO 8601 with milliseconds). The query takes the page's
parameters: ``offset`` (a page index from 0, as in searches), ``limit`` 1..100 (default 50), ``order`` (asc
or desc, default desc), ``start_time`` with ``end_time`` (milliseconds since the epoch, both or neither),
``level``, ``source`` and ``pattern`` (text the message contains, at most 256 characters).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .lifecycle import (
    COMPLETED,
    CREATING,
    FAILED,
    PENDING,
    RUNNING,
    TERMINATED,
    TERMINATING,
    Plan,
    transitions,
)

LEVELS = ("Info", "Warning", "Error")
SOURCES = ("Job", "Task", "K8S")
DEFAULT_LIMIT = 50
MAX_LIMIT = 100
QUERY_KEYS = frozenset({"offset", "limit", "order", "start_time", "end_time", "level", "source", "pattern"})


@dataclass(frozen=True)
class Event:
    at: float  # epoch seconds
    level: str
    source: str
    message: str

    def to_wire(self) -> dict[str, str]:
        stamp = datetime.fromtimestamp(self.at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        return {"message": self.message, "level": self.level, "time": stamp, "source": self.source}


class QueryError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def job_events(job: Mapping[str, Any], plan: Plan, tasks: list[str], now: float) -> list[Event]:
    """Everything that happened to the job by `now`, oldest first."""
    name = job["metadata"]["name"]
    out: list[Event] = []
    for at, phase in transitions(plan, now):
        if phase == CREATING:
            out.append(Event(at, "Info", "Job", f"Training job {name} created."))
        elif phase == PENDING:
            out.append(Event(at, "Info", "Job", "Training job is queuing for resources."))
            if plan.stay_pending:
                waiting = "No node has the resources the job asks for; it keeps waiting."
                out.append(Event(at, "Warning", "K8S", waiting))
        elif phase == RUNNING:
            out += [Event(at, "Info", "K8S", f"Task {task} scheduled and started.") for task in tasks]
            out.append(Event(at, "Info", "Job", "Training job is running."))
        elif phase == COMPLETED:
            out += [Event(at, "Info", "Task", f"Task {task} exited with code 0.") for task in tasks]
            out.append(Event(at, "Info", "Job", "Training job completed."))
        elif phase == FAILED:
            exit_text = f"exited with code {plan.exit_code}: {plan.failure_message}"
            out += [Event(at, "Error", "Task", f"Task {task} {exit_text}") for task in tasks]
            out.append(Event(at, "Error", "Job", f"Training job failed: {plan.failure_message}"))
        elif phase == TERMINATING:
            out.append(Event(at, "Info", "Job", "Termination requested; stopping the training job."))
        elif phase == TERMINATED:
            out.append(Event(at, "Info", "Job", "Training job terminated."))
    return out


def _integer(query: Mapping[str, str], key: str, default: int, low: int, high: int | None = None) -> int:
    raw = query.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise QueryError(key, "must be an integer") from None
    if high is not None and not low <= value <= high:
        raise QueryError(key, f"must be between {low} and {high}")
    if value < low:
        raise QueryError(key, f"must be {low} or more")
    return value


def _choice(query: Mapping[str, str], key: str, options: tuple[str, ...]) -> str | None:
    value = query.get(key)
    if value is None or value == "":
        return None
    if value not in options:
        raise QueryError(key, f"must be one of {', '.join(options)}")
    return value


def select(events: list[Event], query: Mapping[str, str]) -> dict[str, Any]:
    """The events answer for a query (raises QueryError naming the parameter that is wrong)."""
    unknown = sorted(set(query) - QUERY_KEYS)
    if unknown:
        raise QueryError(unknown[0], "is not a parameter of this API")
    offset = _integer(query, "offset", 0, 0)
    limit = _integer(query, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    order = _choice(query, "order", ("asc", "desc")) or "desc"
    level = _choice(query, "level", LEVELS)
    source = _choice(query, "source", SOURCES)
    pattern = query.get("pattern") or ""
    if len(pattern) > 256:
        raise QueryError("pattern", "must be at most 256 characters")
    start, end = query.get("start_time"), query.get("end_time")
    if bool(start) != bool(end):
        raise QueryError("start_time" if not start else "end_time", "must be given together with the other")
    if start and end:
        low = _integer(query, "start_time", 0, 0) / 1000
        high = _integer(query, "end_time", 0, 0) / 1000
        events = [e for e in events if low <= e.at <= high]
    if level:
        events = [e for e in events if e.level == level]
    if source:
        events = [e for e in events if e.source == source]
    if pattern:
        events = [e for e in events if pattern.lower() in e.message.lower()]
    ordered = events if order == "asc" else events[::-1]
    answer: dict[str, Any] = {
        "total": len(ordered),
        "limit": limit,
        "offset": offset,
        "order": order,
        "events": [e.to_wire() for e in ordered[offset * limit : (offset + 1) * limit]],
    }
    if start and end:
        answer.update(start_time=start, end_time=end)
    return answer

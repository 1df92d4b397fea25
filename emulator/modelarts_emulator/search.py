"""Training-job searches (pure): filters, sorting and paging over jobs as they look right now.

Follows the search page: offset is a page index from 0, limit 1..50, sort_by defaults to create_time, order to
desc; filters are {key, operator (between/like/in/not), value[]}. Blank values ("" or an empty list) mean "no
condition", as the page's own example sends them. `total` counts every job of the project, `count` those that
match the filters (the page's table); `items` is one page of the matches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

DEFAULT_LIMIT = 10
MAX_LIMIT = 50


class SearchError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _name(job: Mapping[str, Any]) -> str:
    return str(job["metadata"].get("name", ""))


def _algorithm_name(job: Mapping[str, Any]) -> str:
    return str((job.get("algorithm") or {}).get("name", ""))


# key -> (how to read it from a job, operators allowed)
_KEYS: dict[str, tuple[Callable[[Mapping[str, Any]], Any], frozenset[str]]] = {
    "name": (_name, frozenset({"like", "in", "not"})),
    "phase": (lambda job: job["status"]["phase"], frozenset({"in", "not"})),
    "kind": (lambda job: job.get("kind", "job"), frozenset({"in", "not"})),
    "create_time": (lambda job: job["metadata"]["create_time"], frozenset({"between"})),
    "algorithm_name": (_algorithm_name, frozenset({"like", "in", "not"})),
    "workspace_id": (lambda job: job["metadata"].get("workspace_id", "0"), frozenset({"in", "not"})),
    # Every job here belongs to the one emulated user, so user_id never narrows anything.
    "user_id": (lambda job: None, frozenset({"in"})),
}

_SORT_KEYS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "create_time": lambda job: job["metadata"]["create_time"],
    "name": _name,
    "phase": lambda job: job["status"]["phase"],
    "duration": lambda job: job["status"].get("duration", 0),
}


def _int_field(body: Mapping[str, Any], field: str, default: int) -> int:
    value = body.get(field, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise SearchError(field, "must be an integer")
    return value


def _matcher(index: int, raw: Any) -> Callable[[Mapping[str, Any]], bool] | None:
    where = f"filters[{index}]"
    if not isinstance(raw, Mapping):
        raise SearchError(where, "must be an object with key, operator and value")
    key, operator, values = raw.get("key"), raw.get("operator"), raw.get("value", [])
    if key not in _KEYS:
        raise SearchError(
            f"{where}.key", f"unsupported filter key {key!r}; use one of {', '.join(sorted(_KEYS))}"
        )
    read, operators = _KEYS[str(key)]
    if operator not in operators:
        raise SearchError(
            f"{where}.operator", f"{key} supports {', '.join(sorted(operators))}, not {operator!r}"
        )
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SearchError(f"{where}.value", "must be a list of strings")
    if key == "user_id":
        return None
    if operator == "between":
        if len(values) != 2:
            raise SearchError(
                f"{where}.value", "between takes exactly two values: [from, to] in milliseconds"
            )
        try:
            low = int(values[0]) if values[0] else None
            high = int(values[1]) if values[1] else None
        except ValueError:
            raise SearchError(
                f"{where}.value", "between bounds must be integers (ms since epoch) or blank"
            ) from None
        if low is None and high is None:
            return None
        return lambda job: (low is None or read(job) >= low) and (high is None or read(job) <= high)
    wanted = [v for v in values if v]
    if not wanted:
        return None
    if operator == "like":
        needles = [v.lower() for v in wanted]
        return lambda job: any(n in str(read(job)).lower() for n in needles)
    if operator == "in":
        return lambda job: read(job) in wanted
    return lambda job: read(job) not in wanted


def search(jobs: Sequence[Mapping[str, Any]], body: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a search body over `jobs` (full jobs including their current status)."""
    limit = _int_field(body, "limit", DEFAULT_LIMIT)
    if not 1 <= limit <= MAX_LIMIT:
        raise SearchError("limit", f"must be between 1 and {MAX_LIMIT}, got {limit}")
    offset = _int_field(body, "offset", 0)
    if offset < 0:
        raise SearchError("offset", f"is a page index and must be 0 or more, got {offset}")
    sort_by = body.get("sort_by") or "create_time"
    if sort_by not in _SORT_KEYS:
        raise SearchError(
            "sort_by", f"unsupported sort key {sort_by!r}; use one of {', '.join(sorted(_SORT_KEYS))}"
        )
    order = body.get("order") or "desc"
    if order not in ("asc", "desc"):
        raise SearchError("order", f"must be 'asc' or 'desc', got {order!r}")
    filters = body.get("filters") or []
    if not isinstance(filters, list):
        raise SearchError("filters", "must be a list")
    matchers = [m for m in (_matcher(i, f) for i, f in enumerate(filters)) if m is not None]
    matches = [job for job in jobs if all(m(job) for m in matchers)]
    sort_key = _SORT_KEYS[str(sort_by)]
    # Ties broken by id so pages never overlap or skip, whatever the sort key.
    matches.sort(key=lambda job: (sort_key(job), job["metadata"]["id"]), reverse=order == "desc")
    page = matches[offset * limit : (offset + 1) * limit]
    return {
        "total": len(jobs),
        "count": len(matches),
        "limit": limit,
        "offset": offset,
        "sort_by": sort_by,
        "order": order,
        "group_by": body.get("group_by") or "",
        "workspace_id": "0",
        "ai_project": "default-ai-project",
        "items": [dict(job) for job in page],
    }

"""Training-job searches (pure): filters, sorting and paging over jobs as they look right now.

Follows the search page: offset is a page index from 0, limit 1..50, sort_by defaults to create_time, order to
desc; filters are conditions {key, operator (between/like/in/not), value[]}. Blank values ("" or an empty
list) mean "no condition", as the page's own example sends them. `total` counts every job of the project,
`count` those that match; `items` is one page of the matches.

The service's own refusals: ModelArts.2789 for a filter key it does not support, 2790 for a sort_by it does
not support, 2807 for a condition that is not {key, operator, value}, 2808 for an operator the key does not
take, 2809 for values it cannot use (more than 10, a phase or kind that does not exist, a create_time range
longer than 31 days...). The SDK's body fields narrow too: ``workspace_id``, ``train_type``, ``tags``
(jobs carrying every tag condition's key, with one of its values when values are given) and ``host_ips``
(jobs whose tasks ran on those hosts; the matching tasks are listed in ``status.task_ips``).
With tags or host IPs and no create_time condition, only the last 31 days are searched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import errors
from .checks import KINDS
from .lifecycle import PHASES

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
MAX_VALUES = 10
MAX_RANGE_MS = 31 * 24 * 3600 * 1000
CONDITION_KEYS = frozenset({"key", "operator", "value"})
OPERATORS = ("between", "like", "in", "not")


class SearchError(ValueError):
    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.code = code
        self.field = field
        self.message = message


def _name(job: Mapping[str, Any]) -> str:
    return str(job["metadata"].get("name", ""))


def _section(job: Mapping[str, Any], *path: str) -> Any:
    value: Any = job
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _text(*path: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda job: str(_section(job, *path) or "")


# key -> (how to read it from a job, operators it takes); the keys the service documents for its filters.
_KEYS: dict[str, tuple[Callable[[Mapping[str, Any]], Any], frozenset[str]]] = {
    "id": (_text("metadata", "id"), frozenset({"like", "in", "not"})),
    "name": (_name, frozenset({"like", "in", "not"})),
    "kind": (lambda job: job.get("kind", "job"), frozenset({"in", "not"})),
    "phase": (lambda job: job["status"]["phase"], frozenset({"in", "not"})),
    "algorithm_id": (_text("algorithm", "id"), frozenset({"in", "not"})),
    "algorithm_name": (_text("algorithm", "name"), frozenset({"like", "in", "not"})),
    "create_time": (lambda job: job["metadata"]["create_time"], frozenset({"between"})),
    # Every job here belongs to the one emulated user, so user_id never narrows anything.
    "user_id": (lambda job: None, frozenset({"in", "not"})),
    "pool_id": (_text("spec", "resource", "pool_id"), frozenset({"in", "not"})),
    "training_experiment_id": (
        _text("metadata", "training_experiment_reference", "id"),
        frozenset({"in", "not"}),
    ),
    "runtime_type": (_text("spec", "runtime_type"), frozenset({"in", "not"})),
    "priority": (
        lambda job: str(_section(job, "spec", "schedule_policy", "priority") or 1),
        frozenset({"in", "not"}),
    ),
}
# Allowed values for keys whose values form a closed set (blank always allowed).
_VALUES: dict[str, frozenset[str]] = {"phase": frozenset(PHASES), "kind": frozenset(KINDS)}

_SORT_KEYS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "create_time": lambda job: job["metadata"]["create_time"],
    "name": _name,
    "phase": lambda job: job["status"]["phase"],
    "duration": lambda job: job["status"].get("duration", 0),
}


def _value_error(where: str, message: str) -> SearchError:
    return SearchError(errors.UNSUPPORTED_CONDITION_VALUE, f"{where}.value", message)


def _between(where: str, values: list[str], read: Callable[[Mapping[str, Any]], Any]) -> Any:
    if len(values) != 2:
        raise _value_error(where, "between takes exactly two values: [from, to] in milliseconds")
    try:
        low = int(values[0]) if values[0] else None
        high = int(values[1]) if values[1] else None
    except ValueError:
        raise _value_error(where, "between bounds must be integers (ms since epoch) or blank") from None
    if low is not None and high is not None and high - low > MAX_RANGE_MS:
        raise _value_error(where, "a create_time range spans at most 31 days")
    if low is None and high is None:
        return None
    return lambda job: (low is None or read(job) >= low) and (high is None or read(job) <= high)


def _matcher(index: int, raw: Any) -> tuple[str, Callable[[Mapping[str, Any]], bool] | None]:
    """The condition's key and its test of a job (None when it does not narrow anything)."""
    where = f"filters[{index}]"
    if not isinstance(raw, Mapping) or "key" not in raw:
        raise SearchError(
            errors.UNSUPPORTED_CONDITION_KEY, where, "must be an object with key, operator and value"
        )
    extra = sorted(str(k) for k in raw if k not in CONDITION_KEYS)
    if extra:
        raise SearchError(
            errors.UNSUPPORTED_CONDITION_KEY,
            f"{where}.{extra[0]}",
            "is not a condition key; a condition has key, operator and value",
        )
    key, operator, values = raw.get("key"), raw.get("operator"), raw.get("value", [])
    if not isinstance(key, str) or key not in _KEYS:
        raise SearchError(
            errors.UNSUPPORTED_FILTER,
            f"{where}.key",
            f"unsupported filter key {key!r}; use one of {', '.join(sorted(_KEYS))}",
        )
    read, operators = _KEYS[key]
    if operator not in operators:
        raise SearchError(
            errors.UNSUPPORTED_CONDITION_OPERATOR,
            f"{where}.operator",
            f"{key} supports {', '.join(sorted(operators))}, not {operator!r}",
        )
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _value_error(where, "must be a list of strings")
    if len(values) > MAX_VALUES:
        raise _value_error(where, f"takes at most {MAX_VALUES} values, got {len(values)}")
    if operator == "between":
        return key, _between(where, values, read)
    wanted = [v for v in values if v]
    allowed = _VALUES.get(key)
    if allowed is not None and any(v not in allowed for v in wanted):
        bad = next(v for v in wanted if v not in allowed)
        raise _value_error(where, f"{bad!r} is not a {key}; use one of {', '.join(sorted(allowed))}")
    if key == "priority" and any(not v.lstrip("-").isdigit() for v in wanted):
        raise _value_error(where, "priorities are integers")
    if not wanted or key == "user_id":
        return key, None
    if operator == "like":
        needles = [v.lower() for v in wanted]
        return key, lambda job: any(n in str(read(job)).lower() for n in needles)
    if operator == "in":
        return key, lambda job: read(job) in wanted
    return key, lambda job: read(job) not in wanted


def _int_field(body: Mapping[str, Any], field: str, default: int) -> int:
    value = body.get(field)
    return default if value is None else int(value)


def search(
    jobs: Sequence[Mapping[str, Any]],
    body: Mapping[str, Any],
    *,
    now_ms: int,
    task_ips: Callable[[Mapping[str, Any]], list[dict[str, Any]]],
    tags_of: Callable[[Mapping[str, Any]], Mapping[str, str]] = lambda job: {},
) -> dict[str, Any]:
    """Answer a search body (its shape already checked) over `jobs` (full jobs with their current status).

    ``task_ips`` gives a job's tasks with their addresses (empty before it runs); ``tags_of`` a job's tags.
    """
    limit = _int_field(body, "limit", DEFAULT_LIMIT)
    offset = _int_field(body, "offset", 0)
    sort_by = body.get("sort_by") or "create_time"
    if sort_by not in _SORT_KEYS:
        raise SearchError(
            errors.UNSUPPORTED_SORT,
            "sort_by",
            f"unsupported sort key {sort_by!r}; use one of {', '.join(sorted(_SORT_KEYS))}",
        )
    order = body.get("order") or "desc"
    conditions = [_matcher(i, f) for i, f in enumerate(body.get("filters") or [])]
    tests = [test for _, test in conditions if test is not None]
    host_ips, tags = body.get("host_ips") or [], body.get("tags") or []
    if (host_ips or tags) and not any(key == "create_time" for key, _ in conditions):
        tests.append(lambda job: job["metadata"]["create_time"] >= now_ms - MAX_RANGE_MS)
    if tags:
        # Every tag condition holds: the job has the key, with one of the values when values are given.
        def tagged(job: Mapping[str, Any]) -> bool:
            have = tags_of(job)
            return all(
                t["key"] in have and (not t.get("values") or have[t["key"]] in t["values"]) for t in tags
            )

        tests.append(tagged)
    if body.get("workspace_id"):
        tests.append(lambda job: job["metadata"].get("workspace_id", "0") == body["workspace_id"])
    if body.get("train_type"):
        tests.append(lambda job: job.get("train_type", "job") == body["train_type"])
    matches = [dict(job) for job in jobs if all(test(job) for test in tests)]
    if host_ips:
        matches = _on_hosts(matches, set(host_ips), task_ips)
    sort_key = _SORT_KEYS[str(sort_by)]
    # Ties broken by id so pages never overlap or skip, whatever the sort key.
    matches.sort(key=lambda job: (sort_key(job), job["metadata"]["id"]), reverse=order == "desc")
    answer: dict[str, Any] = {
        "total": len(jobs),
        "count": len(matches),
        "limit": limit,
        "offset": offset,
        "sort_by": sort_by,
        "order": order,
        "group_by": body.get("group_by") or "",
        "workspace_id": body.get("workspace_id") or "0",
        "ai_project": "default-ai-project",
        "items": matches[offset * limit : (offset + 1) * limit],
    }
    if body.get("train_type"):
        answer["train_type"] = body["train_type"]
    return answer


def _on_hosts(
    jobs: list[dict[str, Any]],
    hosts: set[str],
    task_ips: Callable[[Mapping[str, Any]], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """The jobs with a task on one of the hosts, each with those tasks in ``status.task_ips``."""
    out = []
    for job in jobs:
        on_hosts = [entry for entry in task_ips(job) if entry.get("host_ip") in hosts]
        if on_hosts:
            out.append({**job, "status": {**job["status"], "task_ips": on_hosts}})
    return out

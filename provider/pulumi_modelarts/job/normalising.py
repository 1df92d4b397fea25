"""Declared inputs as they are compared: their normal form, values not known yet, and the secret values among
them. Pure functions.

The comparison is always between what the user *declared* (kept in the state as the ``declared_inputs``
output) and what they declare now, never against what the service returns: fields the service fills in (ids,
create times, flavor details, defaults) must not look like changes. ``normalise_inputs`` is the one pass that
opens what a front-end's protocol wraps (the dynamic provider's RPC secrets, the engine's whole floats) and
drops what is unset.

A value not known yet (a preview's unknown) is ``NOT_KNOWN``, this layer's own marker: the front-ends turn
Pulumi's unknowns into it as a value comes in and back into theirs as one goes out (``frontends/unknowns``,
``frontends/native_values``), so nothing here depends on how Pulumi spells one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from ..generated.fields import JOB_DEFAULTS, JOB_FIELDS
from . import secret_paths
from .recorded import DECLARED_INPUTS

__all__ = [
    "DEFAULT_KIND",
    "NOT_KNOWN",
    "PROVIDER_KEY",
    "NotKnown",
    "affected_by_unknown",
    "canonical",
    "clean",
    "contains_unknown",
    "dotted",
    "is_unknown",
    "job_body",
    "normalise_inputs",
    "same",
    "secret_values",
    "strip_unknowns",
    "unwrap_secrets",
]

PROVIDER_KEY = "__provider"
DEFAULT_KIND = JOB_DEFAULTS["kind"]


class NotKnown:
    """The type of ``NOT_KNOWN``, the one value not known yet (a preview's unknown)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_KNOWN"

    def __reduce__(self) -> str:
        return "NOT_KNOWN"  # pickled and copied as the one instance


NOT_KNOWN: Final = NotKnown()


def is_unknown(value: object) -> bool:
    """Whether value is not known yet (a preview's unknown, as a front-end handed it in)."""
    return value is NOT_KNOWN


def contains_unknown(value: object) -> bool:
    kind = type(value)
    if kind is str:
        return False
    if kind is dict:
        return any(contains_unknown(v) for v in value.values())  # type: ignore[attr-defined]
    if kind is list:
        return any(contains_unknown(v) for v in value)  # type: ignore[attr-defined]
    if kind is bool or kind is int or kind is float or value is None:
        return False
    if is_unknown(value):
        return True
    if isinstance(value, Mapping):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_unknown(v) for v in value)
    return False


def dotted(parent: str, key: object) -> str:
    """parent extended by a list index (``[1]``) or a key (``.name``): the paths check failures name."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def strip_unknowns(value: Any, path: str = "", found: list[str] | None = None) -> Any:
    """value with unknowns replaced by None; the paths of the unknowns (a.b[0].c) are appended to found."""
    if is_unknown(value):
        if found is not None:
            found.append(path)
        return None
    if isinstance(value, Mapping):
        return {k: strip_unknowns(v, dotted(path, k), found) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_unknowns(v, dotted(path, i), found) for i, v in enumerate(value)]
    return value


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + ".") or path.startswith(root + "[")


def _parent(path: str) -> str:
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def affected_by_unknown(path: str, unknowns: list[str]) -> bool:
    """Whether a problem at path may go away once the unknown values at unknowns are known.

    That is a problem at, below or above an unknown value, or a rule between siblings of one.
    """
    for unknown in unknowns:
        if _under(path, unknown) or _under(unknown, path):
            return True
        parent = _parent(path)
        if parent and _under(unknown, parent):
            return True
    return False


def unwrap_secrets(value: Any) -> Any:
    """Plain values with every wrapped RPC secret opened (the engine normally sends none to this provider)."""
    while isinstance(value, Mapping) and value.get(_SECRET_SIG_KEY) == _SECRET_SIG:
        value = value.get("value")
    if isinstance(value, Mapping):
        return {k: unwrap_secrets(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [unwrap_secrets(v) for v in value]
    return value


def clean(value: Any) -> Any:
    """Plain data as declared inputs compare: unset (None) entries dropped, whole floats back to ints."""
    # None means "not set"; the engine turns every number into a float, so 2.0 goes back to 2.
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


_SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"  # rpc's marker of a wrapped secret (is_rpc_secret)
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


def _normalised(value: Any) -> Any:
    """unwrap_secrets then clean in one walk (the same result), testing the exact types plain data has
    first: check and diff normalise every job's inputs several times, and the ABC checks dominated."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is float:  # is_integer() is False for inf and nan, as clean's isfinite test
        return int(value) if value.is_integer() else value
    if kind is dict and value.get(_SECRET_SIG_KEY) == _SECRET_SIG:
        return _normalised(value["value"])
    if kind is dict or isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            item = _normalised(item)
            if item is not None:
                out[key if type(key) is str else str(key)] = item
        return out
    if kind is list or kind is tuple:
        return [_normalised(v) for v in value]
    return clean(value)


def normalise_inputs(props: Mapping[str, Any]) -> dict[str, Any]:
    """Declared inputs without the serialized provider or unset values, with kind defaulted to "job".

    Unknown values (preview) are kept as they are.
    """
    cleaned = _normalised({k: v for k, v in props.items() if k != PROVIDER_KEY})
    assert isinstance(cleaned, dict)
    if cleaned.get("kind") is None:
        cleaned["kind"] = DEFAULT_KIND
    return cleaned


def job_body(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The part of the normalised inputs that is the create request body."""
    return {k: inputs[k] for k in JOB_FIELDS if k in inputs}


def canonical(value: Any) -> Any:
    """A form for comparing declarations: unset (None) and empty maps/lists count as absent."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            c = canonical(v)
            if c is None or (isinstance(c, (dict, list)) and not c):
                continue
            out[str(k)] = c
        return out
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return clean(value)


def same(old: Any, new: Any) -> bool:
    """Whether two declared values are the same declaration (``canonical``); one not known yet never is."""
    if contains_unknown(new):
        return False
    if old == new:  # the usual answer, without building both canonical forms
        return True
    a, b = canonical(old), canonical(new)
    empty: tuple[Any, ...] = (None, {}, [])
    if a in empty and b in empty:
        return True
    return bool(a == b)


def secret_values(data: Mapping[str, Any] | None) -> set[str]:
    """The values of a job's secret inputs (``fields.SECRET_INPUTS``: environment variables), from its
    declared inputs or from a resource's outputs (their ``declared_inputs``): what ``redact`` must hide from a
    text quoting the service, which may echo the request."""
    # The texts the secret paths hold, less those also given elsewhere among the inputs: such a text is not a
    # secret of the state, so it is left alone.
    if not isinstance(data, Mapping):
        return set()
    found = _strings(secret_paths.found(data)) - _strings(secret_paths.without(data))
    declared = data.get(DECLARED_INPUTS)
    return found | secret_values(declared) if isinstance(declared, Mapping) else found


def _strings(value: Any) -> set[str]:
    """Every text among the values (not the keys) of plain data."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found

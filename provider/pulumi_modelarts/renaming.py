"""Schema names <-> wire names: the native plugin's schema names properties in camelCase (``nodeCount``),
while ``core`` and the API speak the wire's names (``node_count``).

Values are walked by the generated types of ``schema_names``: only the properties of object types are
renamed, never the keys of maps (environment variables, annotations: the user's) or anything inside a value of
any type. A key that is not a property of its type passes unchanged (core then reports it, with the path the
user wrote). Paths (``spec.resource.nodeCount``, ``tasks[0].role``) and the names a check failure's reason
mentions are renamed the same way.

Plain data only, and pure: the plugin reads the engine's values and renames them in one walk
(``plugin.wire_inputs``) over ``wire_table``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import schema_names

__all__ = ["rename", "schema_failure", "schema_path", "to_schema", "to_wire", "wire_table"]


def wire_table() -> dict[str, dict[str, tuple[str, str]]]:
    """schema_names.TYPES the other way round: per object type, schema name -> (wire name, value's type)."""
    global _WIRE_TABLE
    if _WIRE_TABLE is None:
        _WIRE_TABLE = {
            type_: {schema: (wire, inner) for wire, (schema, inner) in props.items()}
            for type_, props in schema_names.TYPES.items()
        }
    return _WIRE_TABLE


_WIRE_TABLE: dict[str, dict[str, tuple[str, str]]] | None = None


def rename(value: Any, shape: str, table: Mapping[str, Mapping[str, tuple[str, str]]]) -> Any:
    # A value with no names inside ("") is kept as it is; dicts are checked for first (the ABC check is slow).
    if shape.startswith("[]"):
        inner = shape[2:]
        return [rename(v, inner, table) for v in value] if inner and isinstance(value, list) else value
    if not isinstance(value, dict) and not isinstance(value, Mapping):
        return value
    if shape.startswith("{}"):
        inner = shape[2:]
        return {k: rename(v, inner, table) for k, v in value.items()} if inner else value
    props = table.get(shape)
    if props is None:
        return value
    renamed: dict[str, Any] = {}
    for key, item in value.items():
        if key in props:
            name, inner = props[key]
            renamed[name] = rename(item, inner, table) if inner else item
        else:
            # Should an unknown key be the other name of a known property also given, the known one wins.
            renamed.setdefault(key, item)
    return renamed


def to_wire(value: Mapping[str, Any], root: str) -> dict[str, Any]:
    """Plain data with schema names (as the engine sends it) as core wants it, with wire names."""
    renamed: dict[str, Any] = rename(value, root, wire_table())
    return renamed


def to_schema(value: Mapping[str, Any], root: str) -> dict[str, Any]:
    """Plain data with wire names (as core answers) as the engine wants it, with schema names."""
    renamed: dict[str, Any] = rename(value, root, schema_names.TYPES)
    return renamed


_SEGMENT = re.compile(r"""\.?([^.\[]+)|\[(\d+|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]""")


def schema_path(path: str, root: str = schema_names.INPUTS) -> str:
    """A path in wire names as core reports it (``spec.resource.node_count``, ``tasks[0].role``) in schema
    names (``spec.resource.nodeCount``): the path the user wrote. Map keys and unknown names are kept."""
    return _walk(path, root)[0]


def _walk(path: str, root: str) -> tuple[str, str, str]:
    """(the path in schema names, the type of what it names, the type of the object holding that); a type
    is "" where the path leaves the known types (an unknown name, a map key, a value of any type)."""
    shape, holder, done, at = root, "", "", 0
    while at < len(path):
        found = _SEGMENT.match(path, at)
        if found is None:
            return done + path[at:], "", ""
        name, index = found.group(1), found.group(2)
        holder = shape
        if index is not None or shape.startswith("{}") or name is None:
            if shape == "{}" and index is None:
                return done + path[at:], "", holder  # a map of plain values: the rest is the user's key
            done += found.group(0)
            shape = shape[2:] if shape.startswith(("[]", "{}")) else ""
        else:
            entry = schema_names.TYPES.get(shape, {}).get(name)
            if entry is None:
                return done + path[at:], "", holder
            done += found.group(0).replace(name, entry[0])
            shape = entry[1]
        at = found.end()
    return done, shape, holder


# A name or dotted path in a reason (``image_url``, ``engine.image_url``); only those with an underscore
# differ between the two.
_NAME = re.compile(r"(?<![\w./-])[a-z][A-Za-z0-9_]*(?:\.[a-z][A-Za-z0-9_]*)*")


def schema_failure(path: str, reason: str) -> tuple[str, str]:
    """A check failure of core (path and reason in wire names) in the names the user wrote: the path, and
    each name in the reason of a property of the object the path names or of the object holding it (a rule
    naming fields of its object, a sibling, a "did you mean" hint, the accepted top-level properties)."""
    shown, shape, holder = _walk(path, schema_names.INPUTS)
    scopes = [t for t in (shape, holder) if t in schema_names.TYPES]

    def rename(found: re.Match[str]) -> str:
        words = found.group(0)
        if "_" not in words:
            return words
        for scope in scopes:
            if words.partition(".")[0] in schema_names.TYPES[scope]:
                return _walk(words, scope)[0]
        return words

    return shown, _NAME.sub(rename, reason)

"""Schema names <-> wire names: the native plugin's schema names properties in camelCase (``nodeCount``),
while ``core`` and the API speak the wire's names (``node_count``).

Values are walked by the generated types of ``schema_names``: only the properties of object types are
renamed, never the keys of maps (environment variables, annotations: the user's) or anything inside a value of
any type. A key that is not a property of its type passes unchanged (core then reports it, with the path the
user wrote). Paths (``spec.resource.nodeCount``, ``tasks[0].role``) and the names a check failure's reason
mentions are renamed the same way.

Pure, and one walk (``rename``) for every representation: plain data, and the native plugin's
``PropertyValue``s, which ``native_values`` reads and renames in one pass over ``wire_table`` (``Values`` says
how a representation is read).

The dynamic provider's plain dicts are Python's: Pulumi's Python SDKs spell every property in snake_case
(``node_selector_terms``), also where the wire spells it in camelCase (``nodeSelectorTerms``).
``from_python`` takes either spelling to the wire's, by the same generated types (``python_name`` of each
schema name), and ``as_written`` shows a failure in the spelling the program used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..generated import schema_names

__all__ = [
    "PLAIN_VALUES",
    "Values",
    "as_written",
    "from_python",
    "python_name",
    "rename",
    "rename_fields",
    "schema_failure",
    "schema_path",
    "spelled_twice",
    "to_schema",
    "to_wire",
    "wire_table",
]


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


class Values(NamedTuple):
    """How one representation of values is read by ``rename``: plain data (``PLAIN_VALUES``), or the native
    plugin's ``PropertyValue``s (``native_values``), which are renamed in the same walk that reads them."""

    #: The fields of an object or map value (keyed by name), or None when it is not one.
    fields: Callable[[Any], Mapping[Any, Any] | None]
    #: The items of a list value, or None when it is not one.
    items: Callable[[Any], Sequence[Any] | None]
    #: A value with no names to rename inside it, as plain data.
    plain: Callable[[Any], Any]


def _plain_fields(value: Any) -> Mapping[Any, Any] | None:
    # dict first: the ABC check is slow, and this runs for every value.
    if not isinstance(value, dict) and not isinstance(value, Mapping):
        return None
    return value


def _plain_items(value: Any) -> Sequence[Any] | None:
    return value if isinstance(value, list) else None


def _same(value: Any) -> Any:
    return value


PLAIN_VALUES = Values(_plain_fields, _plain_items, _same)


def rename(
    value: Any,
    shape: str,
    table: Mapping[str, Mapping[str, tuple[str, str]]],
    values: Values = PLAIN_VALUES,
) -> Any:
    """value (of the type shape names) as plain data, each property of an object type renamed by table; a
    value not of its shape's kind, or with no names inside, is only read (``values.plain``)."""
    if shape[:2] == "[]":
        inner = shape[2:]
        items = values.items(value) if inner else None
        return values.plain(value) if items is None else [rename(v, inner, table, values) for v in items]
    fields = values.fields(value)
    if fields is None:
        return values.plain(value)
    if shape[:2] == "{}":
        inner = shape[2:]
        if not inner:
            return values.plain(value)
        return {k: rename(v, inner, table, values) for k, v in fields.items()}
    props = table.get(shape)
    return values.plain(value) if props is None else rename_fields(fields, props, table, values)


def rename_fields(
    fields: Mapping[Any, Any],
    props: Mapping[str, tuple[str, str]],
    table: Mapping[str, Mapping[str, tuple[str, str]]],
    values: Values = PLAIN_VALUES,
) -> dict[str, Any]:
    """The fields of an object whose properties are props, renamed (``rename``)."""
    renamed: dict[str, Any] = {}
    for key, item in fields.items():
        entry = props.get(key)
        if entry is None:
            # Should an unknown key be the other name of a known property also given, the known one wins.
            renamed.setdefault(key, values.plain(item))
        else:
            name, inner = entry
            renamed[name] = rename(item, inner, table, values) if inner else values.plain(item)
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


# Pulumi's Python name of a camelCase property: an underscore before each capital that follows a lower-case
# letter or a digit, then all lower case (``i18nDescription`` -> ``i18n_description``).
_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


def python_name(schema_name: str) -> str:
    """How Pulumi's Python SDKs spell a schema property (``nodeSelectorTerms`` -> ``node_selector_terms``)."""
    return _HUMP.sub(r"_\1", schema_name).lower()


def python_table() -> dict[str, dict[str, tuple[str, str]]]:
    """Per object type, each spelling a Python program may use -> (wire name, value's type): the wire name
    itself, and the Python name of its schema name where that differs."""
    global _PYTHON_TABLE
    if _PYTHON_TABLE is None:
        table: dict[str, dict[str, tuple[str, str]]] = {}
        for type_, props in schema_names.TYPES.items():
            spellings = {wire: (wire, inner) for wire, (_schema, inner) in props.items()}
            for wire, (schema, inner) in props.items():
                spellings.setdefault(python_name(schema), (wire, inner))
            table[type_] = spellings
        _PYTHON_TABLE = table
    return _PYTHON_TABLE


_PYTHON_TABLE: dict[str, dict[str, tuple[str, str]]] | None = None


def from_python(value: Mapping[str, Any], root: str = schema_names.INPUTS) -> dict[str, Any]:
    """A Python program's plain data (snake_case or the wire's spelling, at any level) with wire names."""
    renamed: dict[str, Any] = rename(value, root, python_table())
    return renamed


def spelled_twice(value: Any, shape: str = schema_names.INPUTS, path: str = "") -> list[tuple[str, str]]:
    """(path, reason) for each property a Python program gave in both spellings (``node_selector_terms``
    and ``nodeSelectorTerms``): from_python would keep only one of them."""
    if shape.startswith("[]"):
        inner = shape[2:]
        if not inner or not isinstance(value, list):
            return []
        return [found for i, v in enumerate(value) for found in spelled_twice(v, inner, f"{path}[{i}]")]
    if not isinstance(value, Mapping):
        return []
    if shape.startswith("{}"):
        inner = shape[2:]
        if not inner:
            return []
        return [f for k, v in value.items() for f in spelled_twice(v, inner, f"{path}[{_quoted(k)}]")]
    props = python_table().get(shape, {})
    found: list[tuple[str, str]] = []
    first: dict[str, str] = {}
    for key, item in value.items():
        entry = props.get(key)
        if entry is None:
            continue
        wire, inner = entry
        here = f"{path}.{key}" if path else str(key)
        if wire in first:
            found.append((here, f"also given as {first[wire]!r}; give one of the two spellings"))
            continue
        first[wire] = key
        found.extend(spelled_twice(item, inner, here))
    return found


def _quoted(key: object) -> str:
    return f'"{key}"' if isinstance(key, str) else str(key)


def as_written(path: str, reason: str, given: Any, root: str = schema_names.INPUTS) -> tuple[str, str]:
    """A failure of core (path and reason in wire names) in the spelling the program used for each property
    on the path; a property it did not write keeps the spelling its neighbours use (the wire's when they do
    not tell). Names in the reason (a "did you mean" hint) follow the spelling of the path's last property."""
    shape, done, at, pythonic = root, "", 0, False
    value: Any = given
    holder = ""
    while at < len(path):
        found = _SEGMENT.match(path, at)
        if found is None:
            return done + path[at:], reason
        name, index = found.group(1), found.group(2)
        holder = shape
        if index is not None or shape.startswith("{}") or name is None:
            done += found.group(0)
            value = _item(value, index)
            shape = shape[2:] if shape.startswith(("[]", "{}")) else ""
        else:
            props = python_table().get(shape, {})
            entry = props.get(name)
            written = _spelling(name, props, value, pythonic)
            pythonic = _pythonic(written, props, pythonic)
            done += found.group(0).replace(name, written)
            value = value.get(written) if isinstance(value, Mapping) else None
            shape = entry[1] if entry is not None else ""
        at = found.end()
    return done, _reason_spelled(reason, (shape, holder), pythonic)


def _item(value: Any, index: str | None) -> Any:
    if index is None or not isinstance(value, (list, Mapping)):
        return None
    if index.isdigit():
        i = int(index)
        return value[i] if isinstance(value, list) and i < len(value) else None
    key = index[1:-1]
    return value.get(key) if isinstance(value, Mapping) else None


def _spelling(wire: str, props: Mapping[str, tuple[str, str]], given: Any, pythonic: bool) -> str:
    """How the program spelled the property with this wire name: as found among the given keys; else the
    Python spelling when the program writes Python's spellings (its neighbours or the path so far do)."""
    spellings = [key for key, (name, _inner) in props.items() if name == wire]
    keys = given.keys() if isinstance(given, Mapping) else ()
    for key in keys:
        if key in spellings:
            return str(key)
    python = next((s for s in spellings if s != wire), None)
    if python is None:
        return wire
    styles = {_pythonic(str(k), props, pythonic) for k in keys if _tells(str(k), props)}
    if styles == {True} or (not styles and pythonic):
        return python
    return wire


def _tells(key: str, props: Mapping[str, tuple[str, str]]) -> bool:
    """Whether a key's spelling tells Python's from the wire's: a property spelled two ways, or a key that is
    no property (a misspelling) with an underscore or a capital in it."""
    entry = props.get(key)
    if entry is None:
        return "_" in key or not key.islower()
    return python_name(entry[0]) != entry[0]


def _pythonic(written: str, props: Mapping[str, tuple[str, str]], before: bool) -> bool:
    """Whether the program writes Python's spellings, after this key: a key spelled alike both ways (most
    are) tells nothing; a key that is no property tells by its underscores or capitals."""
    entry = props.get(written)
    if entry is None:
        return "_" in written or (before and written.islower())
    if python_name(entry[0]) == entry[0]:
        return before
    return written != entry[0]


def _reason_spelled(reason: str, scopes: tuple[str, str], pythonic: bool) -> str:
    """The reason with the wire's spellings of the properties of the object the path names, or of the object
    holding it, in Python's, for a program that writes those."""
    if not pythonic:
        return reason
    python = {
        wire: key
        for scope in scopes
        for key, (wire, _inner) in python_table().get(scope.removeprefix("[]"), {}).items()
        if key != wire
    }
    if not python:
        return reason
    alternatives = "|".join(map(re.escape, sorted(python, key=len, reverse=True)))
    words = re.compile(rf"(?<!\w)({alternatives})(?!\w)")
    return words.sub(lambda m: python[m.group(1)], reason)

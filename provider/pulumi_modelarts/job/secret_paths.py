"""Where the secret inputs are (``fields.SECRET_INPUTS``: the environment variables) and the one walker of
those paths, for every representation of a job's inputs. Pure; imports nothing heavy.

A path is parsed once into parts, ``ITEMS`` standing for every item of a list:
``"tasks[].algorithm.environments"`` -> ``("tasks", "[]", "algorithm", "environments")``. ``rewrite`` follows
one path through a value, stepping as a ``Steps`` says for its representation (plain data, rpc-wrapped plain
data, ``pulumi.Output``s and typed Args, ``PropertyValue``s, response models), and replaces what the path
leads to. A part that is absent, not known yet or of another shape ends the walk there, the value kept.
On it: ``mark`` (each front-end marks its secrets), ``without`` (plain data with them removed) and ``found``
(the values they hold).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from ..generated.fields import SECRET_INPUTS

__all__ = [
    "ATTRIBUTES",
    "ENVIRONMENTS",
    "ITEMS",
    "JOB_ENVIRONMENTS",
    "PLAIN",
    "SECRET_PATHS",
    "Path",
    "Steps",
    "found",
    "mark",
    "parse",
    "renamed",
    "rewrite",
    "without",
]

V = TypeVar("V")
Path = tuple[str, ...]
ITEMS: Final = "[]"


def parse(path: str) -> Path:
    """``"tasks[].algorithm.environments"`` -> ``("tasks", "[]", "algorithm", "environments")``."""
    parts: list[str] = []
    for piece in path.split("."):
        name = piece.removesuffix(ITEMS)
        parts.append(name)
        if name != piece:
            parts.append(ITEMS)
    return tuple(parts)


def renamed(rename: Callable[[str], str], paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """paths renamed by rename, which takes and gives a dotted path with item indexes (``tasks[0].role``), as
    ``renaming.schema_path`` does: how the native plugin gets the paths in schema names."""
    indexed = (".".join(path).replace(f".{ITEMS}", "[0]") for path in paths)
    return tuple(parse(rename(text).replace("[0]", ITEMS)) for text in indexed)


#: The secret inputs, in wire names, parsed once.
SECRET_PATHS: Final[tuple[Path, ...]] = tuple(parse(path) for path in SECRET_INPUTS)
#: Where environment variables are declared: the secret inputs named ``environments`` (all of them today).
ENVIRONMENTS: Final[tuple[Path, ...]] = tuple(path for path in SECRET_PATHS if path[-1] == "environments")
#: The job's own environment (``algorithm.environments``): the one path through no list of tasks.
JOB_ENVIRONMENTS: Final[Path] = next(path for path in ENVIRONMENTS if ITEMS not in path)


@dataclass(frozen=True)
class Steps(Generic[V]):
    """How to step into one representation. ``field(value, name, inner)`` is value with its field name
    replaced by inner(that field); ``items(value, inner)`` is value with each item replaced by inner(item).
    Either returns value as it is when it holds no such field or items (absent, unknown, another shape)."""

    field: Callable[[V, str, Callable[[V], V]], V]
    items: Callable[[V, Callable[[V], V]], V]


def rewrite(value: V, path: Path, steps: Steps[V], leaf: Callable[[V], V]) -> V:
    """value with what path leads to replaced by leaf(it)."""
    if not path:
        return leaf(value)
    head, rest = path[0], path[1:]

    def inner(child: V) -> V:
        return rewrite(child, rest, steps, leaf)

    return steps.items(value, inner) if head == ITEMS else steps.field(value, head, inner)


def mark(
    inputs: Mapping[str, V],
    steps: Steps[V],
    secret: Callable[[V], V],
    paths: tuple[Path, ...] = SECRET_PATHS,
) -> dict[str, V]:
    """A resource's inputs (top-level properties, each a value of steps' representation) with every secret
    input replaced by secret(it)."""
    marked = dict(inputs)
    for top, *rest in paths:
        if top in marked:
            marked[top] = rewrite(marked[top], tuple(rest), steps, secret)
    return marked


# ---------------------------------------------------------------------------------------------------------
# Plain data (dicts and lists) and response models (attributes)


def _plain_field(value: Any, name: str, inner: Callable[[Any], Any]) -> Any:
    if not isinstance(value, Mapping) or name not in value:
        return value
    child = value[name]
    new = inner(child)
    # Nothing replaced (a read, or nothing found further down): no copy.
    return value if new is child else {**value, name: new}


def _plain_items(value: Any, inner: Callable[[Any], Any]) -> Any:
    if not isinstance(value, (list, tuple)):
        return value
    new = [inner(item) for item in value]
    return value if all(a is b for a, b in zip(new, value, strict=True)) else new


def _attribute(value: Any, name: str, inner: Callable[[Any], Any]) -> Any:
    child = getattr(value, name, None)
    if child is not None:
        inner(child)
    return value


#: Plain data: mappings and lists (or tuples), copied along the path where something is replaced.
PLAIN: Final[Steps[Any]] = Steps(_plain_field, _plain_items)
#: Read only: objects with attributes (the response models), and lists. Nothing is replaced.
ATTRIBUTES: Final[Steps[Any]] = Steps(_attribute, _plain_items)


def without(value: Any, paths: tuple[Path, ...] = SECRET_PATHS) -> Any:
    """Plain data without what paths lead to (the caller's value left alone)."""
    for *holder, name in paths:
        value = rewrite(value, tuple(holder), PLAIN, _dropping(name))
    return value


def _dropping(name: str) -> Callable[[Any], Any]:
    def drop(held: Any) -> Any:
        if not isinstance(held, Mapping) or name not in held:
            return held
        return {k: v for k, v in held.items() if k != name}

    return drop


def found(value: Any, paths: tuple[Path, ...] = SECRET_PATHS, steps: Steps[Any] = PLAIN) -> list[Any]:
    """The values paths lead to in value (plain data, or a response model with ``ATTRIBUTES``), None left
    out, in the order of paths."""
    values: list[Any] = []

    def keep(leaf: Any) -> Any:
        if leaf is not None:
            values.append(leaf)
        return leaf

    for path in paths:
        rewrite(value, path, steps, keep)
    return values

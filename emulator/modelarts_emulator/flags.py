"""Command-line flags into settings: the checks of a number a flag takes, and a settings dataclass built from
the parsed flags by name (``from_flags``), so that a setting needs its field and its flag, and no code copies
one into the other.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["from_flags", "positive_seconds", "rate", "seconds"]

_T = TypeVar("_T")


def _number(text: str, fits: Callable[[float], bool], otherwise: str) -> float:
    value = float(text)
    if not fits(value):
        raise argparse.ArgumentTypeError(otherwise)
    return value


def rate(text: str) -> float:
    """A share of requests: 0 to 1."""
    return _number(text, lambda value: 0.0 <= value <= 1.0, "must be between 0 and 1")


def seconds(text: str) -> float:
    """A duration that may be nothing: 0 or more."""
    return _number(text, lambda value: value >= 0, "must be 0 or more")


def positive_seconds(text: str) -> float:
    """A lifetime: more than 0."""
    return _number(text, lambda value: value > 0, "must be more than 0")


def from_flags(settings: type[_T], args: argparse.Namespace, *, suffix: str = "", **given: Any) -> _T:
    """The dataclass settings with each field from the parsed flag whose destination is its name (with
    suffix: ``creating`` from ``--creating-seconds``), a repeated flag's list as a tuple; the fields in given
    as given, and a field no flag sets at its default."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(settings):  # type: ignore[arg-type]
        if field.name in given:
            values[field.name] = given[field.name]
        elif hasattr(args, field.name + suffix):
            value = getattr(args, field.name + suffix)
            values[field.name] = tuple(value) if isinstance(value, list) else value
    return settings(**values)

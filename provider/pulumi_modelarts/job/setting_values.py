"""The provider settings' values and their rules, pure: the ``wait_for`` targets and ``on_destroy`` choices
(case-insensitive, declared on the settings model and generated into ``fields``), and durations such as
``wait_timeout`` (90, "90s", "30m", "1h30m"). What a target means for a job in a phase is
``waiting.targets``'s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from ..generated.fields import SETTING_CHOICES, SETTING_DEFAULTS

__all__ = [
    "DEFAULT_WAIT_FOR",
    "DEFAULT_WAIT_TIMEOUT_SECONDS",
    "MAX_WAIT_TIMEOUT_SECONDS",
    "ON_DESTROY_CHOICES",
    "WAIT_FOR_CHOICES",
    "WaitFor",
    "deletes_record",
    "parse_duration",
    "parse_on_destroy",
    "parse_wait_for",
]

# The longest wait_timeout accepted: a week covers any sane deployment and keeps arithmetic finite.
MAX_WAIT_TIMEOUT_SECONDS = 7 * 24 * 3600.0


#: The wait_for targets: the choices of the settings model (``ProviderSettings.wait_for``, via fields.py).
WAIT_FOR_CHOICES: Final = SETTING_CHOICES["wait_for"]


#: A wait_for target, one of WAIT_FOR_CHOICES (``parse_wait_for``); ``classify`` says what each means.
WaitFor: TypeAlias = str


def _choice(value: object, choices: tuple[str, ...]) -> str:
    """The choice named by value (case-insensitive); ValueError listing the choices otherwise."""
    if isinstance(value, str) and value.strip().lower() in choices:
        return value.strip().lower()
    listed = ", ".join(repr(choice) for choice in choices)
    raise ValueError(f"must be one of {listed}, got {_short_repr(value)}")


def parse_wait_for(value: object) -> WaitFor:
    """The target named by value (case-insensitive); ValueError listing the choices otherwise."""
    return _choice(value, WAIT_FOR_CHOICES)


# The defaults are declared once, on the settings model (generated into fields.SETTING_DEFAULTS).
DEFAULT_WAIT_FOR: Final = parse_wait_for(SETTING_DEFAULTS["wait_for"])


#: What destroy may do with a job: the choices of the settings model (``ProviderSettings.on_destroy``).
ON_DESTROY_CHOICES: Final = SETTING_CHOICES["on_destroy"]


def parse_on_destroy(value: object) -> str:
    """The choice named by value (case-insensitive); ValueError listing the choices otherwise."""
    return _choice(value, ON_DESTROY_CHOICES)


def deletes_record(declared: Mapping[str, Any]) -> bool:
    """Whether destroying the job declared so deletes its record too: ``on_destroy: delete``, or its older
    spelling ``keep_record: false``. (The declared value stays as written: any case.)"""
    chosen = declared.get("on_destroy")
    if isinstance(chosen, str) and chosen.strip().lower() == "delete":
        return True
    return declared.get("keep_record") is False


_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)(h|m|s)")


def parse_duration(value: object) -> float:
    """Seconds in value: a positive number of seconds, or a string like "90", "90s", "30m", "1h30m", "1.5h".

    Raises ValueError in plain words otherwise (zero, negative, infinite, unknown units, over a week).
    """
    if isinstance(value, bool):
        raise ValueError(f'must be a number of seconds or a duration such as "30m", got {value!r}')
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        if not text:
            raise ValueError('must not be empty: give seconds or a duration such as "30m" or "1h30m"')
        try:
            seconds = float(text)
        except ValueError:
            seconds = _parse_units(text, value)
    else:
        raise ValueError(f'must be a number of seconds or a duration such as "30m", got {_short_repr(value)}')
    if math.isnan(seconds) or math.isinf(seconds):
        raise ValueError(f"must be a finite duration, got {_short_repr(value)}")
    if seconds <= 0:
        raise ValueError(f"must be positive, got {_short_repr(value)}")
    if seconds > MAX_WAIT_TIMEOUT_SECONDS:
        raise ValueError(f"must be at most one week (604800 seconds), got {_short_repr(value)}")
    return seconds


def _parse_units(text: str, original: object) -> float:
    pos = 0
    total = 0.0
    seen: list[str] = []
    for match in _DURATION_RE.finditer(text):
        if match.start() != pos:
            break
        unit = match.group(2)
        if unit in seen or (seen and "hms".index(unit) <= "hms".index(seen[-1])):
            raise ValueError(
                f"{_short_repr(original)} is not a duration: "
                "use the units h, m and s at most once each, in that order"
            )
        seen.append(unit)
        total += float(match.group(1)) * {"h": 3600.0, "m": 60.0, "s": 1.0}[unit]
        pos = match.end()
    if pos != len(text) or not seen:
        raise ValueError(
            f"{_short_repr(original)} is not a duration: use seconds (e.g. 90) or units h/m/s "
            '(e.g. "90s", "30m", "1h30m")'
        )
    return total


def _short_repr(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


DEFAULT_WAIT_TIMEOUT_SECONDS = parse_duration(SETTING_DEFAULTS["wait_timeout"])

"""Values not known yet, at the dynamic provider's edge: Pulumi hands a dynamic provider an unknown as
``pulumi.output.Unknown`` (newer SDKs) or as its protocol's sentinel text (``rpc.UNKNOWN``); the job layer
knows only its own marker (``normalising.NOT_KNOWN``). ``taken_in`` turns Pulumi's into the job's as inputs
come in; ``given_out`` turns the job's into Pulumi's as they go back (a name not known yet at preview). The
native plugin's values meet the same marker in ``native_values`` (``Computed``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pulumi.output import UNKNOWN, Unknown
from pulumi.runtime import rpc

from ..job.normalising import NOT_KNOWN

__all__ = ["given_out", "taken_in"]


def taken_in(value: Any) -> Any:
    """value with each of Pulumi's unknowns, at any depth, the job layer's NOT_KNOWN."""
    return _leaves(value, _job_marker)


def given_out(value: Any) -> Any:
    """value with each NOT_KNOWN, at any depth, Pulumi's unknown (which the provider host sends as one)."""
    return _leaves(value, _pulumi_unknown)


def _job_marker(value: Any) -> Any:
    if isinstance(value, Unknown) or (type(value) is str and value == rpc.UNKNOWN):
        return NOT_KNOWN
    return value


def _pulumi_unknown(value: Any) -> Any:
    return UNKNOWN if value is NOT_KNOWN else value


def _leaves(value: Any, change: Callable[[Any], Any]) -> Any:
    """value with change applied to each value that is neither a mapping nor a list, at any depth."""
    if isinstance(value, Mapping):
        return {k: _leaves(v, change) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_leaves(v, change) for v in value]
    return change(value)

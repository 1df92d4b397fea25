"""Values not known yet, at the dynamic provider's edge: Pulumi hands a dynamic provider an unknown as
``pulumi.output.Unknown`` (newer SDKs) or as its protocol's sentinel text (``rpc.UNKNOWN``); the job layer
knows only its own marker (``normalising.NOT_KNOWN``). ``taken_in`` turns Pulumi's into the job's as inputs
come in; ``given_out`` turns the job's into Pulumi's as they go back (a name not known yet at preview). The
native plugin's values meet the same marker in ``native_values`` (``Computed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi.output import UNKNOWN, Unknown
from pulumi.runtime import rpc

from ..job.normalising import NOT_KNOWN

__all__ = ["given_out", "taken_in"]


def taken_in(value: Any) -> Any:
    """value with each of Pulumi's unknowns, at any depth, the job layer's NOT_KNOWN."""
    kind = type(value)
    if kind is str:
        return NOT_KNOWN if value == rpc.UNKNOWN else value
    if kind is bool or kind is int or kind is float or value is None:
        return value
    if isinstance(value, Unknown):
        return NOT_KNOWN
    if isinstance(value, Mapping):
        return {k: taken_in(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [taken_in(v) for v in value]
    return value


def given_out(value: Any) -> Any:
    """value with each NOT_KNOWN, at any depth, Pulumi's unknown (which the provider host sends as one)."""
    if value is NOT_KNOWN:
        return UNKNOWN
    if isinstance(value, Mapping):
        return {k: given_out(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [given_out(v) for v in value]
    return value

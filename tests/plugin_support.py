"""Support for the tests that call the native plugin (``pulumi_modelarts.frontends.plugin``) directly: a
resource's URN, running one of its coroutines, the state a created job leaves, a diff against it, and the
lines it logs.

Kept apart from tests/support.py, which loads no provider code (bench/ imports that one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

import pytest
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import DiffRequest, DiffResponse, PropertyDiffKind

from pulumi_modelarts.frontends import plugin
from pulumi_modelarts.frontends.engine import EngineLog
from pulumi_modelarts.frontends.native_values import property_map

__all__ = ["URN", "declared_state", "diff", "diff_kinds", "engine_log", "run"]

T = TypeVar("T")

URN = "urn:pulumi:dev::proj::modelarts:index:TrainingJob::train"


def run(coro: Coroutine[Any, Any, T]) -> T:
    """The answer of one of the provider's coroutines.

    A private loop, not asyncio.run: that leaves the main thread without a current loop, which breaks tests
    after this one that use Pulumi's mocks (they ask for the current loop).
    """
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def declared_state(declared: Mapping[str, Any]) -> dict[str, PropertyValue]:
    """The state of a running job (id "j") created from these declared inputs (schema names)."""
    return property_map({"phase": "Running", "metadata": {"id": "j"}, "declaredInputs": declared})


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> DiffResponse:
    """A new provider's diff of a job created from old (declared inputs) against new inputs (schema names)."""
    request = DiffRequest(URN, "j", declared_state(old), property_map(dict(new)), [])
    return run(plugin.ModelArtsProvider().diff(request))


def diff_kinds(answer: DiffResponse) -> dict[str, PropertyDiffKind]:
    """Each property a diff names, with its kind of change."""
    return {key: value.kind for key, value in (answer.detailed_diff or {}).items()}


def engine_log(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, bool]]:
    """The lines the providers log on the engine from now to the end of the test, as (urn, line, warning),
    in place of sending them."""
    logged: list[tuple[str, str, bool]] = []

    def log(self: EngineLog, urn: str, line: str, *, warning: bool = False, **_how: Any) -> None:
        logged.append((urn, line, warning))

    monkeypatch.setattr(EngineLog, "log", log)
    monkeypatch.setattr(EngineLog, "log_now", log)  # a plugin's last words
    return logged

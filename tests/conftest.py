"""Shared fixtures: a real emulator server process per test, with sub-second lifecycle timings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pulumi_modelarts.emulator.testing import EmulatorProcess, start_emulator

# Each phase lasts 0.2 s so lifecycle tests finish quickly; override per test through emulator_factory.
FAST_TIMINGS: dict[str, Any] = {
    "creating_seconds": 0.2,
    "pending_seconds": 0.2,
    "running_seconds": 0.2,
    "terminating_seconds": 0.2,
}


@pytest.fixture
def emulator_factory() -> Iterator[Callable[..., EmulatorProcess]]:
    """Start emulators with custom flags (fast timings unless overridden); all are stopped after the test."""
    started: list[EmulatorProcess] = []

    def start(**flags: Any) -> EmulatorProcess:
        emu = start_emulator(**{**FAST_TIMINGS, **flags})
        started.append(emu)
        return emu

    yield start
    for emu in started:
        emu.stop()


@pytest.fixture
def emulator(emulator_factory: Callable[..., EmulatorProcess]) -> EmulatorProcess:
    """A fresh emulator with fast timings and no faults."""
    return emulator_factory()

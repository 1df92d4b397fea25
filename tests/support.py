"""Test support shared by the unit tests, the CLI tests and bench/: polling, and an emulator's environment.

Imported as ``tests.support`` (``tests`` is a package), from pytest and from ``python -m bench.bench`` alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from modelarts_emulator.testing import EmulatorProcess

__all__ = ["POLL_SECONDS_ENV", "emulator_env", "poll"]

T = TypeVar("T")

# The provider's poll knob (pulumi_modelarts.wait); spelled out so that this module loads no provider code.
POLL_SECONDS_ENV = "PULUMI_MODELARTS_POLL_SECONDS"


def poll(
    read: Callable[[], T],
    done: Callable[[T], bool],
    *,
    timeout: float,
    what: str,
    interval: float = 0.05,
) -> T:
    """read() until done(value) holds, and that value; AssertionError naming `what` past the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still not there after {timeout}s (last seen: {value!r:.500})")
        time.sleep(interval)


def emulator_env(emu: EmulatorProcess, poll_seconds: str | None = None) -> dict[str, str]:
    """The variables that point the provider at emu, and the provider's poll interval when given."""
    env = emu.provider_env()
    if poll_seconds is not None:
        env[POLL_SECONDS_ENV] = poll_seconds
    return env

"""The job room's fixtures: the provider's fast polls, and a client of core on the emulator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.job import core
from pulumi_modelarts.wire.api import ModelArtsAPI

from ..support import FAST_POLL_SECONDS, POLL_SECONDS_ENV, ProgressLines


@pytest.fixture
def fast_polls(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The provider polls every FAST_POLL_SECONDS; for a whole module: ``pytestmark =
    pytest.mark.usefixtures("fast_polls")``."""
    monkeypatch.setenv(POLL_SECONDS_ENV, FAST_POLL_SECONDS)
    yield


@pytest.fixture
def client(emulator: EmulatorProcess) -> Iterator[ModelArtsAPI]:
    """core's client for the emulator, opened as a front-end opens it (a module may override the emulator by
    overriding this fixture)."""
    with core.open_client({}, ProgressLines(), emulator.provider_env()) as opened:
        yield opened

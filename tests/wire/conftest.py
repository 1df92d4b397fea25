"""The wire room's fixture: clients of the scripted server, on each module's defaults."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.transport import Transport

from ..httpserver import ScriptedServer
from .scripted_service import PROJECT


@pytest.fixture
def client_defaults() -> dict[str, Any]:
    """What ``make_client`` passes beyond the server's endpoint: a module overrides this fixture with its own
    (its keys, retries, clock and log)."""
    return {}


@pytest.fixture
def make_client(
    server: ScriptedServer, client_defaults: dict[str, Any]
) -> Iterator[Callable[..., ModelArtsAPI]]:
    """make(**overrides): a client of the scripted server for PROJECT, with a 5 s timeout and the module's
    client_defaults, overrides winning; every client made is closed after the test."""
    made: list[ModelArtsAPI] = []

    def make(**overrides: Any) -> ModelArtsAPI:
        kwargs = {
            "endpoint": server.url,
            "project_id": PROJECT,
            "timeout": 5.0,
            **client_defaults,
            **overrides,
        }
        made.append(ModelArtsAPI(Transport(**kwargs)))
        return made[-1]

    yield make
    for client in made:
        client.close()

"""Item 5: hostile or broken answers reach the provider as clear errors, never as crashes or bad state.

The provider's read/create/delete/update are driven against tests/httpserver.py (a real HTTP server on
loopback answering what each test scripts); the CLI half (refresh against a garbage server keeps the state)
is in tests/cli/test_hostile_cli.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from httpserver import ScriptedServer, json_reply
from pulumi_modelarts import client as client_module
from pulumi_modelarts import provider as provider_module
from pulumi_modelarts.errors import ModelArtsError
from pulumi_modelarts.provider import TrainingJobProvider

PROJECT = "0123456789abcdef0123456789abcdef"
SECRET = "hostile-secret-key-VALUE"
JOB_ID = "11111111-2222-3333-4444-555555555555"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    for name in list(__import__("os").environ):
        if name.startswith(("HW_", "HUAWEICLOUD_SDK_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv(provider_module.POLL_SECONDS_ENV, "0.01")
    # Retries keep their real count; only the pause between them is removed.
    monkeypatch.setattr(client_module.ModelArtsClient, "_backoff", lambda self, attempt, retry_after: 0.0)
    with ScriptedServer() as srv:
        monkeypatch.setenv("HW_MODELARTS_ENDPOINT", srv.url)
        monkeypatch.setenv("HW_ACCESS_KEY", "HOSTILEAK")
        monkeypatch.setenv("HW_SECRET_KEY", SECRET)
        monkeypatch.setenv("HW_PROJECT_ID", PROJECT)
        provider_module.set_config({})
        yield srv


def job(job_id: str = JOB_ID, name: str = "job-abc123", phase: str = "Running") -> dict[str, Any]:
    return {
        "kind": "job",
        "metadata": {"id": job_id, "name": name, "create_time": 1_700_000_000_000},
        "status": {"phase": phase, "secondary_phase": phase},
        "algorithm": {"engine": {"image_url": "org/img:1"}, "command": "python train.py"},
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
    }


def inputs(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "job",
        "metadata": {"name": "job-abc123"},
        "algorithm": {"engine": {"image_url": "org/img:1"}, "command": "python train.py"},
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
        "wait_for": "none",
    }
    base.update(overrides)
    return base


def test_provider_rides_out_a_long_run_of_throttling(server: ScriptedServer) -> None:
    # Seven 429s in a row, then an answer: more than the client's default five attempts. A deployment of
    # many jobs against a throttling service hit this regularly before the provider raised its budget.
    server.queue(*[json_reply({"error_code": "APIG.0308", "error_msg": "throttled"}, 429)] * 7)
    server.queue(json_reply(job()))
    result = TrainingJobProvider().read(JOB_ID, {})
    assert result.id == JOB_ID
    assert len(server.requests) == 8


def test_authentication_failure_is_not_retried(server: ScriptedServer) -> None:
    server.queue(json_reply({"error_code": "APIG.0301", "error_msg": "Incorrect IAM authentication"}, 401))
    server.queue(json_reply(job()))
    with pytest.raises(ModelArtsError, match=r"APIG\.0301") as caught:
        TrainingJobProvider().read(JOB_ID, {})
    assert len(server.requests) == 1
    assert SECRET not in str(caught.value)

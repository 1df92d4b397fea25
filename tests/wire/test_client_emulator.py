"""ModelArtsAPI against the embedded emulator (a separate process verifying real signatures)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.wire.api_errors import AuthenticationError, NotFoundError
from pulumi_modelarts.wire.models import CreateTrainingJobRequest, SearchFilter

from ..client_support import create_job
from ..support import emulator_api, wait_phase


def request(name: str) -> CreateTrainingJobRequest:
    return CreateTrainingJobRequest.model_validate(
        {
            "metadata": {"name": name, "description": "训练 ü"},
            "algorithm": {"id": "algo-1"},
            "spec": {"resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1}},
        }
    )


def test_job_round_trip(emulator_factory: Callable[..., EmulatorProcess]) -> None:
    emulator = emulator_factory(running_seconds=60)  # still terminable however slow the machine
    with emulator_api(emulator) as client:
        created = create_job(client, request("round-trip"))
        job_id = created.metadata.id
        assert job_id
        assert client.get_job(job_id).metadata.description == "训练 ü"
        client.update_description(job_id, "changed")
        assert client.get_job(job_id).metadata.description == "changed"
        assert client.terminate_job(job_id).metadata.id == job_id
        names = [
            j.metadata.name
            for j in client.iter_jobs([SearchFilter(key="name", operator="like", value=["round"])])
        ]
        assert names == ["round-trip"]
        client.delete_job(job_id)
        with pytest.raises(NotFoundError):
            client.get_job(job_id)


def test_paging_through_the_emulator(emulator: EmulatorProcess) -> None:
    with emulator_api(emulator) as client:
        for i in range(7):
            create_job(client, request(f"page-{i}"))
        listed = list(client.iter_jobs(page_size=3))
        assert sorted(j.metadata.name or "" for j in listed) == [f"page-{i}" for i in range(7)]
    assert emulator.stats()["by_operation"]["search"] == 3


def test_dropped_create_is_found_not_repeated(emulator_factory: Callable[..., EmulatorProcess]) -> None:
    emu = emulator_factory(drop_after_commit_rate=1.0)
    with emulator_api(emu) as client:
        created = create_job(client, request("dropped"))
        assert created.metadata.name == "dropped"
    stats = emu.stats()
    assert stats["by_operation"]["create"] == 1
    assert stats["dropped"] == 1


def test_wrong_secret_is_refused_once(emulator: EmulatorProcess) -> None:
    with (
        emulator_api(emulator, secret_key="not-the-secret") as client,
        pytest.raises(AuthenticationError) as caught,
    ):
        client.get_job("anything")
    assert "not-the-secret" not in str(caught.value)
    assert emulator.stats()["requests"] == 1


def test_log_preview_and_events(emulator_factory: Callable[..., EmulatorProcess]) -> None:
    emulator = emulator_factory(creating_seconds=30)
    with emulator_api(emulator) as client:
        job_id = create_job(client, request("logs-and-events")).metadata.id
        assert job_id
        # Not running yet: the service has no log (HTTP 204), which is not an error.
        assert client.get_log_preview(job_id, "worker-0") is None
        events = client.list_events(job_id, limit=5)
        assert [e.message for e in events.events] == ["Training job logs-and-events created."]
        assert events.events[0].level == "Info" and events.events[0].source == "Job"
        assert client.list_events(job_id, level="Error", limit=5).events == []

    quick = emulator_factory(running_seconds=0.2)
    with emulator_api(quick) as client:
        job_id = create_job(client, request("logged")).metadata.id
        assert job_id
        wait_phase(lambda: client.get_job(job_id), "Completed", timeout=20)
        preview = client.get_log_preview(job_id, "worker-0")
        assert preview is not None and preview.content
        assert "training completed, exit code 0" in preview.content
        assert preview.current_size == preview.full_size == len(preview.content.encode())

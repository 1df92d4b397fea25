"""The orphan finder's pure parts and its command line, against a real emulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts import orphans

TYPE = "pulumi-python:dynamic/modelarts:TrainingJob"
URN = f"urn:pulumi:dev::proj::{TYPE}::train"


def export(name: str, known_ids: list[str]) -> dict[str, Any]:
    provider = {"ciphertext": "v1:opaque"}
    return {
        "version": 3,
        "deployment": {
            "resources": [
                {"urn": f"urn:pulumi:dev::proj::{TYPE}::old{i}", "type": TYPE, "id": job_id}
                for i, job_id in enumerate(known_ids)
            ],
            "pending_operations": [
                {
                    "type": "creating",
                    "resource": {
                        "urn": URN,
                        "type": TYPE,
                        "custom": True,
                        "inputs": {"__provider": provider, "metadata": {"name": name}, "wait_for": "none"},
                    },
                },
                {"type": "updating", "resource": {"urn": "urn:x", "type": TYPE, "inputs": {}}},
            ],
        },
    }


def create(emu: EmulatorProcess, name: str) -> str:
    body = {
        "kind": "job",
        "metadata": {"name": name},
        "algorithm": {"engine": {"image_url": "org/img:1"}, "command": "python t.py"},
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
    }
    answer = httpx.post(emu.api_url("/training-jobs"), json=body, auth=emu.auth(), timeout=10)
    return str(answer.raise_for_status().json()["metadata"]["id"])


def test_pending_creates_and_state_ids() -> None:
    doc = export("train-abc123", ["a", "b"])
    assert orphans.pending_creates(doc) == [orphans.PendingCreate(URN, "train-abc123")]
    assert orphans.state_job_ids(doc) == {"a", "b"}


@pytest.fixture
def env(emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch) -> EmulatorProcess:
    for name, value in emulator.provider_env().items():
        monkeypatch.setenv(name, value)
    return emulator


def test_finds_lists_adopts_and_terminates(env: EmulatorProcess, tmp_path: Path, capsys: Any) -> None:
    orphan_id = create(env, "train-abc123")
    create(env, "train-abc1234")  # a longer name that "like" also matches: not ours
    known = create(env, "other-zzz999")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("train-abc123", [known])))

    assert orphans.main(["--stack-export", str(path), "--adopt-to", str(tmp_path / "adopted.json")]) == 3
    text = capsys.readouterr().out
    assert orphan_id in text and "train-abc123" in text and URN in text
    adopted = json.loads((tmp_path / "adopted.json").read_text())["deployment"]
    [resource] = [r for r in adopted["resources"] if r["urn"] == URN]
    assert resource["id"] == orphan_id
    assert resource["outputs"]["__provider"] == {"ciphertext": "v1:opaque"}  # copied, never opened
    assert resource["outputs"]["declared_inputs"] == {
        "metadata": {"name": "train-abc123"},
        "wait_for": "none",
    }
    assert [p["type"] for p in adopted["pending_operations"]] == ["updating"]

    assert orphans.main(["--stack-export", str(path), "--terminate", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["terminated"] == [orphan_id]
    phase = httpx.get(env.api_url(f"/training-jobs/{orphan_id}"), auth=env.auth(), timeout=10).json()
    assert phase["status"]["phase"] in ("Terminating", "Terminated")


def test_nothing_orphaned_and_bad_files(env: EmulatorProcess, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("never-created", [])))
    assert orphans.main(["--stack-export", str(path)]) == 0
    assert "no orphaned training jobs" in capsys.readouterr().out
    path.write_text("{not json")
    assert orphans.main(["--stack-export", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_adopting_and_terminating_at_once_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        orphans.main(["--stack-export", "state.json", "--terminate", "--adopt-to", "adopted.json"])
    assert exit_info.value.code == 2
    assert "not allowed with" in capsys.readouterr().err

"""What the tests of core's operations share: their inputs, the emulator's view of the jobs they made, and a
client of a scripted server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.transport import Transport

from ..httpserver import ScriptedServer
from ..support import minimal_job, poll

__all__ = ["JOB_ID", "PROJECT", "await_phase", "inputs", "live", "live_phase", "operations", "scripted"]

# The project and job of the scripted servers' answers.
PROJECT = "0123456789abcdef0123456789abcdef"
JOB_ID = "11111111-2222-3333-4444-555555555555"


def inputs(annotations: Mapping[str, str] | None = None, **overrides: Any) -> dict[str, Any]:
    """A job named core-job (with the emulator's annotations given), as the engine hands inputs over."""
    metadata: dict[str, Any] = {"name": "core-job", "description": "nightly"}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return minimal_job(node_count=1.0, metadata=metadata, **overrides)


def live(emu: EmulatorProcess, job_id: str) -> dict[str, Any]:
    """The job as the emulator has it now."""
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        return dict(http.get(emu.api_url(f"/training-jobs/{job_id}")).raise_for_status().json())


def live_phase(emu: EmulatorProcess, job_id: str) -> str:
    return str(live(emu, job_id)["status"]["phase"])


def await_phase(emu: EmulatorProcess, job_id: str, phase: str) -> None:
    poll(lambda: live_phase(emu, job_id), lambda seen: seen == phase, timeout=10.0, what=f"{job_id} {phase}")


def operations(emu: EmulatorProcess) -> dict[str, int]:
    """The emulator's calls by operation since its stats were last reset."""
    return dict(emu.stats()["by_operation"])


def scripted(server: ScriptedServer) -> ModelArtsAPI:
    """A client of the scripted server, for answers the emulator cannot give on demand."""
    return ModelArtsAPI(
        Transport(endpoint=server.url, project_id=PROJECT, auth=AkSkAuth("AKCORE", "sk-core"))
    )

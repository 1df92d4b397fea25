"""Test support shared by the unit tests, the CLI tests and bench/: polling, waiting for a job's phase, a
minimal job body, an emulator's environment, a recording Progress and a fake clock.

Imported as ``tests.support`` (``tests`` is a package), from pytest and from ``python -m bench.bench`` alike.
"""

from __future__ import annotations

import copy
import os
import signal
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import pytest

from modelarts_emulator.testing import EmulatorProcess

if TYPE_CHECKING:
    from pulumi_modelarts.wire.api import ModelArtsAPI

__all__ = [
    "FAST_POLL_SECONDS",
    "PARTNER_PROJECT",
    "POLL_SECONDS_ENV",
    "REPO",
    "SEEDS",
    "FakeTime",
    "ProgressLines",
    "emulator_env",
    "init_failure",
    "minimal_job",
    "missing",
    "phase_of",
    "poll",
    "require",
    "wait_phase",
]

T = TypeVar("T")

# The repository's root, and the API pages this project implements beside it (../shared/seeds), wherever it
# is cloned.
REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO.parent / "shared" / "seeds"

# The project of the emulator's partner account, whose keys its agency (modelarts_agency of emulator_partner)
# hands out: written out here, not read from the emulator, so that the tests check the emulator's answer.
PARTNER_PROJECT = "fedcba9876543210fedcba9876543210"

# The provider's poll knob (pulumi_modelarts.job.waiting.polling); spelled out so that this module loads no
# provider code.
POLL_SECONDS_ENV = "PULUMI_MODELARTS_POLL_SECONDS"
# The provider's poll interval in unit tests: waits take a few milliseconds, not the real pauses.
FAST_POLL_SECONDS = "0.02"

_MINIMAL_JOB: dict[str, Any] = {
    "algorithm": {"engine": {"image_url": "org/img:1"}, "command": "python train.py"},
    "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
}


def minimal_job(*, node_count: float = 1, **fields: Any) -> dict[str, Any]:
    """The smallest valid job body (a custom image and its command on one CPU node), a fresh copy each time,
    with node_count set (1.0: as the engine hands numbers over) and top-level fields added or replaced."""
    body = copy.deepcopy(_MINIMAL_JOB)
    body["spec"]["resource"]["node_count"] = node_count
    body.update(fields)
    return body


def phase_of(job: Any) -> str | None:
    """The level-1 phase of a job read as wire JSON (a dict) or as an SDK object (``job.status.phase``)."""
    status = job.get("status") if isinstance(job, Mapping) else getattr(job, "status", None)
    phase = status.get("phase") if isinstance(status, Mapping) else getattr(status, "phase", None)
    return phase if isinstance(phase, str) else None


def wait_phase(read: Callable[[], T], phases: str | Collection[str], *, timeout: float = 5.0) -> T:
    """read() (a job, see ``phase_of``) until the job is in phases (one phase or several), and that job."""
    wanted = {phases} if isinstance(phases, str) else set(phases)
    return poll(read, lambda job: phase_of(job) in wanted, timeout=timeout, what=f"a job in {sorted(wanted)}")


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


def emulator_config(emu: EmulatorProcess) -> dict[str, str]:
    """The stack config (``modelarts:*`` keys) that points the provider at emu, as an engine configures it."""
    return {
        "modelarts:endpoint": emu.url,
        "modelarts:accessKey": emu.access_key,
        "modelarts:secretKey": emu.secret_key,
        "modelarts:projectId": emu.project_id,
    }


def emulator_api(emu: EmulatorProcess, *, secret_key: str | None = None) -> ModelArtsAPI:
    """This project's client for emu (AK/SK signing, retries without pauses), or signing with another secret
    key when given."""
    from pulumi_modelarts.wire.api import ModelArtsAPI
    from pulumi_modelarts.wire.auth import AkSkAuth
    from pulumi_modelarts.wire.transport import Transport

    auth = AkSkAuth(emu.access_key, secret_key or emu.secret_key, project_id=emu.project_id)
    return ModelArtsAPI(Transport(endpoint=emu.url, project_id=emu.project_id, auth=auth, base_delay=0.01))


def default_sigint() -> None:
    """Give this process a SIGINT handler, so the pulumi commands, language hosts and plugins it starts get
    SIGINT at its default.

    Started from a shell's background job (a CI runner may start it so), a process inherits SIGINT ignored and
    passes that on; the engine stops its plugins with SIGINT and kills one that ignores it only after a grace
    of seconds, which added about 5 s to every pulumi command. A handler (not SIG_IGN) is reset to the default
    in each child at exec.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)


def missing(message: str) -> NoReturn:
    """Skip the test (at a module's top: the whole module) for an input that is not there, except in CI (CI
    set), where it fails: a CI run must not turn green by silently skipping what it was meant to check."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message, allow_module_level=True)


def require(path: Path, what: str) -> Path:
    """path, when it exists; otherwise the test is skipped, or fails in CI (``missing``)."""
    if not path.exists():
        missing(f"{what} not found at {path}")
    return path


class ProgressLines:
    """A Progress that keeps what it is told: the lines said in ``lines``, the statuses in ``statuses``. The
    engine listens as long as ``listening`` says; ``asked`` counts how often that was asked."""

    def __init__(self, listening: bool = True) -> None:
        self.lines: list[str] = []
        self.statuses: list[str] = []
        self.listening = listening
        self.asked = 0

    def say(self, line: str) -> None:
        self.lines.append(line)

    def status(self, line: str) -> None:
        self.statuses.append(line)

    def engine_listening(self) -> bool:
        self.asked += 1
        return self.listening


class FakeTime:
    """A monotonic clock that moves only when the code under test sleeps (inject ``clock`` and ``sleep``)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0  # time.sleep refuses a negative pause: so does its stand-in
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def init_failure(status: Any) -> Any:
    """The partial create a gRPC status carries (``provider_pb2.ErrorResourceInitFailed``): the engine records
    the job its creation failed for. (Pulumi's protos imported here only: this module loads no provider.)"""
    from pulumi.runtime.proto import provider_pb2, status_pb2

    [(key, packed)] = status.trailing_metadata
    assert key == "grpc-status-details-bin"
    [detail] = status_pb2.Status.FromString(packed).details
    failed = provider_pb2.ErrorResourceInitFailed()
    assert detail.Unpack(failed)
    return failed

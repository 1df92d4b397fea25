"""The engine's half of progress: the lines a front-end shows, and whether the Pulumi engine is still there.

Two front-ends, two places to show a line: the dynamic provider writes to stderr (``StderrProgress``), which
the CLI shows among the stack's diagnostics; the native plugin writes to the engine's log service under the
job's row (``EngineLog``, one ``ResourceProgress`` per resource). Each is a ``job.progress.Progress``.

The engine starts every plugin with the address of its own gRPC server as the last argument, and that server
lives exactly as long as the engine: connecting to it is the question "is the engine still listening?". (The
plugin's parent process is no answer for the dynamic provider host, which runs under a shell script that
outlives a killed engine; the native plugin watches both, as far as each can be trusted, to leave once its
engine was killed: ``engine_watch``.)
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Sequence
from typing import Any

__all__ = [
    "EngineLog",
    "ResourceProgress",
    "StderrProgress",
    "engine_address",
    "engine_answer",
    "engine_reachable",
]

# A live engine accepts at once; a killed one refuses at once. The timeout only bounds a wedged machine.
CONNECT_TIMEOUT_SECONDS = 2.0
CONNECT_ATTEMPTS = 3


def engine_address(argv: Sequence[str]) -> str | None:
    """The engine address a plugin was started with (its last argument, ``host:port``), or None."""
    for arg in reversed(argv):
        if not arg:
            continue
        host, sep, port = arg.rpartition(":")
        if sep and host and not arg.startswith("-") and port.isdigit() and 0 < int(port) < 65536:
            return arg
        return None
    return None


def engine_reachable(address: str, *, timeout: float = CONNECT_TIMEOUT_SECONDS) -> bool:
    """Whether something accepts connections at address (``host:port``); a refusal means nobody is there."""
    for _ in range(CONNECT_ATTEMPTS):
        answer = engine_answer(address, timeout=timeout)
        if answer is not None:
            return answer
        # a timeout or a transient failure: ask again before concluding
    return False


def engine_answer(address: str, *, timeout: float = CONNECT_TIMEOUT_SECONDS) -> bool | None:
    """True when something accepts connections at address, False when it refuses (nobody is there), None when
    neither is known (a timeout, another error): only a refusal says the engine is gone."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return True
    except ConnectionRefusedError:
        return False
    except OSError:
        return None


class StderrProgress:
    """Lines on stderr (the Pulumi CLI shows a plugin's stderr as diagnostics).

    engine: the engine's address, or None when no engine started this process (a direct call, a test): then
    there is no engine to lose and ``engine_listening`` is always True.
    """

    def __init__(self, engine: str | None, prefix: str = "modelarts: ") -> None:
        self.engine = engine
        self.prefix = prefix

    def say(self, line: str) -> None:
        # One write per line: print() writes the text and the newline separately, so lines from concurrent
        # provider threads could run together in the CLI's diagnostics. Progress is informative only: once
        # nobody reads stderr a write fails, and that must never abort an operation.
        try:
            sys.stderr.write(f"{self.prefix}{line}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    def status(self, line: str) -> None:
        # A dynamic provider has no row of its own to write on: the status is one more line.
        self.say(line)

    def engine_listening(self) -> bool:
        return self.engine is None or engine_reachable(self.engine)


class EngineLog:
    """Progress lines on the engine's log service, each under a resource; and whether the engine listens."""

    def __init__(self, address: str | None) -> None:
        self.address = address
        self._lock = threading.Lock()
        self._stub: Any = None
        self._channel: Any = None

    def _engine(self) -> Any:
        with self._lock:
            if self._stub is None and self.address is not None:
                import grpc  # type: ignore[import-untyped]  # (no stubs; one call used)
                from pulumi.runtime.proto import engine_pb2_grpc

                self._channel = grpc.insecure_channel(self.address)
                self._stub = engine_pb2_grpc.EngineStub(self._channel)
            return self._stub

    def log(
        self, urn: str, line: str, *, warning: bool = False, ephemeral: bool = False, timeout: float = 10.0
    ) -> None:
        """A line under the resource (none: the stack's); an ephemeral one is only its row's status (the next
        replaces it) and stays out of the diagnostics at the end."""
        from pulumi.runtime.proto import engine_pb2

        try:
            engine = self._engine()
            if engine is None:
                sys.stderr.write(f"modelarts: {'warning: ' if warning else ''}{line}\n")
                return
            severity = engine_pb2.WARNING if warning else engine_pb2.INFO
            request = engine_pb2.LogRequest(severity=severity, message=line, urn=urn, ephemeral=ephemeral)
            engine.Log(request, timeout=timeout)
        except Exception:  # progress is informative only: a lost line must never fail an operation
            pass

    def debug(self, line: str) -> None:
        """A line for the engine's debug log only (``pulumi up --debug``), under no resource."""
        from pulumi.runtime.proto import engine_pb2

        try:
            engine = self._engine()
            if engine is not None:
                engine.Log(engine_pb2.LogRequest(severity=engine_pb2.DEBUG, message=line), timeout=10)
        except Exception:  # as log(): informative only
            pass

    def listening(self) -> bool:
        return self.address is None or engine_reachable(self.address)

    def progress(self, urn: str) -> ResourceProgress:
        return ResourceProgress(self, urn)


class ResourceProgress:
    """``core``'s Progress for one resource."""

    def __init__(self, log: EngineLog, urn: str) -> None:
        self._log = log
        self._urn = urn

    def say(self, line: str) -> None:
        self._log.log(self._urn, line)

    def status(self, line: str) -> None:
        self._log.log(self._urn, line, ephemeral=True)

    def engine_listening(self) -> bool:
        return self._log.listening()

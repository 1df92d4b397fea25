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

import asyncio
import concurrent.futures
import contextlib
import logging
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

__all__ = [
    "EngineDebug",
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
    """Progress lines on the engine's log service, each under a resource; and whether the engine listens.

    The lines go over a gRPC asyncio channel on the loop that serves the plugin (``bind``): from that loop a
    line is sent without blocking it, from an operation's thread the thread waits for its line. A synchronous
    channel in the same process as the plugin's asyncio server kept a core busy for as long as the plugin ran
    with grpcio 1.66 (what pulumi 3.171, the oldest SDK supported, requires). Only ``log_now``, for the last
    words of a plugin on its way out, when the loop may be stopped or be the caller, opens one, once.

    So the loop must never wait on a lock an operation's thread holds while it says a line (``EngineDebug``
    takes no lock); a line that still finds the loop unable to send it is given up at its timeout.
    """

    def __init__(self, address: str | None) -> None:
        self.address = address
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stub: Any = None  # the asyncio stub, for the loop it was made on
        self._stub_loop: asyncio.AbstractEventLoop | None = None
        self._sending: set[asyncio.Task[None]] = set()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that serves the plugin: lines said on other threads are sent through it."""
        self._loop = loop

    def log(
        self, urn: str, line: str, *, warning: bool = False, ephemeral: bool = False, timeout: float = 10.0
    ) -> None:
        """A line under the resource (none: the stack's); an ephemeral one is only its row's status (the next
        replaces it) and stays out of the diagnostics at the end."""
        request = self._request(urn, line, warning, ephemeral)
        if request is not None:
            self._deliver(request, timeout)

    def debug(self, line: str) -> None:
        """A line for the engine's debug log only (``pulumi up --debug``), under no resource."""
        from pulumi.runtime.proto import engine_pb2

        if self.address is not None:
            self._deliver(engine_pb2.LogRequest(severity=engine_pb2.DEBUG, message=line), 10.0)

    def log_now(self, urn: str, line: str, *, warning: bool = False, timeout: float = 1.0) -> None:
        """log, sent before this returns, from any thread, the loop's own and a signal handler's included
        (a plugin's last words, just before it exits)."""
        import grpc  # type: ignore[import-untyped]  # (no stubs; one call used)
        from pulumi.runtime.proto import engine_pb2_grpc

        request = self._request(urn, line, warning)
        if request is None:
            return
        with contextlib.suppress(Exception), grpc.insecure_channel(self.address) as channel:
            engine_pb2_grpc.EngineStub(channel).Log(request, timeout=timeout)

    def _request(self, urn: str, line: str, warning: bool, ephemeral: bool = False) -> Any:
        """The engine's LogRequest for a line; None, the line on stderr instead, when no engine started this
        process."""
        from pulumi.runtime.proto import engine_pb2

        if self.address is None:
            sys.stderr.write(f"modelarts: {'warning: ' if warning else ''}{line}\n")
            return None
        severity = engine_pb2.WARNING if warning else engine_pb2.INFO
        return engine_pb2.LogRequest(severity=severity, message=line, urn=urn, ephemeral=ephemeral)

    # Progress is informative only: a lost line must never fail an operation, so nothing here raises.
    def _deliver(self, request: Any, timeout: float) -> None:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None:  # on a loop: never block it
            task = running.create_task(self._send(request, timeout))
            self._sending.add(task)
            task.add_done_callback(self._sent)
            return
        loop = self._loop
        if loop is None or not loop.is_running():
            return  # no loop to send through (none bound yet, or stopped: the plugin is on its way out)
        with contextlib.suppress(Exception):
            sent = asyncio.run_coroutine_threadsafe(self._send(request, timeout), loop)
            deadline = time.monotonic() + timeout
            while True:  # in slices: a loop that stops meanwhile (SIGINT) never answers
                try:
                    sent.result(timeout=0.2)
                    return
                except concurrent.futures.TimeoutError:
                    if not loop.is_running() or time.monotonic() > deadline:
                        sent.cancel()
                        return

    async def _send(self, request: Any, timeout: float) -> None:
        import grpc
        from pulumi.runtime.proto import engine_pb2_grpc

        loop = asyncio.get_running_loop()
        if self._stub_loop is not loop:  # an asyncio channel belongs to the loop it was opened on
            self._stub = engine_pb2_grpc.EngineStub(grpc.aio.insecure_channel(self.address))
            self._stub_loop = loop
        await self._stub.Log(request, timeout=timeout)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a lost line is no error

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


class EngineDebug(logging.Handler):
    """The package's debug records (where the credentials came from, never a value) on the engine's debug
    log, which ``pulumi up --debug`` shows."""

    def __init__(self, log: EngineLog) -> None:
        super().__init__(logging.DEBUG)
        self.log = log

    def handle(self, record: logging.LogRecord) -> bool:
        # Without the handler's lock, which logging holds through emit: an operation's thread waits in emit
        # for the serving loop to send its record, and the loop, logging a record of its own, would wait for
        # that lock (EngineLog is safe from any thread).
        if not self.filter(record):
            return False
        self.emit(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        self.log.debug(f"modelarts: {record.getMessage()}")

"""The native plugin's lines on the engine's log service (``frontends/engine.py``'s ``EngineLog``), against a
gRPC engine of the test's own: sent through the loop that serves the plugin, whichever thread says them,
and never over a synchronous channel while the plugin serves (with grpcio 1.66, which pulumi 3.171
requires, one kept the plugin's process busy for as long as it ran); a plugin's last words, on their way out,
before ``log_now`` returns.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest
from google.protobuf import empty_pb2
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

from pulumi_modelarts.frontends import plugin
from pulumi_modelarts.frontends.engine import EngineDebug, EngineLog

from ..support import poll

URN = "urn:pulumi:dev::proj::modelarts:index:TrainingJob::train"


class _Engine(engine_pb2_grpc.EngineServicer):  # type: ignore[misc]
    """The engine's log service, recording (urn, message, severity, ephemeral) per line. A line in hold_until
    is answered only once its event is set (or 5 s passed: then it is named in held_too_long)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, int, bool]] = []
        self.hold_until: dict[str, threading.Event] = {}
        self.held_too_long: list[str] = []

    def Log(self, request: Any, context: Any) -> Any:
        self.lines.append((request.urn, request.message, request.severity, request.ephemeral))
        held = self.hold_until.get(request.message)
        if held is not None and not held.wait(timeout=5):
            self.held_too_long.append(request.message)
        return empty_pb2.Empty()


@pytest.fixture
def engine() -> Iterator[tuple[str, _Engine]]:
    servicer = _Engine()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    engine_pb2_grpc.add_EngineServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        server.stop(None)


@pytest.fixture
def no_sync_channel(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every synchronous channel the code under test opens, refused."""
    opened: list[str] = []

    def refused(target: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(target)
        raise AssertionError(f"a synchronous gRPC channel to {target} while the plugin serves")

    monkeypatch.setattr(grpc, "insecure_channel", refused)
    return opened


def test_lines_from_the_loop_and_from_an_operation_reach_the_engine_through_the_loop(
    engine: tuple[str, _Engine], no_sync_channel: list[str]
) -> None:
    address, heard = engine
    provider = plugin.ModelArtsProvider(address)
    log = provider.engine_log

    async def serve() -> None:
        log.log(URN, "from the loop", warning=True)  # on the loop: sent without blocking it

        def operation() -> None:  # on one of the plugin's threads: waits for each of its lines
            log.log(URN, "first", ephemeral=True)
            log.log(URN, "second")
            log.debug("a debug record")
            # each of them at the engine before the call returned, in order (the loop's line may be anywhere)
            theirs = [line[1] for line in heard.lines if line[1] != "from the loop"]
            assert theirs == ["first", "second", "a debug record"]

        await provider._run(operation, "create train")
        await asyncio.sleep(0)

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(serve())
        poll(lambda: len(heard.lines), lambda n: n == 4, timeout=5, what="the loop's own line")
    finally:
        loop.close()
    assert sorted(heard.lines) == sorted(
        [
            (URN, "from the loop", engine_pb2.WARNING, False),
            (URN, "first", engine_pb2.INFO, True),
            (URN, "second", engine_pb2.INFO, False),
            ("", "a debug record", engine_pb2.DEBUG, False),
        ]
    )
    assert no_sync_channel == []


def test_a_line_said_once_the_loop_stopped_is_dropped_without_waiting(
    engine: tuple[str, _Engine], no_sync_channel: list[str]
) -> None:
    address, heard = engine
    log = EngineLog(address)
    loop = asyncio.new_event_loop()
    log.bind(loop)  # bound, but not running: the plugin is on its way out
    said = threading.Thread(target=lambda: log.log(URN, "too late", timeout=60))
    said.start()
    said.join(timeout=5)
    loop.close()
    assert not said.is_alive()  # it did not wait the line's 60 s for a loop that will not run again
    assert heard.lines == [] and no_sync_channel == []


def test_last_words_reach_the_engine_before_log_now_returns_even_on_the_loop(
    engine: tuple[str, _Engine],
) -> None:
    address, heard = engine
    log = EngineLog(address)

    async def on_the_loop() -> list[tuple[str, str, int, bool]]:
        log.log_now("", "the provider stops: it received SIGTERM", warning=True)
        return list(heard.lines)  # before the loop ran anything else

    loop = asyncio.new_event_loop()
    try:
        log.bind(loop)
        assert loop.run_until_complete(on_the_loop()) == [
            ("", "the provider stops: it received SIGTERM", engine_pb2.WARNING, False)
        ]
    finally:
        loop.close()


def test_without_an_engine_lines_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    log = EngineLog(None)
    log.log(URN, "no engine", warning=True)
    log.log_now("", "last words")
    log.debug("nobody hears this")
    assert capsys.readouterr().err == "modelarts: warning: no engine\nmodelarts: last words\n"


def test_the_loop_logs_a_record_while_an_operation_waits_for_its_own_to_be_sent(
    engine: tuple[str, _Engine], no_sync_channel: list[str]
) -> None:
    # The package's debug records go through one handler from every thread: an operation's thread waits in
    # it for the loop to send its record, so the loop must not wait in it for that thread.
    address, heard = engine
    provider = plugin.ModelArtsProvider(address)
    records = logging.getLogger("test-engine-debug")
    records.setLevel(logging.DEBUG)
    handler = EngineDebug(provider.engine_log)
    records.addHandler(handler)
    loop_said = threading.Event()
    heard.hold_until["modelarts: from an operation"] = loop_said  # answered once the loop's record came

    async def serve() -> None:
        operation = asyncio.ensure_future(
            provider._run(lambda: records.debug("from an operation"), "create train")
        )
        while not heard.lines:  # the operation's record is at the engine, its thread waiting for the answer
            await asyncio.sleep(0.01)
        records.debug("from the loop")
        while len(heard.lines) < 2:
            await asyncio.sleep(0.01)
        loop_said.set()
        await operation

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(asyncio.wait_for(serve(), timeout=30))
    finally:
        loop.close()
        records.removeHandler(handler)
    assert [line[1] for line in heard.lines] == ["modelarts: from an operation", "modelarts: from the loop"]
    assert heard.held_too_long == [] and no_sync_channel == []


def test_sigint_stops_the_plugin_with_its_last_words_and_no_traceback(engine: tuple[str, _Engine]) -> None:
    # The engine stops its plugins with SIGINT. The gRPC server is stopped while its loop still runs: its
    # finaliser, run later on a closed loop, printed "Exception ignored in ... Server.__del__" and a
    # traceback, which the engine shows whenever it dumps a plugin's output.
    import os
    import signal
    import subprocess
    import sys

    address, _servicer = engine
    launcher = os.path.join(os.path.dirname(sys.executable), "pulumi-resource-modelarts")
    proc = subprocess.Popen(
        [launcher, address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip().isdigit()  # serving: its port
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "the provider stops: it received SIGINT" in err, err
    assert "Traceback" not in err and "Exception ignored" not in err, err

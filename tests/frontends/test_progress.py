"""Progress lines on stderr, and "is the engine still listening?" asked at the engine's address."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from pulumi_modelarts.frontends import dynamic as provider_module
from pulumi_modelarts.frontends.engine import StderrProgress, engine_address, engine_reachable


@pytest.fixture
def listening() -> Iterator[str]:
    with socket.socket() as engine:
        engine.bind(("127.0.0.1", 0))
        engine.listen()
        yield f"127.0.0.1:{engine.getsockname()[1]}"


def closed_address() -> str:
    with socket.socket() as engine:
        engine.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{engine.getsockname()[1]}"


@pytest.mark.parametrize(
    ("argv", "address"),
    [
        (["127.0.0.1:40203"], "127.0.0.1:40203"),
        (["127.0.0.1:40203", ""], "127.0.0.1:40203"),  # the plugin script's unquoted $@ can add empties
        (["--logtostderr", "-v=9", "--tracing", "http://t:9", "127.0.0.1:5"], "127.0.0.1:5"),
        (["[::1]:5000"], "[::1]:5000"),
        ([], None),
        (["tests/test_provider.py"], None),
        (["-k", "x"], None),
        (["127.0.0.1:0"], None),
        (["127.0.0.1:99999"], None),
    ],
)
def test_engine_address_is_the_last_argument(argv: list[str], address: str | None) -> None:
    assert engine_address(argv) == address


def test_a_listening_engine_is_reachable_and_a_closed_one_is_not(listening: str) -> None:
    assert engine_reachable(listening)
    assert StderrProgress(listening).engine_listening()
    gone = closed_address()
    assert not engine_reachable(gone)
    assert not StderrProgress(gone).engine_listening()


def test_without_an_engine_there_is_none_to_lose() -> None:
    assert StderrProgress(None).engine_listening()


def test_say_writes_one_prefixed_line_and_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr("sys.stderr", buffer)
    StderrProgress(None).say("training job x created")
    assert buffer.getvalue() == "modelarts: training job x created\n"
    buffer.close()  # writing to a closed stream raises ValueError; a broken pipe raises OSError
    StderrProgress(None).say("nobody reads this")


def test_only_the_dynamic_provider_host_has_an_engine() -> None:
    # In this (pytest) process no engine started the provider: nothing is taken from argv.
    assert provider_module.stderr_progress().engine is None
    # Run as Pulumi runs it: `python -m pulumi.dynamic <engine address>` loads the provider by unpickling it.
    code = (
        "import sys\n"
        "sys.argv = ['pulumi/dynamic/__main__.py', '127.0.0.1:40203']\n"
        "sys.modules['__main__'].__spec__ = type('S', (), {'name': 'pulumi.dynamic.__main__'})()\n"
        "from pulumi_modelarts.frontends.dynamic import stderr_progress\n"
        "print(stderr_progress().engine)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "127.0.0.1:40203"

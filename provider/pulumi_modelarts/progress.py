"""Progress lines for the person running Pulumi, and whether the Pulumi engine is still there to read them.

The operations in ``core`` report through a ``Progress``: ``say`` a line, and ``engine_listening`` when they
must decide something that depends on it (a create whose wait gives up terminates its job only while the
engine listens; once the engine was killed the job belongs to the recovery procedure, ``modelarts-orphans``).

The engine starts every plugin with the address of its own gRPC server as the last argument, and that server
lives exactly as long as the engine: connecting to it is the question "is the engine still listening?". (The
plugin's parent process is no answer: the dynamic provider host runs under a shell script that outlives a
killed engine.)
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Sequence
from typing import Protocol

__all__ = ["Progress", "StderrProgress", "engine_address", "engine_reachable"]

# A live engine accepts at once; a killed one refuses at once. The timeout only bounds a wedged machine.
CONNECT_TIMEOUT_SECONDS = 2.0
CONNECT_ATTEMPTS = 3


class Progress(Protocol):
    """Where the operations report to."""

    def say(self, line: str) -> None:
        """Show one line to the person running Pulumi; never raises."""

    def status(self, line: str) -> None:
        """Show what the job is doing now (the newest line of its log) where its state is shown; a later
        status replaces it where the front-end can. Never raises."""

    def engine_listening(self) -> bool:
        """True while the Pulumi engine that asked for the operation still runs."""


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
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    for _ in range(CONNECT_ATTEMPTS):
        try:
            with socket.create_connection((host, int(port)), timeout=timeout):
                return True
        except ConnectionRefusedError:
            return False
        except OSError:
            continue  # a timeout or a transient failure: ask again before concluding
    return False


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

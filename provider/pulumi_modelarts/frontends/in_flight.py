"""What the native plugin has under way, and its last words: why it stops and which operations end with it.

The engine hides a plugin's stderr, but shows it when the plugin ends before the engine shut it down; so the
line goes to stderr whatever ends the plugin, and, with operations under way (an early end), to the engine's
log as well, where it shows at once while the engine still listens.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

from .engine import EngineLog

__all__ = ["InFlight"]

SHOWN = 10  # operations named in the last words; the rest are counted


class InFlight:
    """The operations under way ("create job-0"), from any thread, and the last words that name them."""

    def __init__(self, log: EngineLog) -> None:
        self._log = log
        self._lock = threading.Lock()
        self._flights: dict[object, str] = {}

    @contextlib.contextmanager
    def under_way(self, what: str) -> Iterator[None]:
        flight = object()
        with self._lock:
            self._flights[flight] = what
        try:
            yield
        finally:
            with self._lock:
                del self._flights[flight]

    def names(self) -> list[str]:
        """The operations under way, oldest first."""
        with self._lock:
            return list(self._flights.values())

    def last_words(self, why: str) -> None:
        """Say why the plugin stops, and what ends with it. Never raises: it is said on the way out."""
        running = self.names()
        line = f"the provider stops: {why}"
        if running:
            shown = ", ".join(running[:SHOWN]) + (", ..." if len(running) > SHOWN else "")
            line += (
                f"; {len(running)} operation{'s' if len(running) != 1 else ''} still under way ({shown}) "
                "end here: a job a create started keeps running, and is not in the state unless the engine "
                "recorded it (modelarts-orphans finds it)"
            )
        with contextlib.suppress(Exception):  # nobody may read stderr any more
            sys.stderr.write(f"modelarts: {line}\n")
            sys.stderr.flush()
        if running:
            with contextlib.suppress(Exception):
                self._log.log_now("", line, warning=True)

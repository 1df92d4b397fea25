"""Progress: where the job's operations report to, and whether anyone still listens.

The operations in ``core`` report through a ``Progress``: ``say`` a line, ``status`` what the job is doing
now, and ``engine_listening`` when they must decide something that depends on it (a create whose wait gives up
terminates its job only while the engine listens; once the engine was killed the job belongs to the recovery
procedure, ``modelarts-orphans``). Where a line is shown, and how the engine is asked, is each front-end's
(``frontends.engine``): the job layer speaks no protocol of the engine's.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["Progress"]


class Progress(Protocol):
    """Where the operations report to."""

    def say(self, line: str) -> None:
        """Show one line to the person running Pulumi; never raises."""

    def status(self, line: str) -> None:
        """Show what the job is doing now (the newest line of its log) where its state is shown; a later
        status replaces it where the front-end can. Never raises."""

    def engine_listening(self) -> bool:
        """True while the Pulumi engine that asked for the operation still runs."""

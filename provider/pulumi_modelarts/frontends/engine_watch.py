"""Whether the Pulumi engine that started the native plugin is gone: the plugin leaves then (a SIGKILLed
`pulumi` never stops its plugins), and never while the engine lives.

Two signs, each trusted only as far as it is reliable:

- the engine's address (the plugin's last argument: its gRPC server, alive exactly as long as the engine).
  A live engine accepts connections; a dead one's port refuses them. One refusal proves little (a look may
  meet a port being re-bound, a machine under load), so the engine is gone once the address, having answered
  before, refused ``GONE_REFUSALS`` looks in a row over at least ``GONE_SECONDS``. An address that never
  answered (a plugin started by hand) proves nothing.
- the plugin's parent process. It changes when the parent exits, which says the engine died only when the
  parent *is* the engine: that is checked once, at the start, by whether the parent holds the engine's
  listening socket (Linux ``/proc``). A parent that is a launcher (a shell script that does not exec, a
  wrapper) may exit or be replaced while the engine lives: then its change only makes the watch look at the
  address at once, and at every turn after. Only with an address that never answered is the parent's change
  taken as the engine's end, as before.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from .engine import engine_answer

__all__ = ["GONE_REFUSALS", "GONE_SECONDS", "parent_holds_address", "wait_until_engine_gone"]

# How often the watch looks: its parent every half second, the engine's address every 4 s (a connection each
# time, so no more often) until something is amiss, then at every turn.
WATCH_SECONDS = 0.5
WATCH_ADDRESS_EVERY = 8
# Refused looks in a row, over at least this long, that say a live engine is not there any more.
GONE_REFUSALS = 3
GONE_SECONDS = 2.0
_LISTEN = "0A"  # a listening socket's state in /proc/net/tcp


def parent_holds_address(pid: int, address: str, proc: Path = Path("/proc")) -> bool | None:
    """Whether process pid holds the socket listening at address (``host:port``): True, False, or None when
    this machine cannot tell (no ``/proc``, or the process's descriptors may not be read)."""
    port = address.rpartition(":")[2]
    if not port.isdigit() or not (proc / "net" / "tcp").exists():
        return None
    hex_port = f"{int(port):04X}"
    inodes = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()  # sl, local address (hex ip:port), remote address, state, ..., inode
            if len(fields) > 9 and fields[3] == _LISTEN and fields[1].rpartition(":")[2] == hex_port:
                inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None  # nothing listens there (yet): no answer either way
    try:
        descriptors = list((proc / str(pid) / "fd").iterdir())
    except OSError:
        return None
    for descriptor in descriptors:
        with contextlib.suppress(OSError):  # closed meanwhile
            if os.readlink(descriptor) in inodes:
                return True
    return False


def wait_until_engine_gone(
    address: str,
    parent: int,
    *,
    interval: float = WATCH_SECONDS,
    address_every: int = WATCH_ADDRESS_EVERY,
    getppid: Callable[[], int] = os.getppid,
    parent_is_engine: Callable[[int, str], bool | None] = parent_holds_address,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """Return, saying why, once the engine that started this plugin is gone; never returns while it runs."""
    seen = engine_answer(address) is True
    engine_parent = parent_is_engine(parent, address) is True
    refused: list[float] = []  # when each of the refusals in a row was met
    parent_left = False
    ticks = 0
    while True:
        time.sleep(interval)
        ticks += 1
        if getppid() != parent:
            if engine_parent:
                return f"its parent, the engine (pid {parent}), ended"
            parent_left = True
        if not (parent_left or refused or ticks % address_every == 0):
            continue
        answer = engine_answer(address)
        if answer is True:
            seen = True
            refused.clear()
        elif answer is False and not seen:
            if parent_left:  # nothing to go on but the parent (a plugin started by hand)
                return f"its parent (pid {parent}) ended, and nothing ever answered at {address}"
        elif answer is False:
            refused.append(clock())
            over = refused[-1] - refused[0]
            if len(refused) >= GONE_REFUSALS and over >= GONE_SECONDS:
                return f"its address {address} refused {len(refused)} connections in a row over {over:.1f}s"

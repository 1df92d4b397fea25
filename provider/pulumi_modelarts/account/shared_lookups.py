"""One lookup for every thread of the process that needs its answer (the project id found in IAM): asked once,
answered to all of them at once, within each one's own deadline, and never in the way of Ctrl-C.

The lookup runs on a thread of its own, started by the first caller that finds no answer; every caller, that
one too, waits for the answer only as long as its deadline allows, in short slices, so that SIGINT on the main
thread (Ctrl-C) ends a wait there at once, and a process that is stopping (its main thread gone, as in the
dynamic provider host once the engine stopped it: its worker threads are all that keep it) does not wait on
IAM: the waits end, and the lookup's thread, a daemon, is not waited for.

An answer is kept for the process; a failure for ``FAILURE_MEMORY_SECONDS``, so that jobs waiting on a slow or
refusing IAM fail together, once, instead of one after another (each at the cost of all of IAM's attempts),
and a later operation asks again.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

from ..wire.errors import ModelArtsError
from .errors import AccountError

__all__ = [
    "FAILURE_MEMORY_SECONDS",
    "WAIT_SLICE_SECONDS",
    "SharedLookups",
    "cancel_waits",
    "resume_waits",
    "stopping",
]

# How long a failed lookup's error is the answer: long enough for the jobs of one `pulumi up` that wait on it
# to get it together, short enough that a fixed setting or a recovered IAM is seen by the next command.
FAILURE_MEMORY_SECONDS = 30.0
# How often a waiting thread looks at its deadline and whether the process is stopping.
WAIT_SLICE_SECONDS = 0.25

_V = TypeVar("_V")

# Set as the interpreter's shutdown begins, before it waits for the threads that are not daemons, by the hook
# concurrent.futures registers to stop its pools' workers (threading has no public one; without it, the main
# thread having ended is the sign). Hooks run last registered first: registered at the first wait, after the
# pool whose worker waits, it runs before that pool waits for its workers.
_SHUTTING_DOWN = threading.Event()
_WATCHING = threading.Event()
_WATCHING_LOCK = threading.Lock()


def _watch_shutdown() -> None:
    with _WATCHING_LOCK:
        register = getattr(threading, "_register_atexit", None)
        if _WATCHING.is_set() or not callable(register):
            return
        try:
            register(_SHUTTING_DOWN.set)
        except RuntimeError:  # the shutdown has begun already
            _SHUTTING_DOWN.set()
        _WATCHING.set()


# Set when the deployment is cancelled (the engine's Cancel, as the native plugin hears Ctrl-C): every wait
# on a lookup ends, and later ones at once, though the process goes on.
_CANCELLED = threading.Event()


def cancel_waits() -> None:
    """The deployment was cancelled: every wait on a lookup ends now, and every later one at once."""
    _CANCELLED.set()


def resume_waits() -> None:
    """Forget a cancellation (tests, where one process serves many deployments)."""
    _CANCELLED.clear()


def stopping() -> bool:
    """Whether the process is stopping: its shutdown has begun (it now only waits for the other threads: a
    pool's workers, as the dynamic provider host's), or its main thread has ended."""
    return _SHUTTING_DOWN.is_set() or not threading.main_thread().is_alive()


class _Flight(Generic[_V]):
    """One lookup under way or done: its answer or its error, and when it ended."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: _V | None = None
        self.error: ModelArtsError | None = None
        self.ended_at = 0.0


class SharedLookups(Generic[_V]):
    """Lookups by key, each made once for every thread that needs it (see the module)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()  # held only to read or change the flights, never through a lookup
        self._flights: dict[Hashable, _Flight[_V]] = {}

    def clear(self) -> None:
        """Forget every answer and failure (tests)."""
        with self._lock:
            self._flights.clear()

    def get(self, key: Hashable, look_up: Callable[[], _V], *, what: str, within: float | None = None) -> _V:
        """look_up()'s answer for key: the one kept, the one under way, or a new lookup's. within: the
        seconds this caller may wait (None: until the lookup ends). AccountError when the caller's time runs
        out or the process stops first (the lookup goes on for the others); look_up's error, a copy for each
        caller, when it failed (an error of another kind becomes an AccountError naming only its kind)."""
        deadline = None if within is None else self._clock() + within
        with self._lock:
            flight = self._flights.get(key)
            if flight is None or self._forgotten(flight):
                flight = self._flights[key] = _Flight()
                threading.Thread(
                    target=self._run, args=(flight, look_up, what), name=f"lookup: {what}", daemon=True
                ).start()
        _watch_shutdown()
        self._await(flight, what, within, deadline)
        if flight.error is not None:
            raise copy.copy(flight.error)
        return cast("_V", flight.value)  # set whenever error is not

    def _forgotten(self, flight: _Flight[_V]) -> bool:
        failed = flight.done.is_set() and flight.error is not None
        return failed and self._clock() - flight.ended_at >= FAILURE_MEMORY_SECONDS

    def _run(self, flight: _Flight[_V], look_up: Callable[[], _V], what: str) -> None:
        try:
            flight.value = look_up()
        except ModelArtsError as exc:
            flight.error = exc.with_traceback(None)
        except Exception as exc:  # no caller may get a bare error (its text may quote what it handled)
            flight.error = AccountError(f"{what} failed ({type(exc).__name__})")
        finally:
            flight.ended_at = self._clock()
            flight.done.set()

    def _await(self, flight: _Flight[_V], what: str, within: float | None, deadline: float | None) -> None:
        while not flight.done.is_set():
            left = None if deadline is None else deadline - self._clock()
            if left is not None and left <= 0:
                raise AccountError(
                    f"{what} did not end within the {within:g}s this operation allows; it goes on for the "
                    "operations after it"
                )
            if stopping():
                raise AccountError(f"{what} was given up: the process is stopping")
            if _CANCELLED.is_set():
                raise AccountError(f"{what} was given up: the deployment was cancelled")
            flight.done.wait(WAIT_SLICE_SECONDS if left is None else min(WAIT_SLICE_SECONDS, left))

"""Seeded fault decisions: the same seed and the same sequence of API requests give the same faults."""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .config import Faults
from .errors import THROTTLED, TOO_MANY_REQUESTS


@dataclass(frozen=True)
class Decision:
    throttle_code: str | None = None  # answer 429 with this error code instead of doing the work
    server_error: int | None = None  # HTTP status to answer with instead of doing the work
    drop_after_commit: bool = False  # creates only: store the job, then close the connection unanswered
    status_changed: bool = False  # terminates only: answer 409 ModelArts.2878 instead of terminating


class FaultPlan:
    def __init__(self, faults: Faults) -> None:
        self._faults = faults
        self._lock = threading.Lock()
        self.restart()

    def restart(self) -> None:
        """Begin the seeded sequences again, as if the emulator had just started."""
        seed = self._faults.seed
        with self._lock:
            self._rng = random.Random(seed)
            # Decisions added later draw from their own stream, so a seed gives the same sequence of the
            # original faults whatever these settings are.
            self._extra = random.Random(None if seed is None else f"extra-{seed}")

    def next(self, *, is_create: bool, is_terminate: bool = False) -> Decision:
        # Always draw the same number of values per request so one request's kind never shifts later faults.
        f = self._faults
        with self._lock:
            throttle_draw, fault_draw, status_draw, drop_draw = (self._rng.random() for _ in range(4))
            code_draw = self._extra.random() if throttle_draw < f.throttle_rate else 0.0
            conflict_draw = self._extra.random() if is_terminate and f.terminate_conflict_rate > 0 else 1.0
        if throttle_draw < f.throttle_rate:
            code = f.throttle_code
            if code == "mixed":
                code = THROTTLED if code_draw < 0.5 else TOO_MANY_REQUESTS
            return Decision(throttle_code=code)
        if fault_draw < f.fault_rate:
            return Decision(server_error=500 if status_draw < 0.5 else 503)
        return Decision(
            drop_after_commit=is_create and drop_draw < f.drop_after_commit_rate,
            status_changed=conflict_draw < f.terminate_conflict_rate,
        )


class RateBudget:
    """The gateway's budget of calls per second for the account, as a token bucket: it holds at most one
    second's calls, refills continuously, and a call it has no token for is refused (and spends none)."""

    def __init__(self, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self._clock = clock
        self._lock = threading.Lock()
        self.restart()

    def restart(self) -> None:
        with self._lock:
            self._tokens = self._capacity
            self._at = self._clock()

    @property
    def _capacity(self) -> float:
        return max(1.0, self.per_second)

    def take(self) -> int | None:
        """None when the call may go through (a token spent); else the whole seconds until one is free, for
        Retry-After (at least 1)."""
        if self.per_second <= 0:
            return None
        with self._lock:
            now = self._clock()
            self._tokens = min(self._capacity, self._tokens + (now - self._at) * self.per_second)
            self._at = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return None
            return max(1, math.ceil((1.0 - self._tokens) / self.per_second))

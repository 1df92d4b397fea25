"""Seeded fault decisions: the same seed and the same sequence of API requests give the same faults."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

from .config import Faults


@dataclass(frozen=True)
class Decision:
    throttle: bool = False
    server_error: int | None = None  # HTTP status to answer with instead of doing the work
    drop_after_commit: bool = False  # creates only: store the job, then close the connection unanswered


class FaultPlan:
    def __init__(self, faults: Faults) -> None:
        self._faults = faults
        self._rng = random.Random(faults.seed)
        self._lock = threading.Lock()

    def restart(self) -> None:
        """Begin the seeded sequence again, as if the emulator had just started."""
        with self._lock:
            self._rng = random.Random(self._faults.seed)

    def next(self, *, is_create: bool) -> Decision:
        # Always draw the same number of values per request so one request's kind never shifts later faults.
        with self._lock:
            throttle_draw, fault_draw, status_draw, drop_draw = (self._rng.random() for _ in range(4))
        f = self._faults
        if throttle_draw < f.throttle_rate:
            return Decision(throttle=True)
        if fault_draw < f.fault_rate:
            return Decision(server_error=500 if status_draw < 0.5 else 503)
        return Decision(drop_after_commit=is_create and drop_draw < f.drop_after_commit_rate)

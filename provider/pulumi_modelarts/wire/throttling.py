"""One back-off for every call of a process to one account, once the account's throttling says it is a rate.

A service that throttles (``APIG.0308``, ``ModelArts.2799``, HTTP 429) counts an account's calls, not a
client's. But a single throttled answer does not say which: a gateway's budget of calls per second, or a
refusal now and then (ModelArts' own ``2799``, which names no pause). Pausing every call of the process for
each refusal idles all of them for what only one call met, so the account's calls are slowed together only
when the answers say it is the account's rate:

- the service named a pause (``Retry-After``; the 2 s floor this client puts on ``2799`` is advice, not the
  service's word), or
- throttling is sustained: at least ``SUSTAINED_COUNT`` refusals, and at least half the answers, within the
  last ``WINDOW_SECONDS``.

Then every call of the process to that endpoint and project waits out that pause (the refused calls too: the
pace, not a longer back-off of their own, spreads their retries), and from then on goes out a little under
the rate the account allowed: ``SLOWDOWN`` times the answers it gave without refusing over the last window,
a token bucket on the client's side (``BURST_SECONDS`` of calls at once after an idle spell or a pause, as a
gateway's bucket refills meanwhile). A little under, because that count includes what the gateway's bucket
held before the burst, and a pace at the very limit is refused for every jitter of its calls, each refusal a
pause for every call (a gateway whose pause outlasts its bucket's refill loses the difference). A later such
refusal lowers the pace (at most once a window, by at least ``SLOWDOWN``, never below half); without one, the
pace grows slowly (``GROWTH_PER_SECOND``) and is forgotten after ``FORGET_SECONDS``. Any other refusal costs
only its own call's back-off.

Every pause is bounded. A pause the service names counts up to ``MAX_SERVICE_PAUSE`` (answers.py cuts
``Retry-After`` to it, and so does ``refused``). Each call waits only within the time it has left (its retry
budget, ``Transport.max_retry_seconds``, which a front-end's timeout shortens, and its deadline,
``Transport.within``): a call whose time ends before the account's pause, or before its turn at the pace,
does not wait at all, and is not sent (``wait`` answers None): sent after its time, it would only spend a
turn the account's bucket does not have.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

from .api_errors import (
    MAX_SERVICE_PAUSE,
    MODELARTS_THROTTLED_CODE,
    MODELARTS_THROTTLED_MIN_PAUSE,
    StatusChangedError,
    ThrottledError,
)
from .errors import ModelArtsError

__all__ = ["ThrottleGate", "account_throttled", "gate_for", "shared_gate"]

_T = TypeVar("_T")

WINDOW_SECONDS = 1.0
SUSTAINED_COUNT = 3
SUSTAINED_SHARE = 0.5
# A gateway's bucket commonly holds a second of calls; one that holds less refuses the burst, which lowers
# the rate.
BURST_SECONDS = 1.0
# Slowly, from a pace a tenth under: 100 jobs against 25 calls a second (bench/waits.py) took 1.26-1.27x
# their floor at 3% a second, 1.28-1.32x at 1% (the pace stayed under for the whole sweep) and 1.27-1.33x
# at 5%; 10% from the full rate brought a refusal, and a pause for every call, every few seconds.
GROWTH_PER_SECOND = 0.03
SLOWDOWN = 0.9
FORGET_SECONDS = 60.0
MIN_RATE = 1.0


def account_throttled(exc: BaseException) -> bool:
    """A refusal for the account's rate (429), not for one job's state (409 ModelArts.2878)."""
    return isinstance(exc, ThrottledError) and not isinstance(exc, StatusChangedError)


def service_pause(exc: ThrottledError) -> float | None:
    """The pause the service named (``Retry-After``), if it named one, at most ``MAX_SERVICE_PAUSE``."""
    pause = exc.retry_after
    if pause is None or not pause >= 0.0:  # also NaN
        return None
    if exc.error_code == MODELARTS_THROTTLED_CODE and pause <= MODELARTS_THROTTLED_MIN_PAUSE:
        return None  # the client's own floor on ModelArts' throttling (answers.py), not the service's word
    return min(pause, MAX_SERVICE_PAUSE)


class ThrottleGate:
    """When the account's calls may go out: ``refused`` and ``answered`` tell it, ``wait`` honours it."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._answers: deque[float] = deque()  # when the window's answers that were not refusals came
        self._refusals: deque[float] = deque()
        self._resume_at = 0.0
        self._rate: float | None = None  # calls per second the account allowed; None: no pace
        self._learned_at = 0.0
        self._next_at = 0.0  # the pace's bucket, as the moment its next call is due with no burst left
        self.throttles = 0  # throttled answers seen (tests, the benchmark)

    def answered(self) -> None:
        with self._lock:
            now = self._clock()
            self._answers.append(now)
            self._forget_before(now - WINDOW_SECONDS)

    def answering(self, attempt: Callable[[], _T]) -> _T:
        """attempt(), its answer counted towards what the account allows unless it was a throttled refusal
        (``refused`` sees those)."""
        try:
            answer = attempt()
        except ThrottledError:
            raise
        except ModelArtsError:
            self.answered()  # refused for the call's own reason (a 404 of a vanished job): still an answer
            raise
        self.answered()
        return answer

    def refused(self, exc: BaseException, delay: float) -> float | None:
        """A failed attempt, retried after delay if at all. When it is the account's rate, every call
        pauses: the moment that pause ends (the refused call sleeps it out itself: ``wait``'s served)."""
        if not isinstance(exc, ThrottledError) or not account_throttled(exc):
            return None
        with self._lock:
            now = self._clock()
            self.throttles += 1
            self._refusals.append(now)
            self._forget_before(now - WINDOW_SECONDS)
            named = service_pause(exc)
            if named is None and not self._sustained():
                return None  # one call's bad luck: its own back-off is enough
            self._learn(now)
            pause = min(delay, named) if named is not None else min(delay, MAX_SERVICE_PAUSE)
            self._resume_at = max(self._resume_at, now + pause)
            # The account's bucket refills during the pause: that much may go at once after it.
            self._next_at = max(self._next_at, now + pause + BURST_SECONDS - min(pause, BURST_SECONDS))
            return now + pause

    def paused_for(self) -> float:
        """Seconds until the account's pause ends (0: none)."""
        with self._lock:
            return max(0.0, self._resume_at - self._clock())

    def rate(self) -> float | None:
        """The pace's calls per second now (None: calls are not paced)."""
        with self._lock:
            return self._rate_at(self._clock())

    def wait(self, budget: float, served: float | None = None) -> float | None:
        """Sleep until the account's pause is over and then until this call's turn at its rate; the seconds
        slept, or None when either comes later than budget seconds allow (no such pause is slept, no such
        turn taken): the call must not be sent. served: the end of the pause a call's own refusal set
        (``refused``), which it slept out already."""
        slept = 0.0
        while True:
            left = budget - slept
            with self._lock:
                now = self._clock()
                resume_at = self._resume_at
                paused = resume_at > now and resume_at != served
                start = None if paused else self._turn(now, now + left)
            if paused:
                # Again after it only when another refusal pushed the pause on meanwhile.
                pause, served = resume_at - now, resume_at
            else:
                pause = 0.0 if start is None else start - now
            if pause <= 0:
                return slept
            if pause > left:
                return None
            self._sleep(pause)
            slept += pause
            if not paused:
                return slept

    # ------------------------------------------------------------------------ with the lock held

    def _turn(self, now: float, latest: float) -> float | None:
        """When this call may go at the account's rate, None when calls are not paced. The turn is taken
        only when it comes by latest (a later one is answered, and left to the calls that can wait)."""
        rate = self._rate_at(now)
        if rate is None:
            return None
        start = max(now, self._next_at - BURST_SECONDS)
        if start <= latest:
            self._next_at = max(self._next_at, start) + 1.0 / rate
        return start

    def _rate_at(self, now: float) -> float | None:
        if self._rate is None or now - self._learned_at > FORGET_SECONDS:
            return None
        return self._rate * (1.0 + GROWTH_PER_SECOND * (now - self._learned_at))

    def _sustained(self) -> bool:
        refusals = len(self._refusals)
        return refusals >= SUSTAINED_COUNT and refusals >= SUSTAINED_SHARE * (refusals + len(self._answers))

    def _learn(self, now: float) -> None:
        """The pace from what the account allowed (its answers over the last window, times SLOWDOWN); lowered
        at most once a window (the refusals of one burst say it once), never below half."""
        allowed = len(self._answers) / WINDOW_SECONDS
        current = self._rate_at(now)
        if current is not None and now - self._learned_at < WINDOW_SECONDS:
            return
        pace = allowed * SLOWDOWN if current is None else max(current / 2, min(current, allowed) * SLOWDOWN)
        self._rate = max(MIN_RATE, pace)
        self._learned_at = now

    def _forget_before(self, moment: float) -> None:
        for seen in (self._answers, self._refusals):
            while seen and seen[0] < moment:
                seen.popleft()


_GATES: dict[tuple[str, str], ThrottleGate] = {}
_GATES_LOCK = threading.Lock()


def shared_gate(endpoint: str, project_id: str) -> ThrottleGate:
    """The process's gate for the calls to one endpoint and project (real time)."""
    with _GATES_LOCK:
        gate = _GATES.get((endpoint, project_id))
        if gate is None:
            gate = _GATES[(endpoint, project_id)] = ThrottleGate()
        return gate


def gate_for(
    endpoint: str, project_id: str, clock: Callable[[], float], sleep: Callable[[float], None]
) -> ThrottleGate:
    """The process's gate for a transport on real time; a private one for one on an injected clock or sleep
    (tests), whose time is not the process's."""
    if clock is time.monotonic and sleep is time.sleep:
        return shared_gate(endpoint, project_id)
    return ThrottleGate(clock, sleep)

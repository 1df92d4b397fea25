"""Waiting jobs of one process share their polls: the phases of several jobs read by one search.

A stack of hundreds of jobs (a sweep) is served by one process (the native plugin; the dynamic provider
host, four calls at a time), and each create waits for its job on its own schedule (``polling.until``). Alone,
a job's poll is one ``GET`` by id, as it always was. While several jobs of the same account wait, a job whose
poll is due reads its own phase and that of up to nine others with one search (``id in [...]``; a filter takes
at most ten values and filters are all met at once, so ten is what one call can read), choosing the others
whose polls are due soonest: they get their answer early and carry on from it, so their polls fall on the
same beats and later searches stay full. Unthrottled, a job is never polled later than its own schedule
says. While the account's calls are paced (``throttling``: the account refused calls for its rate), each
call a poll makes is a turn that a create, a delete or a wait's final read waits for: then a round of
searches for all the waiting jobs takes at most ``PACED_POLL_SHARE`` of the pace, and polls are that much
further apart.

What a wait needs beyond the phase is read by id, once: a job whose search item ends its wait is read again
with ``GET`` (the outputs are the job's full document, and a failure report starts from it), and a job the
search does not return is read by id too, so a vanished job is told by ``ModelArts.2775`` exactly as before.
A search that fails, whatever the error, costs nothing but its call: each job it was for reads itself by id
(and meets the error there if it lasts); a search the service refuses (or answers with something unusable) is
not tried again in this process.

Only clients on real time share (one whose clock or sleep a test injected polls alone), and only jobs of the
same endpoint and project: the search is sent with the credentials of the job whose poll was due, and a job it
does not list (other credentials may see less) is read by id.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ...wire.api_errors import SearchRejectedError
from ...wire.errors import InvalidResponseError
from ...wire.throttling import ThrottleGate, shared_gate

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import TrainingJob
    from .polling import Step

__all__ = ["CLAIM_GRACE_SECONDS", "STOP_CHECK_SECONDS", "PollGroup", "group_for", "shared_step"]

# How often a sleeping wait looks at the deployment's stop event (a Ctrl-C), while a search may wake it.
STOP_CHECK_SECONDS = 0.25
# How long past its due a job waits for a search that holds it (retrying under throttling) before it reads
# itself by id.
CLAIM_GRACE_SECONDS = 10.0
# While the account's calls are paced, the share of its pace a round of polls of every waiting job may take
# (100 jobs at 25 calls a second: a round every 4 s). A fifth made 12 to 17 searches of a 100-job sweep, a
# tenth 11 to 14 (bench/waits.py).
PACED_POLL_SHARE = 0.1


class _Read:
    """The answer "read this job by id yourself" (not listed, or the search failed)."""


READ = _Read()


class _Watch:
    """One waiting job: when its poll is next due, and what a search found for it."""

    def __init__(self, job_id: str, client: ModelArtsAPI, ends: Callable[[TrainingJob], bool]) -> None:
        self.job_id = job_id
        self.client = client
        self.ends = ends
        self.due = 0.0
        self.asleep = False  # between polls: a search may read it early
        self.claim: object | None = None  # the search under way for it
        self.found: TrainingJob | _Read | None = None  # what that search found, until taken


class PollGroup:
    """The waiting jobs of one account in this process, and the searches that read them together."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, gate: ThrottleGate | None = None) -> None:
        self._clock = clock
        self._gate = gate  # the account's pace, which spaces the polls while it holds
        self._cond = threading.Condition()
        self._watches: list[_Watch] = []
        self.searchable = True
        self.searches = 0  # searches answered (tests, the benchmark)

    def __len__(self) -> int:
        with self._cond:
            return len(self._watches)

    @contextlib.contextmanager
    def watching(
        self, job_id: str, client: ModelArtsAPI, ends: Callable[[TrainingJob], bool]
    ) -> Iterator[Step]:
        """A step for ``polling.until`` (the job after a pause, or None once stopped) while job_id waits;
        ends(job): whether this job's wait is over in that phase (its document is then read by id)."""
        watch = _Watch(job_id, client, ends)
        with self._cond:
            self._watches.append(watch)
        try:
            yield lambda pause, stop, latest: self._step(watch, pause, stop, latest)
        finally:
            with self._cond:
                self._watches.remove(watch)

    def _step(
        self, watch: _Watch, pause: float, stop: threading.Event | None, latest: float
    ) -> TrainingJob | None:
        with self._cond:
            pause = max(pause, min(self._paced_pause(), latest))  # never past the wait's timeout
            watch.due, watch.asleep, watch.found = self._clock() + pause, True, None
            while watch.found is None:
                if stop is not None and stop.is_set():
                    watch.asleep = False
                    return None
                now = self._clock()
                if watch.claim is not None and now >= watch.due + CLAIM_GRACE_SECONDS:
                    watch.claim = None  # a search held up (retrying under throttling): read it alone
                if now >= watch.due and watch.claim is None:
                    break  # due, and no search has it: this thread polls (for others too)
                wait = watch.due - now + (0.0 if watch.claim is None else CLAIM_GRACE_SECONDS)
                self._cond.wait(min(wait, STOP_CHECK_SECONDS) if stop is not None else wait)
            watch.asleep = False
            found, watch.found = watch.found, None
            claim, batch = (object(), self._claimable(watch)) if found is None else (None, [])
            for w in batch:
                w.claim = claim
        if found is None:
            found = self._poll(watch, batch, claim)
        return self._settle(watch, found)

    def _paced_pause(self) -> float:
        """The least pause before the watch's next poll: none unless the account's calls are paced, else the
        time a round of searches for every waiting job takes at its share of the pace (the lock held)."""
        from ...wire.api import MAX_IDS_PER_SEARCH

        rate = None if self._gate is None else self._gate.rate()
        if rate is None:
            return 0.0
        searches = -(-len(self._watches) // MAX_IDS_PER_SEARCH)
        return searches / (PACED_POLL_SHARE * rate)

    def _claimable(self, watch: _Watch) -> list[_Watch]:
        """The watch and up to nine others asleep and unclaimed, soonest due first (the lock held)."""
        from ...wire.api import MAX_IDS_PER_SEARCH

        if not self.searchable:
            return [watch]
        others = [w for w in self._watches if w is not watch and w.asleep and w.claim is None]
        return [watch, *sorted(others, key=lambda w: w.due)[: MAX_IDS_PER_SEARCH - 1]]

    def _poll(self, watch: _Watch, batch: list[_Watch], claim: object) -> TrainingJob | _Read:
        """What one search found for each job of the batch (handed to the others); READ for one alone."""
        found: dict[str, TrainingJob] = {}
        searched = False
        if len(batch) > 1:
            try:
                found, searched = watch.client.jobs_by_id([w.job_id for w in batch]), True
            except (SearchRejectedError, InvalidResponseError):
                self.searchable = False  # this service cannot answer it: every job reads itself by id
            except Exception:
                # Throttled, unreachable, refused, or anything else (a credential source, a parser): each job
                # reads itself, within its own budget, and meets the error there if it lasts. Raised here, it
                # would hold the others' claims until their grace is over.
                pass
        with self._cond:
            self.searches += searched
            for w in batch:
                if w.claim is claim:
                    w.claim = None
                    if w is not watch:
                        w.found = found.get(w.job_id, READ)
            self._cond.notify_all()
        return found.get(watch.job_id, READ)

    @staticmethod
    def _settle(watch: _Watch, found: TrainingJob | _Read) -> TrainingJob:
        """The job for the wait: a search item while the wait goes on, else the job's document by id."""
        if isinstance(found, _Read) or watch.ends(found):
            return watch.client.get_job(watch.job_id)  # NotFoundError: the job vanished (polling says so)
        return found


_GROUPS: dict[tuple[str, str], PollGroup] = {}
_GROUPS_LOCK = threading.Lock()


def group_for(client: ModelArtsAPI) -> PollGroup | None:
    """The process's group for the client's account; None for a client on an injected clock (it polls
    alone: its time is not the process's)."""
    gate = shared_gate(client.transport.endpoint, client.transport.project_id)
    if client.transport.throttle_gate is not gate:
        return None
    with _GROUPS_LOCK:
        group = _GROUPS.get((client.transport.endpoint, client.transport.project_id))
        if group is None:
            group = _GROUPS[(client.transport.endpoint, client.transport.project_id)] = PollGroup(gate=gate)
        return group


@contextlib.contextmanager
def shared_step(
    client: ModelArtsAPI, job_id: str, ends: Callable[[TrainingJob], bool]
) -> Iterator[Step | None]:
    """The step that shares job_id's polls with the process's other waits (None: poll alone, as before)."""
    group = group_for(client)
    if group is None:
        yield None
        return
    with group.watching(job_id, client, ends) as step:
        yield step

"""A create whose answer was lost or unusable: the job it made, found by name and judged by ``judging``.

The client (``api.ModelArtsAPI.create_job``) knows *when* a post may have created the job without a usable
answer (no answer after sending, a 5xx, a success status with a body it cannot read) and never posts twice
for it; this module decides *which* job that is. A job of exactly that name created since the create began
is that request's own (``judging.judge`` with ``sent``), whatever its body says and even when it already
failed. ``held_names`` answers the same question for a name the service says is taken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...wire.api_errors import APIError
from ...wire.errors import InvalidResponseError, TransportError
from . import judging
from .judging import CLOCK_SKEW_SECONDS

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import TrainingJob

__all__ = ["CLOCK_SKEW_SECONDS", "LostCreate"]

_BEFORE_POSTING_AGAIN = "the request may have been applied; looking for the job before posting again"


class LostCreate:
    """The recovery of one create (``api.CreateRecovery``): started is when it began (epoch seconds), skew
    the clock difference allowed between this machine and the service."""

    def __init__(
        self, client: ModelArtsAPI, name: str, *, started: float, skew: float = CLOCK_SKEW_SECONDS
    ) -> None:
        self._client = client
        self._name = name
        self._since_ms = judging.since_ms(started, skew)

    def find(self, operation: str, *, looking: str | None = None) -> TrainingJob | None:
        """The job a create whose answer was lost made, or None; a failed search is a TransportError saying
        the create may or may not have been applied.

        looking: what the progress line says is being done (by default: before posting again).
        """
        from ...wire.models import SearchFilter

        say = self._client.transport.say
        say(f"{operation}: {looking or _BEFORE_POSTING_AGAIN}")
        by_name = [SearchFilter(key="name", operator="like", value=[self._name])]
        try:
            for job in self._client.iter_jobs(by_name):
                meta = job.metadata
                if meta.name != self._name or not meta.id:
                    continue
                judgment = judging.judge(
                    phase=job.phase, created_ms=meta.create_time, since_ms=self._since_ms, sent=True
                )
                if judgment.holding is judging.Holding.ADOPT:
                    say(f"{operation}: found the job the earlier attempt created; not creating it again")
                    return job
        except (APIError, TransportError, InvalidResponseError) as exc:
            raise TransportError(
                operation,
                "the create request may or may not have been applied, and looking for the job by name failed "
                f"too ({exc}); check the ModelArts console before retrying",
            ) from exc
        return None

    def adopt(self, error: InvalidResponseError) -> TrainingJob:
        """After a create answered with a success status but an unusable body (error): the job it made, found
        by name (never a second post), else error's InvalidResponseError saying what the search found."""
        looking = "the job was created but the answer could not be read; looking for it by name"
        try:
            found = self.find(error.operation, looking=looking)
        except TransportError as lookup:
            outcome = f"and looking for it by name failed too ({lookup.__cause__ or lookup})"
        else:
            if found is not None:
                return found
            outcome = "but a search by its name does not list it"
        raise InvalidResponseError(
            error.operation,
            f"{error.problem}; the job was probably created, {outcome}; check the ModelArts console before "
            "retrying",
            status_code=error.status_code,
            excerpt=error.excerpt,
            request_id=error.request_id,
        ) from None

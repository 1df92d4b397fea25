"""ModelArtsClient: the ModelArts training-job API client the provider and its tests use.

The HTTP work is done below it: ``transport`` (one connection pool, one attempt, the retry loop and its
decisions), ``answers`` (an answer read, checked, mapped to its typed error, validated) and ``api`` (the
operations and paging). This class adds the public constructor (its defaults) and, for ``create_job``, the
job layer's recovery of a create whose answer was lost or unusable (``lost_creates``), so every caller gets
the same rule: never post a job twice, look for it by name instead.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx

from ..account.settings import Settings
from ..wire.api import MAX_PAGE_SIZE, CreateRecovery, ModelArtsAPI
from ..wire.models import CreateTrainingJobRequest, TrainingJob, to_wire
from .lost_creates import CLOCK_SKEW_SECONDS, LostCreate

__all__ = ["MAX_PAGE_SIZE", "ModelArtsClient"]


class ModelArtsClient(ModelArtsAPI):
    """ModelArts training-job API client. Use as a context manager, or call `close()`.

    `sleep`, `clock` (monotonic seconds), `wall_clock` (epoch seconds) and `rng` (0..1) are injectable so
    tests run without waiting. `secrets` are the strings scrubbed from every error message: the credentials
    behind `auth` (`from_settings` passes them), and whatever `hide` adds. `create_skew_seconds`: the clock
    difference allowed between this machine and the service when a lost create is looked for.
    """

    def __init__(
        self,
        *,
        endpoint: str,
        project_id: str,
        auth: httpx.Auth,
        timeout: float = 30.0,
        max_attempts: int = 5,
        max_retry_seconds: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        log: Callable[[str], None] | None = None,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        create_skew_seconds: float = CLOCK_SKEW_SECONDS,
        secrets: Iterable[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        rng: Callable[[], float] = random.random,
    ) -> None:
        super().__init__(
            endpoint=endpoint,
            project_id=project_id,
            auth=auth,
            timeout=timeout,
            max_attempts=max_attempts,
            max_retry_seconds=max_retry_seconds,
            transport=transport,
            log=log,
            base_delay=base_delay,
            max_delay=max_delay,
            secrets=secrets,
            sleep=sleep,
            clock=clock,
            rng=rng,
        )
        self.create_skew_seconds = create_skew_seconds
        self._wall_clock = wall_clock

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> ModelArtsClient:
        """A client for resolved settings; keyword arguments go to the constructor (timeout, log, ...)."""
        return cls(
            endpoint=settings.endpoint,
            project_id=settings.project_id,
            auth=settings.auth(),
            secrets=settings.secrets(),
            **kwargs,
        )

    def __repr__(self) -> str:
        return f"ModelArtsClient(endpoint={self.endpoint!r}, project_id={self.project_id!r})"

    def create_job(
        self, request: CreateTrainingJobRequest, recovery: CreateRecovery | None = None
    ) -> TrainingJob:
        """Create a training job; after an ambiguous failure, find a job this call already created first.

        recovery: how that job is found (by default ``lost_creates.LostCreate``, from when this call began).
        """
        return self.post_job(to_wire(request), recovery)

    def post_job(self, body: Mapping[str, Any], recovery: CreateRecovery | None = None) -> TrainingJob:
        """``create_job`` for a request already on the wire (``to_wire`` of it), with the same recovery."""
        if recovery is None:
            metadata = body.get("metadata")
            name = metadata.get("name") if isinstance(metadata, Mapping) else None
            recovery = LostCreate(self, name or "", started=self._wall_clock(), skew=self.create_skew_seconds)
        return super().post_job(body, recovery)

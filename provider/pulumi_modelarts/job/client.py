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

from ..account.session import open_session
from ..account.settings import Settings
from ..wire.api import MAX_PAGE_SIZE, CreateRecovery, ModelArtsAPI
from ..wire.errors import redact
from ..wire.models import CreateTrainingJobRequest, TrainingJob, to_wire
from .lost_creates import CLOCK_SKEW_SECONDS, LostCreate

__all__ = ["MAX_PAGE_SIZE", "ModelArtsClient"]


class ModelArtsClient(ModelArtsAPI):
    """ModelArts training-job API client. Use as a context manager, or call `close()`.

    `sleep`, `clock` (monotonic seconds), `wall_clock` (epoch seconds) and `rng` (0..1) are injectable so
    tests run without waiting. `secrets` are the strings scrubbed from every error message: the credentials
    behind `auth` (`from_settings` passes them), and whatever `hide` adds; `renewed_secrets`, asked at each
    scrub, those that change while the client works (temporary keys renewed, the tokens that got them).
    `create_skew_seconds`: the clock difference allowed between this machine and the service when a lost
    create is looked for. `ca_cert_file`: a PEM file of authorities trusted besides the system's (a private
    CA). `base_delay`, `max_delay` (seconds, also attributes read at each retry): the pause before a retry,
    doubling from base_delay up to max_delay, jittered, never shorter than the service's Retry-After; a
    base_delay of 0 retries without pausing (tests).
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
        renewed_secrets: Callable[[], Iterable[str]] = tuple,
        ca_cert_file: str | None = None,
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
            ca_cert_file=ca_cert_file,
        )
        self._renewed_secrets = renewed_secrets
        self.auth = auth  # the signer (account.keys.RenewingAuth when keys renew)
        self.create_skew_seconds = create_skew_seconds
        self._wall_clock = wall_clock

    @classmethod
    def from_settings(
        cls, settings: Settings, *, within: float | None = None, **kwargs: Any
    ) -> ModelArtsClient:
        """A client for resolved settings; keyword arguments go to the constructor (timeout, log, ...).

        Opening it finds the project in IAM when no id is given (once per process) and fetches temporary keys
        when they are what signs (``account.session``): a client is opened only for calls about to be made,
        and waits for that set-up at most within seconds (None: the set-up's own bounds).
        """
        session = open_session(settings, within=within)
        return cls(
            endpoint=settings.endpoint,
            project_id=session.project_id,
            auth=session.auth,
            secrets=settings.secrets(),
            renewed_secrets=session.secrets,
            ca_cert_file=session.ca_cert_file,
            **kwargs,
        )

    def scrub(self, text: str) -> str:
        return redact(super().scrub(text), tuple(self._renewed_secrets()))

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

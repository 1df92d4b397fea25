"""ModelArtsClient: the ModelArts training-job API client the provider and its tests use.

The HTTP work is done below it: ``transport`` (one connection pool, one attempt, the retry loop and its
decisions), ``answers`` (an answer read, checked, mapped to its typed error, validated) and ``api`` (the
operations and paging). This class adds the public constructor (its defaults), the opening from settings and
the scrubbing of renewed secrets. A create is handed its recovery (``create_job``'s ``recovery``: the job
layer's ``lost_creates.LostCreate``, as ``held_names`` passes it), which finds by name a job whose answer
was lost or unusable rather than post it twice.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any

import httpx

from ..account.session import open_session
from ..account.settings import Settings
from ..wire.api import MAX_PAGE_SIZE, ModelArtsAPI
from ..wire.errors import redact

__all__ = ["MAX_PAGE_SIZE", "ModelArtsClient"]


class ModelArtsClient(ModelArtsAPI):
    """ModelArts training-job API client. Use as a context manager, or call `close()`.

    `sleep`, `clock` (monotonic seconds) and `rng` (0..1) are injectable so
    tests run without waiting. `secrets` are the strings scrubbed from every error message: the credentials
    behind `auth` (`from_settings` passes them), and whatever `hide` adds; `renewed_secrets`, asked at each
    scrub, those that change while the client works (temporary keys renewed, the tokens that got them).
    `ca_cert_file`: a PEM file of authorities trusted besides the system's (a private
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
        secrets: Iterable[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
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

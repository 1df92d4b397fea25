"""Temporary keys that renew themselves, and the signer that takes the current ones for every request.

Keys with an expiry (the instance metadata service's, an agency's, an OIDC login's) are fetched again before
they run out, by whichever call of the process first finds them due, under a lock: every thread of the process
(the native plugin serves many jobs at once) shares one ``RenewingKeys`` per identity, so a renewal is one
fetch, never one per job.

When to renew: ``RENEW_AHEAD_SECONDS`` (10 minutes, Terraform's margin) before expiry, or a third of the keys'
lifetime when that is shorter. Ten minutes covers a whole call with its retries (30 s timeout, at most 120 s
of retry pauses) and any clock difference worth tolerating, and keeps a 24-hour metadata key from being
fetched again for 23 h 50 min; the official SDK's 40 minutes would renew a 15-minute agency key (IAM's
shortest) at every call. The fraction keeps a short-lived key (an emulator's few seconds) in use for two
thirds of its life. A key that still runs when a renewal fails is kept, and the renewal tried again shortly: a
metadata service that hiccups must not fail a deployment whose keys still work.

Keys handed out already expired, or with less than ``MIN_KEY_SECONDS`` left (a source's clock, or this
machine's, far off), are asked for once more, then refused with an error naming the source: used, each call
would fetch again. Whatever a source raises, an unreadable answer or a library's error, becomes an
``AccountError`` naming the source, and so do keys a header cannot carry: never a bare exception, never a
value.
"""

from __future__ import annotations

import collections
import logging
import math
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, NoReturn, Protocol

import httpx

from ..wire.auth import AkSkAuth
from ..wire.errors import ModelArtsError
from ..wire.sendable import header_value_problem
from .errors import AccountError

__all__ = [
    "RENEW_AHEAD_FRACTION",
    "RENEW_AHEAD_SECONDS",
    "AccountError",
    "KeySource",
    "RenewingAuth",
    "RenewingKeys",
    "TemporaryKeys",
    "keys_from_answer",
    "renewal_time",
]

RENEW_AHEAD_SECONDS = 600.0
RENEW_AHEAD_FRACTION = 1 / 3
# After a failed renewal (keys still valid): ask again after this long at most, so a flaky source is neither
# hammered at every call nor left until the keys are gone.
RETRY_RENEWAL_SECONDS = 30.0
# Secrets of earlier keys stay scrubbed for a while: an error may quote a key that was just replaced.
REMEMBERED_SECRETS = 48
# Keys with less than this left when handed out cannot sign a call and its answer; an emulator's shortest keys
# last a second or two.
MIN_KEY_SECONDS = 1.0

_LOG = logging.getLogger(__name__)
_EXPIRES_FORMATS = ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, repr=False)
class TemporaryKeys:
    """An access key, its secret and security token; ``expires_at`` in epoch seconds (None: no expiry)."""

    access: str
    secret: str
    security_token: str
    expires_at: float | None

    def __repr__(self) -> str:
        return f"TemporaryKeys(access='{self.access[:4]}…', expires_at={self.expires_at!r})"

    def __reduce__(self) -> NoReturn:
        raise TypeError("TemporaryKeys holds credentials and must not be pickled")

    def values(self) -> tuple[str, str, str]:
        return (self.access, self.secret, self.security_token)


def _epoch(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    for fmt in _EXPIRES_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc).timestamp()
        except ValueError:
            continue
    return None


def keys_from_answer(payload: Any, what: str) -> TemporaryKeys:
    """``{"credential": {access, secret, securitytoken, expires_at}}`` as IAM and the metadata service answer
    it; AccountError naming ``what`` (and only the missing fields' names) when it is not that."""
    credential = payload.get("credential") if isinstance(payload, Mapping) else None
    if not isinstance(credential, Mapping):
        raise AccountError(f"{what} answered without a credential object")
    fields = {name: credential.get(name) for name in ("access", "secret", "securitytoken")}
    given = {name: value for name, value in fields.items() if isinstance(value, str) and value}
    missing = [name for name in fields if name not in given]
    expires_at = _epoch(credential.get("expires_at"))
    if expires_at is None:
        missing.append("expires_at")
    if missing:
        raise AccountError(f"{what} answered a credential without a usable {', '.join(missing)}")
    unsendable = [name for name in ("access", "securitytoken") if header_value_problem(given[name])]
    if unsendable:
        raise AccountError(
            f"{what} answered a credential whose {' and '.join(unsendable)} cannot be sent in a request "
            "header (only visible ASCII, no spaces)"
        )
    return TemporaryKeys(given["access"], given["secret"], given["securitytoken"], expires_at)


def renewal_time(fetched_at: float, expires_at: float) -> float:
    """When keys fetched at ``fetched_at`` are renewed: the module's margin before ``expires_at``."""
    lifetime = max(0.0, expires_at - fetched_at)
    return expires_at - min(RENEW_AHEAD_SECONDS, lifetime * RENEW_AHEAD_FRACTION)


class KeySource(Protocol):
    """Where temporary keys come from (the metadata service, an agency, an OIDC login)."""

    @property
    def name(self) -> str:
        """For messages and the debug log: the service and where it is, never a credential."""

    def fetch(self) -> TemporaryKeys:
        """New keys, or AccountError (TransportError for no answer)."""

    def secrets(self) -> tuple[str, ...]:
        """What else it handled that must never be shown: subject tokens, id tokens."""


class RenewingKeys:
    """The current keys of one source, fetched on first use and again when due; thread-safe."""

    def __init__(self, source: KeySource, *, clock: Callable[[], float] = time.time) -> None:
        self.source = source
        self._clock = clock
        self._lock = threading.Lock()  # held through a renewal
        self._seen_lock = threading.Lock()  # not the renewal's: a renewal's own error text is scrubbed
        self._keys: TemporaryKeys | None = None
        self._renew_at = math.inf
        self._seen: collections.deque[str] = collections.deque(maxlen=REMEMBERED_SECRETS)
        self.fetches = 0
        self._failed: tuple[float, str] | None = None  # when the last fetch failed, and why, until one works

    def __repr__(self) -> str:
        return f"RenewingKeys({self.source.name}, fetches={self.fetches})"

    def __reduce__(self) -> NoReturn:
        raise TypeError("RenewingKeys holds credentials and must not be pickled")

    def current(self) -> TemporaryKeys:
        """Keys to sign with now: fetched when there are none yet or their renewal time has come. While one
        thread renews keys that still work, the others sign with those rather than wait on the fetch (a slow
        metadata service or IAM would hold every call of the process)."""
        keys = self._keys
        if keys is not None and self._clock() < self._renew_at:
            return keys
        if keys is not None and self._still_good(keys):
            if not self._lock.acquire(blocking=False):
                return keys  # another thread is renewing them
        else:
            self._lock.acquire()
        try:
            if self._keys is None or self._clock() >= self._renew_at:
                return self._renew(proactive=self._keys is not None)
            return self._keys
        finally:
            self._lock.release()

    def _still_good(self, keys: TemporaryKeys) -> bool:
        """Whether keys can still sign a call and its answer (MIN_KEY_SECONDS and more left)."""
        return keys.expires_at is None or keys.expires_at - self._clock() >= MIN_KEY_SECONDS

    def renew(self, refused_access: str) -> bool:
        """The keys with this access key were refused as expired: fetch new ones, unless another call did
        already. Whether the keys now differ from the refused ones."""
        with self._lock:
            if self._keys is not None and self._keys.access != refused_access:
                return True
            return self._renew(proactive=False).access != refused_access

    def secrets(self) -> tuple[str, ...]:
        """Every secret of the recent keys and what the source handled, for scrubbing text."""
        with self._seen_lock:
            seen = tuple(self._seen)
        return seen + self.source.secrets()

    def _renew(self, *, proactive: bool) -> TemporaryKeys:
        now = self._clock()
        old = self._keys
        usable = proactive and old is not None and old.expires_at is not None and old.expires_at > now
        if not usable and self._failed is not None and now - self._failed[0] < RETRY_RENEWAL_SECONDS:
            # The threads that waited on the lock through a failed fetch get its answer, not one fetch each.
            raise AccountError(self._failed[1])
        try:
            keys = self._fetch_usable()
        except AccountError as exc:
            self._failed = (self._clock(), str(exc))
            if not usable:
                raise
            assert old is not None and old.expires_at is not None
            # Still valid: keep them, and try again soon.
            self._renew_at = now + min(RETRY_RENEWAL_SECONDS, (old.expires_at - now) / 4)
            _LOG.debug("renewing keys from %s failed; the current ones run for %.0f s more",
                       self.source.name, old.expires_at - now)  # fmt: skip
            return old
        now = self._clock()
        self.fetches, self._keys, self._failed = self.fetches + 1, keys, None
        with self._seen_lock:
            self._seen.extend(v for v in keys.values() if v not in self._seen)
        if keys.expires_at is None:
            self._renew_at = math.inf
        else:
            self._renew_at = renewal_time(now, keys.expires_at)
            _LOG.debug("keys from %s, good for %.0f s", self.source.name, keys.expires_at - now)
        return keys

    def _fetch_usable(self) -> TemporaryKeys:
        """Keys from the source with at least MIN_KEY_SECONDS left, asked for a second time when the first
        have not; AccountError naming the source for anything else."""
        for attempt in (1, 2):
            keys = self._fetch()
            left = math.inf if keys.expires_at is None else keys.expires_at - self._clock()
            if left >= MIN_KEY_SECONDS:
                return keys
            if attempt == 1:
                _LOG.debug("keys from %s expire in %.0f s; asking once more", self.source.name, left)
        state = "had already expired" if left <= 0 else f"expire within {MIN_KEY_SECONDS:g} s"
        raise AccountError(
            f"{self.source.name} handed out temporary keys that {state}, twice in a row: check this "
            "machine's clock (the keys' expiry is compared with it), and the source's"
        )

    def _fetch(self) -> TemporaryKeys:
        """source.fetch(), whatever it raises made an error of this package naming the source (a library's
        own text may quote what it was handling: only its kind is named)."""
        try:
            return self.source.fetch()
        except ModelArtsError as exc:
            if isinstance(exc, AccountError):
                raise
            raise AccountError(f"fetching temporary keys from {self.source.name} failed: {exc}") from None
        except Exception as exc:
            raise AccountError(
                f"fetching temporary keys from {self.source.name} failed ({type(exc).__name__})"
            ) from None


class RenewingAuth(httpx.Auth):
    """Signs each request (SDK-HMAC-SHA256, with X-Security-Token) with the keys current when it is sent.

    ``renew`` is what the transport calls when a request was refused because its key expired (APIG.0307):
    the keys renewed are the ones this thread last signed with (httpx runs the signer on the sending thread).
    """

    requires_request_body = True

    def __init__(self, keys: RenewingKeys, *, project_id: str | None = None) -> None:
        self.keys = keys
        self._project_id = project_id
        self._signed = threading.local()

    def __repr__(self) -> str:
        return f"RenewingAuth({self.keys.source.name}, project_id={self._project_id!r})"

    def __reduce__(self) -> NoReturn:
        raise TypeError("RenewingAuth holds credentials and must not be pickled")

    def for_project(self, project_id: str | None) -> RenewingAuth:
        """The same keys, sending this X-Project-Id (None: none, as IAM's own calls)."""
        return RenewingAuth(self.keys, project_id=project_id)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        keys = self.keys.current()
        self._signed.access = keys.access
        signer = AkSkAuth(
            keys.access, keys.secret, security_token=keys.security_token, project_id=self._project_id
        )
        yield from signer.auth_flow(request)

    def renew(self) -> bool:
        """Fresh keys after the request this thread last sent was refused as expired; False when none can be
        had."""
        refused = getattr(self._signed, "access", None)
        return refused is not None and self.keys.renew(refused)

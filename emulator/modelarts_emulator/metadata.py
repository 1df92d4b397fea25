"""The instance metadata service of an ECS/CCE node with an agency attached, on loopback.

* ``PUT /meta-data/latest/api/token`` with ``X-Metadata-Token-Ttl-Seconds`` (1 to 21600) → 200, the token as
  plain text; 404 with ``metadata_tokens`` off, as an older metadata service that has no tokens;
* ``GET /openstack/latest/securitykey`` (``X-Metadata-Token`` required while tokens are on) → 200
  ``{"credential": {access, secret, securitytoken, expires_at}}``; 401 without a valid token; 401 "Please
  configure Cloud Service Agency first" with ``metadata_agency`` off.

The same key is handed out until half its life has passed, then a new one, so a caller that refreshes ahead
of expiry gets a fresh key (the emulator's choice: no page says when the real service rotates it).
"""

from __future__ import annotations

import secrets
import threading
import time

from aiohttp import web

from .config import AccountSettings
from .temporary_keys import IssuedKey, TemporaryKeys

MAX_TOKEN_TTL_SECONDS = 21600
KEY_SECONDS = 86400
NO_AGENCY = "Please configure Cloud Service Agency first"


class MetadataRoutes:
    def __init__(self, settings: AccountSettings, keys: TemporaryKeys) -> None:
        self._settings = settings
        self._keys = keys
        self._lock = threading.Lock()
        self._tokens: dict[str, float] = {}  # metadata token -> when it expires
        self._current: IssuedKey | None = None

    def register(self, router: web.UrlDispatcher) -> None:
        router.add_put("/meta-data/latest/api/token", self._token)
        router.add_get("/openstack/latest/securitykey", self._security_key)

    def clear(self) -> None:
        with self._lock:
            self._tokens.clear()
            self._current = None

    async def _token(self, request: web.Request) -> web.StreamResponse:
        self._keys.called("metadata_token")
        if not self._settings.metadata_tokens:
            return web.Response(status=404, text="404 Not Found")
        ttl = request.headers.get("X-Metadata-Token-Ttl-Seconds", "")
        if not ttl.isdigit() or not 1 <= int(ttl) <= MAX_TOKEN_TTL_SECONDS:
            return web.Response(status=400, text="X-Metadata-Token-Ttl-Seconds must be 1 to 21600.")
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._tokens[token] = time.time() + int(ttl)
        return web.Response(text=token)

    async def _security_key(self, request: web.Request) -> web.StreamResponse:
        self._keys.called("securitykey")
        if self._settings.metadata_tokens and not self._token_valid(request.headers.get("X-Metadata-Token")):
            return web.Response(status=401, text="401 Unauthorized: X-Metadata-Token is missing or invalid.")
        if not self._settings.metadata_agency:
            return web.Response(status=401, text=f"{NO_AGENCY}.")
        return web.json_response({"credential": self._key().credential()})

    def _token_valid(self, token: str | None) -> bool:
        with self._lock:
            return token is not None and self._tokens.get(token, 0.0) > time.time()

    def _key(self) -> IssuedKey:
        now = time.time()
        lifetime = self._settings.temporary_key_seconds or KEY_SECONDS
        with self._lock:
            # Looked up again: an expiry (POST /_emulator/credentials/expire) changes the store's copy.
            current = self._keys.find(self._current.access) if self._current else None
            if current is None or current.expires_at - now < lifetime / 2:
                current = self._keys.issue("metadata", self._settings.domain_id, lifetime, now)
                self._current = current
            return current

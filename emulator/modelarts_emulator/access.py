"""Who sent a request: the base keys, the configured token, or a temporary credential the emulator issued.

A temporary key is accepted with its own ``X-Security-Token`` (signed, as the official SDK signs every
header it sets) until it expires; then the gateway's ``APIG.0307`` "The token must be updated." Every other
refusal is ``APIG.0301``, as before temporary keys existed.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from aiohttp import web

from . import signing
from .config import EmulatorConfig
from .errors import AUTH_FAILED, TOKEN_EXPIRED, ServiceError
from .temporary_keys import IssuedKey, TemporaryKeys

SECURITY_TOKEN = "x-security-token"


@dataclass(frozen=True)
class Caller:
    domain_id: str  # the account whose projects the caller sees
    credential: str  # base, auth_token, subject_token, or how its temporary key was issued


@dataclass(frozen=True)
class SignedRequest:
    method: str
    raw_path: str  # without the query
    raw_query: str
    headers: Mapping[str, str]  # lower-case names
    body: bytes


def signed_request(request: web.Request, body: bytes) -> SignedRequest:
    return SignedRequest(
        method=request.method,
        raw_path=request.raw_path.partition("?")[0],
        raw_query=request.rel_url.raw_query_string,
        headers={name.lower(): value for name, value in request.headers.items()},
        body=body,
    )


def refused(message: str) -> ServiceError:
    return ServiceError(401, AUTH_FAILED, f"Incorrect authentication: {message}")


def expired() -> ServiceError:
    return ServiceError(401, TOKEN_EXPIRED, "The token must be updated.")


class Access:
    def __init__(self, config: EmulatorConfig, keys: TemporaryKeys) -> None:
        self._config = config
        self._keys = keys

    def authenticate(self, request: SignedRequest, now: datetime, *, subject_tokens: bool = False) -> Caller:
        """The caller, or a ServiceError (401) saying why not; ``subject_tokens`` also accepts the unscoped
        tokens of id-token logins in ``X-Auth-Token`` (IAM's own calls do, ModelArts' do not)."""
        token = request.headers.get("x-auth-token")
        if token is not None:
            return self.token_caller(token, now, subject_tokens=subject_tokens)
        parts = signing.parse_authorization(request.headers.get("authorization", ""))
        if parts is not None and parts.access_key != self._config.access_key:
            key = self._keys.find(parts.access_key)
            if key is not None:
                return self._temporary_caller(key, parts, request, now)
        problem = self._verify(self._config.access_key, self._config.secret_key, request, now)
        if problem is not None:
            raise refused(problem)
        return Caller(self._config.accounts.domain_id, "base")

    def token_caller(self, token: str, now: datetime, *, subject_tokens: bool) -> Caller:
        configured = self._config.auth_token
        if configured and hmac.compare_digest(token.encode(), configured.encode()):
            return Caller(self._config.accounts.domain_id, "auth_token")
        found = self._keys.find_token(token) if subject_tokens else None
        if found is None:
            raise refused("The token is invalid or token authentication is not enabled.")
        if found.expires_at <= now.timestamp():
            self._keys.refused("expired_token")
            raise expired()
        return Caller(found.domain_id, "subject_token")

    def _temporary_caller(
        self, key: IssuedKey, parts: signing.Authorization, request: SignedRequest, now: datetime
    ) -> Caller:
        sent = request.headers.get(SECURITY_TOKEN)
        if sent is None:
            raise refused("X-Security-Token is required with a temporary access key.")
        if not hmac.compare_digest(sent.encode(), key.security_token.encode()):
            raise refused("The security token does not belong to the access key.")
        if SECURITY_TOKEN not in parts.signed_headers:
            raise refused("X-Security-Token must be a signed header.")
        problem = self._verify(key.access, key.secret, request, now)
        if problem is not None:
            raise refused(problem)
        # Checked last, so only a caller holding the whole key learns that it expired.
        if key.expires_at <= now.timestamp():
            self._keys.refused("expired_key")
            raise expired()
        return Caller(key.domain_id, key.method)

    @staticmethod
    def _verify(access_key: str, secret_key: str, request: SignedRequest, now: datetime) -> str | None:
        return signing.verify(
            access_key=access_key,
            secret_key=secret_key,
            method=request.method,
            raw_path=request.raw_path,
            raw_query=request.raw_query,
            headers=request.headers,
            body=request.body,
            now=now,
        )

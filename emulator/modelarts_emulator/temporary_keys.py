"""Temporary credentials the emulator issues (IAM security tokens, the metadata service's keys, id-token
logins' subject tokens), until when each is good, and counts of what was issued and refused, for tests.

Kept in memory only: a restarted emulator has forgotten every temporary key, as a caller would expect of
credentials that expire anyway.
"""

from __future__ import annotations

import secrets
import string
import threading
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

# IAM's format, with microseconds; the official SDK parses exactly "%Y-%m-%dT%H:%M:%S.%fZ".
EXPIRES_AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_ACCESS_ALPHABET = string.ascii_uppercase + string.digits


def expires_at_text(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime(EXPIRES_AT_FORMAT)


@dataclass(frozen=True)
class IssuedKey:
    access: str
    secret: str
    security_token: str
    expires_at: float  # seconds since the epoch
    method: str  # how it was issued: assume_role, token, metadata
    domain_id: str  # the account whose projects it sees

    def credential(self) -> dict[str, str]:
        """``{"credential": …}``'s inside, as IAM and the metadata service answer it."""
        return {
            "access": self.access,
            "secret": self.secret,
            "securitytoken": self.security_token,
            "expires_at": expires_at_text(self.expires_at),
        }


@dataclass(frozen=True)
class SubjectToken:
    value: str
    expires_at: float
    domain_id: str


class TemporaryKeys:
    """Thread-safe: the app's handlers and the emulator-only endpoints share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[str, IssuedKey] = {}
        self._tokens: dict[str, SubjectToken] = {}
        self._issued: Counter[str] = Counter()
        self._refused: Counter[str] = Counter()
        self._calls: Counter[str] = Counter()

    def called(self, operation: str) -> None:
        """Counts a call to IAM or the metadata service, refused ones included."""
        with self._lock:
            self._calls[operation] += 1

    def issue(self, method: str, domain_id: str, lifetime: float, now: float) -> IssuedKey:
        key = IssuedKey(
            # 20 upper-case letters and digits, as IAM's access keys; the "T" prefix cannot clash with
            # a base key the emulator was given, which is checked first anyway.
            access="T" + "".join(secrets.choice(_ACCESS_ALPHABET) for _ in range(19)),
            secret=secrets.token_urlsafe(30),
            security_token="emulator-sts-" + secrets.token_urlsafe(96),
            expires_at=now + lifetime,
            method=method,
            domain_id=domain_id,
        )
        with self._lock:
            self._keys[key.access] = key
            self._issued[method] += 1
        return key

    def find(self, access: str) -> IssuedKey | None:
        with self._lock:
            return self._keys.get(access)

    def issue_token(self, domain_id: str, lifetime: float, now: float) -> SubjectToken:
        token = SubjectToken("emulator-subject-" + secrets.token_urlsafe(48), now + lifetime, domain_id)
        with self._lock:
            self._tokens[token.value] = token
            self._issued["id_token"] += 1
        return token

    def find_token(self, value: str) -> SubjectToken | None:
        with self._lock:
            return self._tokens.get(value)

    def refused(self, reason: str) -> None:
        with self._lock:
            self._refused[reason] += 1

    def expire_all(self, now: float) -> int:
        """Expire every issued key and token now (tests of renewal need not wait); how many keys were live."""
        with self._lock:
            live = [k for k in self._keys.values() if k.expires_at > now]
            for key in live:
                self._keys[key.access] = replace(key, expires_at=now)
            for token in list(self._tokens.values()):
                self._tokens[token.value] = replace(token, expires_at=min(token.expires_at, now))
            return len(live)

    def snapshot(self, now: float) -> dict[str, Any]:
        with self._lock:
            keys = [
                {
                    "access": key.access,
                    "method": key.method,
                    "domain_id": key.domain_id,
                    "expires_at": expires_at_text(key.expires_at),
                    "expired": key.expires_at <= now,
                }
                for key in self._keys.values()
            ]
            return {
                "issued": dict(self._issued),
                "issued_keys": sum(n for method, n in self._issued.items() if method != "id_token"),
                "refused": dict(self._refused),
                "calls": dict(self._calls),
                "keys": keys,
            }

    def clear(self) -> None:
        with self._lock:
            self._keys.clear()
            self._tokens.clear()
            self._issued.clear()
            self._refused.clear()
            self._calls.clear()

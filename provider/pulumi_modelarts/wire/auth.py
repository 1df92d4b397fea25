"""Request authentication for the ModelArts API.

Huawei Cloud's AK/SK scheme ("SDK-HMAC-SHA256") signs a canonical form of each request. The canonicalisation
steps are small pure functions so that the emulator can verify exactly what the client signs, and tests can
pin each step against the official SDK's signer.

A signer whose keys can be renewed says so (``RenewableAuth``): the transport then answers the refusal of
expired keys (the gateway's APIG.0307, "The token must be updated") with fresh ones. The renewing signer
itself lives with the account (``account.keys.RenewingAuth``): the wire knows only this protocol.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Generator, Iterable, Mapping
from datetime import datetime, timezone
from typing import NamedTuple, NoReturn, Protocol, runtime_checkable
from urllib.parse import quote, unquote, unquote_plus

import httpx

ALGORITHM = "SDK-HMAC-SHA256"
DATE_FORMAT = "%Y%m%dT%H%M%SZ"
DATE_HEADER = "X-Sdk-Date"
CONTENT_HASH_HEADER = "X-Sdk-Content-Sha256"
EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
# Headers signed when present, lower case and in the sorted order the canonical form lists them.
_SIGNABLE = ("content-type", "host", "x-project-id", "x-sdk-content-sha256", "x-sdk-date", "x-security-token")
# A path made only of unreserved characters and "/" is its own canonical form (nothing to decode or encode).
_PLAIN_PATH = re.compile(r"[A-Za-z0-9._~/-]*")


def _encode(text: str) -> str:
    # RFC 3986 unreserved characters stay as they are; the SDK keeps only "~" beyond quote()'s defaults.
    return quote(text, safe="~")


def canonical_uri(path: str) -> str:
    """The path with each segment percent-encoded, always ending in "/" (only in the signed form)."""
    if _PLAIN_PATH.fullmatch(path):
        return path if path.endswith("/") else path + "/"
    encoded = "/".join(_encode(segment) for segment in unquote(path).split("/"))
    return encoded if encoded.endswith("/") else encoded + "/"


def query_pairs(raw_query: str, *, errors: str = "replace") -> list[tuple[str, str]]:
    """Decode a raw query string into (key, value) pairs, keeping blanks and repeats.

    "+" is a space: that is how httpx reads its own URLs and encodes `params=`, and how most servers read a
    query. A key without "=" has a blank value. Escapes that are not UTF-8 become U+FFFD, as in the official
    signer's canonical form, unless `errors="strict"`.
    """
    pairs: list[tuple[str, str]] = []
    for item in raw_query.split("&"):
        if not item:
            continue
        key, _, value = item.partition("=")
        pairs.append((unquote_plus(key, errors=errors), unquote_plus(value, errors=errors)))
    return pairs


def wire_query(pairs: Iterable[tuple[str, str]]) -> str:
    """The query as sent: the pairs in the caller's order, each key and value encoded as when signed.

    Nothing is left raw that servers read differently ("+", reserved characters), so every server decodes
    the pairs that were signed.
    """
    return "&".join(f"{_encode(key)}={_encode(value)}" for key, value in pairs)


def canonical_query(pairs: Iterable[tuple[str, str]]) -> str:
    return wire_query(sorted(pairs))


def canonical_headers(headers: Mapping[str, str], signed_headers: Iterable[str]) -> str:
    lowered = {name.lower(): str(value).strip() for name, value in headers.items()}
    return "".join(f"{name}:{lowered.get(name, '')}\n" for name in signed_headers)


def payload_hash(body: bytes, headers: Mapping[str, str]) -> str:
    # The official signer hashes an empty body as empty even when X-Sdk-Content-Sha256 says UNSIGNED-PAYLOAD.
    if not body:
        return EMPTY_BODY_SHA256
    for name, value in headers.items():
        if name.lower() == CONTENT_HASH_HEADER.lower():
            return value
    return hashlib.sha256(body).hexdigest()


def canonical_request(
    *,
    method: str,
    path: str,
    query: Iterable[tuple[str, str]],
    headers: Mapping[str, str],
    signed_headers: Iterable[str],
    body: bytes,
) -> str:
    """The canonical form of a request: `path` as sent (encoded), `query` as decoded (key, value) pairs."""
    signed = list(signed_headers)
    return "\n".join(
        [
            method.upper(),
            canonical_uri(path),
            canonical_query(query),
            canonical_headers(headers, signed),
            ";".join(signed),
            payload_hash(body, headers),
        ]
    )


def string_to_sign(canonical: str, sdk_date: str) -> str:
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return f"{ALGORITHM}\n{sdk_date}\n{digest}"


def signature(secret_key: str, to_sign: str) -> str:
    return hmac.digest(secret_key.encode("utf-8"), to_sign.encode("utf-8"), "sha256").hex()


class AuthorizationParts(NamedTuple):
    access_key: str
    signed_headers: tuple[str, ...]
    signature: str


def authorization_value(access_key: str, signed_headers: Iterable[str], sig: str) -> str:
    return f"{ALGORITHM} Access={access_key}, SignedHeaders={';'.join(signed_headers)}, Signature={sig}"


def parse_authorization(value: str) -> AuthorizationParts | None:
    """Split an Authorization header of this scheme; None when it is not one."""
    scheme, _, rest = value.strip().partition(" ")
    if scheme != ALGORITHM:
        return None
    fields: dict[str, str] = {}
    for part in rest.split(","):
        key, sep, val = part.strip().partition("=")
        if sep:
            fields[key] = val
    if not {"Access", "SignedHeaders", "Signature"} <= fields.keys():
        return None
    signed = tuple(h for h in fields["SignedHeaders"].split(";") if h)
    return AuthorizationParts(fields["Access"], signed, fields["Signature"])


def sign_request_parts(
    *,
    secret_key: str,
    method: str,
    path: str,
    raw_query: str,
    headers: Mapping[str, str],
    signed_headers: Iterable[str],
    body: bytes,
    sdk_date: str,
) -> str:
    """The hex signature of a request as a verifier computes it from the wire."""
    canonical = canonical_request(
        method=method,
        path=path,
        query=query_pairs(raw_query),
        headers=headers,
        signed_headers=signed_headers,
        body=body,
    )
    return signature(secret_key, string_to_sign(canonical, sdk_date))


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def utc_sdk_date(now: datetime | None = None) -> str:
    return (now or utc_now()).strftime(DATE_FORMAT)


class AkSkAuth(httpx.Auth):
    """Signs each request with an access key and secret key (optionally temporary, with a security token).

    clock: the moment each request is signed at (its X-Sdk-Date); the current UTC time unless a test gives
    another.
    """

    requires_request_body = True

    def __init__(
        self,
        access_key: str,
        secret_key: str,
        *,
        security_token: str | None = None,
        project_id: str | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        if not access_key or not secret_key:
            raise ValueError("an access key and a secret key are both required")
        self._access_key = access_key
        self._secret_key = secret_key
        self._security_token = security_token
        self._project_id = project_id
        self._clock = clock

    def __repr__(self) -> str:
        # Never show the secret (or the token) in logs, tracebacks or pickled reprs.
        return f"AkSkAuth(access_key='{self._access_key[:4]}…', project_id={self._project_id!r})"

    def __reduce__(self) -> NoReturn:
        raise TypeError("AkSkAuth holds credentials and must not be pickled")

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        url = request.url
        path, _, raw_query = url.raw_path.decode("ascii").partition("?")
        pairs: list[tuple[str, str]] = []
        if raw_query:
            try:
                pairs = query_pairs(raw_query, errors="strict")
            except UnicodeDecodeError:
                # Re-encoding would silently replace those bytes; the official signer cannot express them.
                raise ValueError("the request's query has percent-escapes that are not UTF-8") from None
            # Send the query encoded as it is signed, as the official SDK does, so that no server has to guess
            # what a raw "+" or ";" meant.
            sent_query = wire_query(pairs)
            if sent_query != raw_query:
                sent = f"{path}?{sent_query}" if sent_query else path
                request.url = url.copy_with(raw_path=sent.encode("ascii"))
        headers = request.headers
        # One pass over httpx's header list (lower-case names); every lookup below uses this dict, and
        # each header this method sets is written to both.
        present = dict(headers.items())
        sdk_date = present.get(DATE_HEADER.lower())
        if sdk_date is None:
            sdk_date = present[DATE_HEADER.lower()] = headers[DATE_HEADER] = utc_sdk_date(self._clock())
        if self._project_id:
            present["x-project-id"] = headers["X-Project-Id"] = self._project_id
        if self._security_token:
            present["x-security-token"] = headers["X-Security-Token"] = self._security_token
        content_type = present.get("content-type", "")
        if content_type and not content_type.startswith(("application/json", "application/bson")):
            present[CONTENT_HASH_HEADER.lower()] = headers[CONTENT_HASH_HEADER] = UNSIGNED_PAYLOAD
        signed = [name for name in _SIGNABLE if name in present]
        canonical = canonical_request(
            method=request.method,
            path=path,
            query=pairs,
            headers=present,
            signed_headers=signed,
            body=request.content,
        )
        sig = signature(self._secret_key, string_to_sign(canonical, sdk_date))
        headers["Authorization"] = authorization_value(self._access_key, signed, sig)
        yield request


class TokenAuth(httpx.Auth):
    """Authenticates with an IAM token in X-Auth-Token."""

    def __init__(self, token: str, *, project_id: str | None = None) -> None:
        if not token:
            raise ValueError("an IAM token is required")
        self._token = token
        self._project_id = project_id

    def __repr__(self) -> str:
        return f"TokenAuth(project_id={self._project_id!r})"

    def __reduce__(self) -> NoReturn:
        raise TypeError("TokenAuth holds credentials and must not be pickled")

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["X-Auth-Token"] = self._token
        if self._project_id:
            request.headers["X-Project-Id"] = self._project_id
        yield request


KEY_EXPIRED_CODE = "APIG.0307"


@runtime_checkable
class RenewableAuth(Protocol):
    """A signer whose keys can be renewed: a call refused with APIG.0307 gets fresh keys and is sent again;
    a create only after its job was looked for (``Transport.request_or_find``)."""

    def renew(self) -> bool:
        """Fresh keys after the request this thread last sent was refused as expired; False when there are
        none (the refusal then stands)."""
        ...

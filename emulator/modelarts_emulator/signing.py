"""SDK-HMAC-SHA256, the AK/SK request signature of Huawei Cloud's API gateway, as the emulator checks it.

Written from the algorithm's description, independently of any client: a request is put in canonical form
(method, canonical URI, canonical query, canonical headers, signed header names, hex SHA-256 of the body,
one per line), the string to sign is ``SDK-HMAC-SHA256\\n{X-Sdk-Date}\\n{hex sha256(canonical request)}``,
and the signature is its hex HMAC-SHA256 keyed with the secret key. Each step is a small pure function.

:func:`sign` computes a signature, :func:`verify` says why a request's ``Authorization`` header does not
hold (or ``None`` when it does). ``testing.EmulatorProcess.auth`` signs test requests with the same steps.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import quote, unquote

ALGORITHM = "SDK-HMAC-SHA256"
DATE_HEADER = "X-Sdk-Date"
DATE_FORMAT = "%Y%m%dT%H%M%SZ"
MAX_CLOCK_SKEW_SECONDS = 15 * 60

_AUTHORIZATION = re.compile(
    rf"^{ALGORITHM} Access=(?P<access>[^,\s]+), SignedHeaders=(?P<signed>[^,\s]+), "
    r"Signature=(?P<signature>[0-9a-f]{64})$"
)


@dataclass(frozen=True)
class Authorization:
    """The parts of an ``Authorization: SDK-HMAC-SHA256 Access=…, SignedHeaders=…, Signature=…`` header."""

    access_key: str
    signed_headers: tuple[str, ...]
    signature: str


def parse_authorization(value: str) -> Authorization | None:
    """The header's parts, or None when it is not an SDK-HMAC-SHA256 authorization."""
    match = _AUTHORIZATION.match(value.strip())
    if match is None:
        return None
    return Authorization(match["access"], tuple(match["signed"].split(";")), match["signature"])


def _encode(text: str) -> str:
    # Percent-encode everything except unreserved characters; "~" stays as it is.
    return quote(text, safe="~")


def canonical_uri(raw_path: str) -> str:
    """The path decoded, each segment re-encoded, always ending in "/" (in the canonical form only)."""
    uri = "/".join(_encode(segment) for segment in unquote(raw_path).split("/"))
    return uri if uri.endswith("/") else uri + "/"


def query_pairs(raw_query: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of a raw query string, percent-decoded ("+" is a literal plus, not a space)."""
    pairs: list[tuple[str, str]] = []
    for part in raw_query.split("&"):
        if part:
            key, _, value = part.partition("=")
            pairs.append((unquote(key), unquote(value)))
    return pairs


def canonical_query(pairs: Sequence[tuple[str, str]]) -> str:
    """Pairs sorted, keys and values encoded, ``k=v`` joined by "&"."""
    return "&".join(f"{_encode(key)}={_encode(value)}" for key, value in sorted(pairs))


def canonical_headers(headers: Mapping[str, str], signed: Sequence[str]) -> str:
    """``name:value`` (value trimmed) for each signed header, each followed by a newline.

    ``headers`` must have lower-case names; a signed header the request lacks counts as empty, which then
    simply fails the comparison.
    """
    return "".join(f"{name}:{headers.get(name, '').strip()}\n" for name in signed)


def canonical_request(
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Mapping[str, str],
    signed: Sequence[str],
    body: bytes,
) -> str:
    return "\n".join(
        (
            method.upper(),
            canonical_uri(raw_path),
            canonical_query(query_pairs(raw_query)),
            canonical_headers(headers, signed),
            ";".join(signed),
            hashlib.sha256(body).hexdigest(),
        )
    )


def string_to_sign(sdk_date: str, canonical: str) -> str:
    return f"{ALGORITHM}\n{sdk_date}\n{hashlib.sha256(canonical.encode()).hexdigest()}"


def sign(
    secret_key: str,
    *,
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Mapping[str, str],
    signed: Sequence[str],
    body: bytes,
) -> str:
    """The hex signature of a request; ``headers`` has lower-case names and includes ``x-sdk-date``."""
    canonical = canonical_request(method, raw_path, raw_query, headers, signed, body)
    to_sign = string_to_sign(headers.get(DATE_HEADER.lower(), ""), canonical)
    return hmac.new(secret_key.encode(), to_sign.encode(), hashlib.sha256).hexdigest()


def sdk_date(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(DATE_FORMAT)


def _date_problem(value: str, now: datetime) -> str | None:
    try:
        stamp = datetime.strptime(value, DATE_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        return "X-Sdk-Date is missing or malformed."
    if abs((now - stamp).total_seconds()) > MAX_CLOCK_SKEW_SECONDS:
        return "X-Sdk-Date is more than 15 minutes away from the server time."
    return None


def verify(
    *,
    access_key: str,
    secret_key: str,
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Mapping[str, str],
    body: bytes,
    now: datetime,
) -> str | None:
    """Why this signed request is refused (a message naming no secret), or None when the signature holds.

    ``headers`` has lower-case names. The date must be signed and within 15 minutes of ``now``.
    """
    header = headers.get("authorization")
    if not header:
        return "Authorization header or X-Auth-Token is missing."
    parts = parse_authorization(header)
    if parts is None:
        return "The Authorization header is not a valid SDK-HMAC-SHA256 signature."
    if not hmac.compare_digest(parts.access_key.encode(), access_key.encode()):
        return "The access key is unknown."
    problem = _date_problem(headers.get(DATE_HEADER.lower(), ""), now)
    if problem is not None:
        return problem
    if DATE_HEADER.lower() not in parts.signed_headers:
        return "X-Sdk-Date must be a signed header."
    expected = sign(
        secret_key,
        method=method,
        raw_path=raw_path,
        raw_query=raw_query,
        headers=headers,
        signed=parts.signed_headers,
        body=body,
    )
    if not hmac.compare_digest(expected.encode(), parts.signature.encode()):
        return "The request signature does not match."
    return None

"""Endpoint URLs: the ModelArts endpoint of a region, and the one check every endpoint passes (https, or plain
http to a loopback host only; no user information, query or fragment).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from .errors import SettingsError

DEFAULT_ENDPOINT_PATTERN = "https://modelarts.{region}.myhuaweicloud.com"
# Regions whose endpoint does not follow the default pattern (from the official SDK's region table).
ENDPOINT_EXCEPTIONS = {
    "ap-southeast-1": "https://modelarts.ap-southeast-1.myhuaweicloud.cn",
}

_REGION_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def endpoint_for_region(region: str) -> str:
    """The ModelArts endpoint of a public Huawei Cloud region."""
    if not _REGION_RE.match(region):
        raise SettingsError(
            f"region {region!r} is not a region name (lower-case letters, digits and dashes, e.g. cn-north-4)"
        )
    return ENDPOINT_EXCEPTIONS.get(region, DEFAULT_ENDPOINT_PATTERN.format(region=region))


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalize_endpoint(url: str) -> str:
    """Check an endpoint URL and return it without a trailing slash.

    Only https is accepted, except plain http to a loopback host (a local emulator). User info, query strings
    and fragments are refused: they have no meaning here and user info would put a credential in a URL.
    """
    text = url.strip()
    try:
        parts = urlsplit(text)
        host = parts.hostname
        _ = parts.port  # raises on a malformed port
    except ValueError as exc:
        raise SettingsError(f"endpoint {_safe_url(text)!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not host:
        raise SettingsError(f"endpoint {_safe_url(text)!r} must be an https:// URL with a host name")
    if parts.username is not None or parts.password is not None:
        raise SettingsError("the endpoint URL must not contain user information (credentials)")
    if parts.query or parts.fragment:
        raise SettingsError("the endpoint URL must not have a query string or fragment")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise SettingsError(
            f"endpoint {text!r} uses plain http; only https is allowed except for loopback hosts "
            "(127.0.0.0/8, ::1, localhost)"
        )
    return text.rstrip("/")


def _safe_url(text: str) -> str:
    # Drop anything before "@" in the authority so a mistyped URL with user info never reaches a message.
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text.split("@")[-1]
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.split('@')[-1]}{slash}{path}"

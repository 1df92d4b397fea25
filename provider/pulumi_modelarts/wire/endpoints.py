"""Endpoint URLs: the ModelArts and IAM endpoints of a region on a cloud domain, and the one check every
endpoint passes (https, or plain http to a loopback host only: a literal loopback address or ``localhost``
itself; no user information, query or fragment).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from .errors import UnusableValueError

DEFAULT_CLOUD = "myhuaweicloud.com"
# Huawei Cloud Europe: Huawei's Terraform provider maps every region named "eu-west-1..." (eu-west-101 today)
# to this domain when no cloud is given.
EUROPE_CLOUD = "myhuaweicloud.eu"
EUROPE_REGION_PREFIX = "eu-west-1"
DEFAULT_ENDPOINT_PATTERN = "https://modelarts.{region}.{cloud}"
IAM_ENDPOINT_PATTERN = "https://iam.{region}.{cloud}"
# Regions whose endpoint on the default cloud does not follow the pattern (the official SDK's region table).
ENDPOINT_EXCEPTIONS = {
    "ap-southeast-1": "https://modelarts.ap-southeast-1.myhuaweicloud.cn",
}

_REGION_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# A DNS name of at least two labels: "otc.t-systems.com", never "", ".com" or "a..b".
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_CLOUD_RE = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})+$")


def check_region(region: str, setting: str = "region") -> str:
    """The region name, refused (naming the setting) unless it can stand in a host name: an empty or dotted
    region would otherwise make a URL such as ``https://iam..myhuaweicloud.com``."""
    if not _REGION_RE.match(region):
        raise UnusableValueError(
            f"{setting} {region!r} is not a region name (lower-case letters, digits and dashes, "
            "e.g. cn-north-4)"
        )
    return region


def check_region_quietly(region: str) -> bool:
    """Whether a region name can stand in a host name."""
    return bool(_REGION_RE.match(region))


def check_cloud(cloud: str, setting: str = "cloud") -> str:
    """The cloud domain (lower-cased), refused unless it is a host name such as ``otc.t-systems.com``."""
    domain = cloud.strip().lower().rstrip(".")
    if not _CLOUD_RE.match(domain):
        raise UnusableValueError(
            f"{setting} {cloud!r} is not a domain name (e.g. myhuaweicloud.com, myhuaweicloud.eu, "
            "otc.t-systems.com)"
        )
    return domain


def cloud_for_region(region: str | None, cloud: str | None = None) -> str:
    """The cloud domain: the one given, else Huawei Cloud Europe's for its regions, else the default."""
    if cloud:
        return check_cloud(cloud)
    if region and region.startswith(EUROPE_REGION_PREFIX):
        return EUROPE_CLOUD
    return DEFAULT_CLOUD


def endpoint_for_region(region: str, cloud: str = DEFAULT_CLOUD) -> str:
    """The ModelArts endpoint of a region on a cloud domain (the official SDK's exceptions on the default
    cloud only: other clouds follow the pattern)."""
    check_region(region)
    if cloud == DEFAULT_CLOUD and region in ENDPOINT_EXCEPTIONS:
        return ENDPOINT_EXCEPTIONS[region]
    return DEFAULT_ENDPOINT_PATTERN.format(region=region, cloud=check_cloud(cloud))


def iam_endpoint_for_region(region: str, cloud: str = DEFAULT_CLOUD) -> str:
    """The IAM base URL of a region (without ``/v3``: callers add the API version they speak)."""
    return IAM_ENDPOINT_PATTERN.format(region=check_region(region), cloud=check_cloud(cloud))


def normalize_iam_endpoint(url: str, setting: str = "iamEndpoint") -> str:
    """An IAM URL given with or without its trailing ``/v3`` (Terraform's ``auth_url`` has it), as a base."""
    base = normalize_endpoint(url, setting)
    return base[: -len("/v3")] if base.endswith("/v3") else base


def is_loopback_host(host: str) -> bool:
    """Whether a URL's host is this machine for certain: a literal loopback address, or ``localhost``
    itself. Any other name is whatever a resolver (or /etc/hosts) makes of it: ``evil.localhost`` too."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalize_endpoint(url: str, setting: str = "endpoint") -> str:
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
        raise UnusableValueError(f"{setting} {_safe_url(text)!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not host:
        raise UnusableValueError(f"{setting} {_safe_url(text)!r} must be an https:// URL with a host name")
    if parts.username is not None or parts.password is not None:
        raise UnusableValueError(f"the {setting} URL must not contain user information (credentials)")
    if parts.query or parts.fragment:
        raise UnusableValueError(f"the {setting} URL must not have a query string or fragment")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise UnusableValueError(
            f"{setting} {text!r} uses plain http; only https is allowed except for loopback hosts "
            "(127.0.0.0/8, ::1, localhost itself)"
        )
    if ".." in host or host.startswith(".") or "//" in parts.path:
        problem = "has an empty host label or an empty path segment"
        raise UnusableValueError(f"{setting} {_safe_url(text)!r} {problem}")
    return text.rstrip("/")


def _safe_url(text: str) -> str:
    # Drop anything before "@" in the authority so a mistyped URL with user info never reaches a message.
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text.split("@")[-1]
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.split('@')[-1]}{slash}{path}"


def normalize_metadata_endpoint(url: str, setting: str = "HW_METADATA_ENDPOINT") -> str:
    """The instance metadata service's base URL: plain http is its protocol, so http is accepted to a
    link-local host (169.254.169.254) as well as to a loopback one."""
    text = url.strip()
    try:
        host = urlsplit(text).hostname or ""
        link_local = ipaddress.ip_address(host.strip("[]")).is_link_local
    except ValueError:
        link_local = False
    if text.startswith("http://") and link_local:
        checked = normalize_endpoint("https://" + text[len("http://") :], setting)
        return "http://" + checked[len("https://") :]
    return normalize_endpoint(text, setting)

"""The agency to act through (Terraform's ``assume_role`` block): which one, resolved without the network.
The base credentials, from whichever source, later ask IAM for the agency's temporary keys."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .errors import SettingsError
from .sources import CONFIG_NAMESPACE, SOURCES, Credentials, Lookup

# IAM's limits for temporary keys' lifetime (15 minutes to 24 hours).
DURATION_RANGE = (900, 86400)


@dataclass(frozen=True, kw_only=True)
class AssumeRole:
    """An agency to act through: the base credentials ask IAM for the agency's temporary keys."""

    agency_name: str
    domain_name: str | None = None
    domain_id: str | None = None
    duration_seconds: int | None = None


_ROLE_FIELDS = {
    "agencyName": "agency_name",
    "agency_name": "agency_name",
    "domainName": "domain_name",
    "domain_name": "domain_name",
    "domainId": "domain_id",
    "domain_id": "domain_id",
    "durationSeconds": "duration_seconds",
    "duration_seconds": "duration_seconds",
    "duration": "duration_seconds",
}
_ROLE_ENV = dict(
    zip(
        ("agency_name", "domain_name", "domain_id", "duration_seconds"),
        SOURCES["assume_role"][1],
        strict=True,
    )
)
_ROLE_KEYS = "agencyName, domainName or domainId, durationSeconds"


def assume_role_of(lookup: Lookup, credentials: Credentials | None) -> AssumeRole | None:
    """The agency: each field from the config object, else its environment variable; an hcloud profile's
    agency only goes with that profile's keys."""
    where = f"config {CONFIG_NAMESPACE}:{SOURCES['assume_role'][0]}"
    fields: dict[str, str] = {}
    text = lookup.config_value("assume_role")
    if text is not None:
        try:
            given = json.loads(text)
        except json.JSONDecodeError:
            given = None
        if not isinstance(given, dict):
            raise SettingsError(f"{where} must be an object ({_ROLE_KEYS})")
        unknown = sorted(str(k) for k in given if k not in _ROLE_FIELDS)
        if unknown:
            raise SettingsError(f"{where} has unknown fields {unknown} (known: {_ROLE_KEYS})")
        fields = {_ROLE_FIELDS[k]: str(v).strip() for k, v in given.items() if v is not None}
        fields = {k: v for k, v in fields.items() if v}
    for name, env in _ROLE_ENV.items():
        value = lookup.env_value(env)
        if name not in fields and value is not None:
            fields[name] = value
    profile = credentials.profile if credentials is not None else None
    if not fields and profile is not None and profile.get("agency_name"):
        fields = {"agency_name": str(profile.get("agency_name"))}
        if profile.get("agency_domain_name"):
            fields["domain_name"] = str(profile.get("agency_domain_name"))
        where = profile.label
    if not fields:
        return None
    named = f"{where} / $HW_ASSUME_ROLE_*"
    if "agency_name" not in fields:
        raise SettingsError(
            f"an agency to assume needs its name ({named}: agencyName, $HW_ASSUME_ROLE_AGENCY_NAME)"
        )
    if not (fields.get("domain_name") or fields.get("domain_id")):
        raise SettingsError(
            f"agency {fields['agency_name']!r} needs the account it belongs to ({named}: domainName or "
            "domainId, $HW_ASSUME_ROLE_DOMAIN_NAME or $HW_ASSUME_ROLE_DOMAIN_ID)"
        )
    duration = fields.get("duration_seconds")
    seconds = int(duration) if duration is not None and duration.isdigit() else None
    if duration is not None and (seconds is None or not DURATION_RANGE[0] <= seconds <= DURATION_RANGE[1]):
        raise SettingsError(
            f"the agency's duration ({named}: durationSeconds, $HW_ASSUME_ROLE_DURATION) must be a whole "
            f"number of seconds from {DURATION_RANGE[0]} to {DURATION_RANGE[1]}"
        )
    return AssumeRole(
        agency_name=fields["agency_name"],
        domain_name=fields.get("domain_name"),
        domain_id=fields.get("domain_id"),
        duration_seconds=seconds,
    )

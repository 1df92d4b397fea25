"""The project id found by name in IAM, when none is given: the region's project, or a sub-project by name.

``GET {iam}/v3/projects?name={name}``, signed like any call (the same keys, ``X-Security-Token`` with
temporary ones; no ``X-Project-Id``), as the official SDK and Huawei's Terraform provider do. Listing projects
needs a permission some IAM users lack: on 403, ``GET {iam}/v3/auth/projects`` (the projects the caller may
use, no permission needed) filtered by name. Exactly one match is the answer; none or several is an error that
says what IAM answered, its request id and the two settings that fix it. The id IAM answers must be one the
client can send (``wire.sendable``, the rule a configured id meets): anything else is refused at once, naming
IAM's answer, never quoting it. A list quoted in an error is cut short, saying how many were left out.

Looked up once per process per identity (a fingerprint of the credential, never the credential) and name, at
the first call that needs it, for every job that needs it meanwhile (``shared_lookups``: a failure is their
common answer for a while; each waits within its own deadline, and Ctrl-C ends the wait).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from typing import Any

import httpx

from ..wire.errors import listing
from ..wire.sendable import project_id_problem
from .errors import AccountError
from .iam import Iam, request_id
from .shared_lookups import SharedLookups

__all__ = ["FIX", "clear_cache", "find_project", "fingerprint"]

FIX = (
    "Set the project id (modelarts:projectId or HW_PROJECT_ID), or the project's name for a sub-project "
    "(modelarts:projectName or HW_PROJECT_NAME)."
)
REFUSED = "IAM refused the credentials: check the keys (or token) in use, and the IAM endpoint they are for."

_LOG = logging.getLogger(__name__)
_FOUND: SharedLookups[str] = SharedLookups()


def fingerprint(*parts: str | None) -> str:
    """A short one-way digest of an identity (keys, agency, endpoint): a cache key that shows nothing."""
    digest = hashlib.sha256("\0".join(p or "" for p in parts).encode("utf-8")).hexdigest()
    return digest[:24]


def clear_cache() -> None:
    """Forget every project found, and every failure (tests)."""
    _FOUND.clear()


def find_project(
    iam: Iam,
    auth: httpx.Auth,
    name: str,
    *,
    identity: str,
    region: str | None = None,
    within: float | None = None,
) -> str:
    """The id of the project named ``name`` that this identity sees; cached per process. ``region``: the
    region, named in the error when ``name`` is its project. within: the seconds the operation asking may
    wait for it (None: as long as IAM's attempts take)."""

    def look_up() -> str:
        found = _look_up(iam, auth, name, region)
        _LOG.debug("project %r is %s (IAM at %s)", name, found, iam.base)
        return found

    what = f"looking up the {_whose(name, region)} {name!r} in IAM"
    # Whatever could change IAM's answer is in the key: a failure is no answer for other settings.
    key = (identity, iam.base, iam.ca_cert_file, name)
    return _FOUND.get(key, look_up, what=what, within=within)


def _whose(name: str, region: str | None) -> str:
    return f"region {region}'s project" if name == region else "project"


def _projects(payload: Any) -> list[Mapping[str, Any]]:
    listed = payload.get("projects") if isinstance(payload, Mapping) else None
    if not isinstance(listed, list):
        return []
    return [p for p in listed if isinstance(p, Mapping) and isinstance(p.get("id"), str)]


def _look_up(iam: Iam, auth: httpx.Auth, name: str, region: str | None) -> str:
    whose = _whose(name, region)
    operation = f"looking up the {whose} {name!r} in IAM"
    where = f"GET {iam.base}/v3/projects?name={name}"
    answer = iam.send("GET", "/v3/projects", operation=operation, auth=auth, params={"name": name})
    if answer.status_code == 403:
        refused = iam.said(answer, f"{where} was refused:")
        where = f"GET {iam.base}/v3/auth/projects (after {refused})"
        answer = iam.send("GET", "/v3/auth/projects", operation=operation, auth=auth)
    if answer.status_code == 401:
        raise iam.refusal(answer, operation, REFUSED)
    if answer.status_code != 200:
        raise iam.refusal(answer, operation, FIX)
    if answer.problem is not None:
        raise iam.unreadable(answer, operation, FIX)
    payload = answer.payload
    if not isinstance(payload, Mapping) or not isinstance(payload.get("projects"), list):
        raise iam.refusal(answer, operation, f"It is not a project list. {FIX}")
    matches = [p for p in _projects(payload) if p.get("name") == name]
    rid = request_id(answer)
    said = f" [request id {rid}]" if rid else ""
    if len(matches) == 1:
        found = str(matches[0]["id"])
        problem = project_id_problem(found)
        if problem is not None:
            raise AccountError(
                f"{operation} failed: {where} answered a project id that cannot be used ({problem}){said}. "
                f"{FIX}"
            )
        return found
    if not matches:
        listed = sorted(str(p.get("name")) for p in _projects(payload))
        seen = f"; the projects it listed: {listing(listed)}" if listed else ""
        raise AccountError(
            f"no {whose} named {name!r} in the account these credentials reach: {where} answered none"
            f"{seen}{said}. {FIX}"
        )
    ids = listing(str(p["id"]) for p in matches)
    raise AccountError(f"several projects are named {name!r}: {where} answered {ids}{said}. {FIX}")

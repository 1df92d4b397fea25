"""The project id found by name in IAM, when none is given: the region's project, or a sub-project by name.

``GET {iam}/v3/projects?name={name}``, signed like any call (the same keys, ``X-Security-Token`` with
temporary ones; no ``X-Project-Id``), as the official SDK and Huawei's Terraform provider do. Listing projects
needs a permission some IAM users lack: on 403, ``GET {iam}/v3/auth/projects`` (the projects the caller may
use, no permission needed) filtered by name. Exactly one match is the answer; none or several is an error that
says what IAM answered, its request id and the two settings that fix it.

Looked up once per process per identity (a fingerprint of the credential, never the credential) and name, at
the first call that needs it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Mapping
from typing import Any

import httpx

from .iam import Iam, request_id
from .keys import AccountError

__all__ = ["FIX", "clear_cache", "find_project", "fingerprint"]

FIX = (
    "Set the project id (modelarts:projectId or HW_PROJECT_ID), or the project's name for a sub-project "
    "(modelarts:projectName or HW_PROJECT_NAME)."
)
REFUSED = "IAM refused the credentials: check the keys (or token) in use, and the IAM endpoint they are for."

_LOG = logging.getLogger(__name__)
_LOCK = threading.Lock()
_FOUND: dict[tuple[str, str, str], str] = {}


def fingerprint(*parts: str | None) -> str:
    """A short one-way digest of an identity (keys, agency, endpoint): a cache key that shows nothing."""
    digest = hashlib.sha256("\0".join(p or "" for p in parts).encode("utf-8")).hexdigest()
    return digest[:24]


def clear_cache() -> None:
    """Forget every project found (tests)."""
    with _LOCK:
        _FOUND.clear()


def find_project(iam: Iam, auth: httpx.Auth, name: str, *, identity: str, region: str | None = None) -> str:
    """The id of the project named ``name`` that this identity sees; cached per process. ``region``: the
    region, named in the error when ``name`` is its project."""
    key = (identity, iam.base, name)
    with _LOCK:  # held through the lookup: jobs starting together make one call, not one each
        found = _FOUND.get(key)
        if found is None:
            found = _FOUND[key] = _look_up(iam, auth, name, region)
            _LOG.debug("project %r is %s (IAM at %s)", name, found, iam.base)
        return found


def _projects(payload: Any) -> list[Mapping[str, Any]]:
    listed = payload.get("projects") if isinstance(payload, Mapping) else None
    if not isinstance(listed, list):
        return []
    return [p for p in listed if isinstance(p, Mapping) and isinstance(p.get("id"), str)]


def _look_up(iam: Iam, auth: httpx.Auth, name: str, region: str | None) -> str:
    whose = f"region {region}'s project" if name == region else "project"
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
    try:
        payload = answer.json()
    except ValueError:
        payload = None
    if not isinstance(payload, Mapping) or not isinstance(payload.get("projects"), list):
        raise iam.refusal(answer, operation, f"It is not a project list. {FIX}")
    matches = [p for p in _projects(payload) if p.get("name") == name]
    if len(matches) == 1:
        return str(matches[0]["id"])
    rid = request_id(answer)
    said = f" [request id {rid}]" if rid else ""
    if not matches:
        listed = sorted(str(p.get("name")) for p in _projects(payload))
        seen = f"; the projects it listed: {', '.join(listed)}" if listed else ""
        raise AccountError(
            f"no {whose} named {name!r} in the account these credentials reach: {where} answered none"
            f"{seen}{said}. {FIX}"
        )
    ids = ", ".join(str(p["id"]) for p in matches)
    raise AccountError(f"several projects are named {name!r}: {where} answered {ids}{said}. {FIX}")

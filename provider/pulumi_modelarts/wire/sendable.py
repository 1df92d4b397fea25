"""Values a request carries in its URL path or its headers, checked before anything is sent: the project id
(``/v2/{project_id}`` and ``X-Project-Id``), access keys and tokens (``Authorization``, ``X-Security-Token``,
``X-Auth-Token``), and an id as one path segment (``path_segment``).

One rule for a value wherever it came from (the stack config, the environment, a file, IAM's answer, a
key source's): the caller turns a problem into its own error, naming where the value came from. A value that
cannot be sent is refused at once: a request that could not be built was never sent, and retrying it only
makes a wrong value slow to report. A problem never quotes the value.
"""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = ["PROJECT_ID_RULE", "header_value_problem", "path_segment", "project_id_problem"]

# Huawei Cloud's project ids are 32 hexadecimal digits; IAM (keystone) allows up to 64 characters. Nothing in
# one may change the URL path ("/", "..") or end a header line.
PROJECT_ID_RULE = "1 to 64 letters, digits, '-' or '_'"
_PROJECT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# A header value as the gateway takes a key or token: visible ASCII, no space, no line break.
_HEADER_VALUE = re.compile(r"[\x21-\x7e]+")


def project_id_problem(value: str) -> str | None:
    """What is wrong with a project id (None: nothing)."""
    if not value:
        return "it is empty"
    if _PROJECT_ID.fullmatch(value):
        return None
    return f"it is not a project id ({PROJECT_ID_RULE})"


def header_value_problem(value: str) -> str | None:
    """What keeps a key or token from being sent in a header (None: nothing)."""
    if not value:
        return "it is empty"
    if _HEADER_VALUE.fullmatch(value):
        return None
    return "it holds characters a request header cannot carry (only visible ASCII, no spaces)"


def path_segment(value: str, what: str) -> str:
    """value as one segment of a URL path; ValueError for one that is empty or would change the path."""
    if not value or not value.strip():
        raise ValueError(f"{what} must not be empty")
    if value in (".", ".."):
        # URL libraries collapse dot-segments, which would silently change the path.
        raise ValueError(f"{what} {value!r} is not a valid id")
    # Nothing in an id is allowed to change the path ("/", "..", "?" are all encoded).
    return quote(value, safe="")

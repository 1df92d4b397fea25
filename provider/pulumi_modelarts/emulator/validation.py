"""Checking request bodies with the project's strict request models, plus the emulator's own hook checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..models import SearchRequest, problems, validate_create_request
from .lifecycle import HOOK_PREFIX, hook_problems


def create_problems(body: Any) -> list[tuple[str, str]]:
    """Everything wrong with a create body, as (dotted field path, plain message); empty when it is fine."""
    if not isinstance(body, Mapping):
        return [("body", "must be a JSON object")]
    try:
        validate_create_request(dict(body))
        found: list[tuple[str, str]] = []
    except ValidationError as error:
        found = problems(error)
    metadata = body.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    if isinstance(annotations, Mapping):
        hooks = {str(k): str(v) for k, v in annotations.items() if str(k).startswith(HOOK_PREFIX)}
        found.extend(hook_problems(hooks))
    return found


def search_problems(body: Any) -> list[tuple[str, str]]:
    """Shape problems of a search body (keys, operators and ranges are checked when it is answered)."""
    if not isinstance(body, Mapping):
        return [("body", "must be a JSON object")]
    try:
        SearchRequest.model_validate(dict(body))
    except ValidationError as error:
        return problems(error)
    return []

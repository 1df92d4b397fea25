"""What a job's auto-name needs that only a front-end knows: the resource name as the default
``name_prefix``, and the stack as ``name_scope`` (two stacks of one program never share names). The names
themselves are the job layer's (``job.naming``).

Importing it loads neither pulumi, pydantic nor httpx: the program imports it through ``resource.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..generated.fields import NAME_SCOPE_FIELD

__all__ = ["scope_of_urn", "stack_scope", "with_naming"]


def stack_scope(project: str, stack: str) -> str:
    """The value of ``name_scope``: generated job names hash it, so two stacks of one program never share
    names."""
    return f"{project}/{stack}"


def scope_of_urn(urn: str) -> str:
    """``name_scope`` of the stack a URN (``urn:pulumi:<stack>::<project>::<type>::<name>``) belongs to."""
    stack, _, rest = urn.removeprefix("urn:pulumi:").partition("::")
    return stack_scope(rest.partition("::")[0], stack)


def with_naming(inputs: Mapping[str, Any], resource_name: str, scope: str) -> dict[str, Any]:
    """The inputs with what auto-naming needs that only the front-end knows: the resource name as the
    ``name_prefix`` left out, and the stack's ``name_scope``."""
    named = dict(inputs)
    if named.get("name_prefix") is None:
        named["name_prefix"] = resource_name
    named[NAME_SCOPE_FIELD] = scope
    return named

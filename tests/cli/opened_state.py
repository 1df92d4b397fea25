"""The stack's outputs as `pulumi stack output --json --show-secrets` shows them, from what
`pulumi stack export --show-secrets` printed: a test that needs both reads the decrypted state once
(tests/cli/test_state_reads.py holds the two to each other)."""

from __future__ import annotations

import json
from typing import Any

from .pulumi_cli import SECRET_SIG


def opened(value: Any) -> Any:
    """A value of a decrypted export with each secret as its value (the export spells it as JSON text)."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG) is not None and "plaintext" in value:
            return opened(json.loads(value["plaintext"]))
        return {k: opened(v) for k, v in value.items()}
    if isinstance(value, list):
        return [opened(v) for v in value]
    return value


def opened_outputs(exported: dict[str, Any]) -> dict[str, Any]:
    """The stack's outputs, secrets shown, from `pulumi stack export --show-secrets` (Stack.export)."""
    resources = exported["deployment"].get("resources") or []
    stack = [r for r in resources if r["type"] == "pulumi:pulumi:Stack"]
    result: dict[str, Any] = opened(stack[0].get("outputs") or {}) if stack else {}
    return result

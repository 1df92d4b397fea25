"""Check failures as (path, reason), however the provider shapes them for the engine.

A failure of a top-level input names it as the property; a nested path ("spec.resource.node_count") leads the
reason of a failure without a property, which the engine prints as "resource '<name>' has a problem: ...".
"""

from __future__ import annotations

import re

from pulumi.dynamic import CheckFailure

# Dotted names with [n] indexes and odd keys quoted as Python string literals, e.g. "tasks[0]['a b'].x".
_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
PATH = rf"[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\]|\[(?:{_QUOTED})\]|\.[A-Za-z0-9_-]+)*"
_LEADING_PATH = re.compile(rf"({PATH}): ")


def path_and_reason(failure: CheckFailure) -> tuple[str, str]:
    if failure.property:
        return failure.property, failure.reason
    found = _LEADING_PATH.match(failure.reason)
    if found is None:
        return "", failure.reason
    return found.group(1), failure.reason[found.end() :]

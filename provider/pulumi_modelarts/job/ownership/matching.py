"""A name already held: whether the job holding it matches what a create declared. Pure functions.

``judging.judge`` is the rule; this module supplies its evidence, the paths where the holder differs from
the declaration (``differences``), and asks it (``judge_holder``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..normalising import canonical, dotted
from .judging import Judgment, judge

__all__ = ["differences", "judge_holder"]

# Fields the service may keep apart from what was sent (environment variables may come back as a map, or
# not at all); they say nothing about whether a job is the one declared.
_UNECHOED = ("environments",)


def differences(declared: Any, actual: Any, path: str = "", limit: int = 5) -> list[str]:
    """Paths (a.b[0].c) where actual lacks or differs from a declared value; extra fields in actual are ok."""
    found: list[str] = []

    def walk(want: Any, have: Any, where: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(want, Mapping):
            if not isinstance(have, Mapping):
                found.append(where or "(the job)")
                return
            for key, value in want.items():
                if key in _UNECHOED:
                    continue
                walk(value, have.get(key), dotted(where, key))
            return
        if isinstance(want, (list, tuple)):
            if not isinstance(have, (list, tuple)) or len(have) != len(want):
                found.append(where)
                return
            for index, (w, h) in enumerate(zip(want, have, strict=True)):
                walk(w, h, dotted(where, index))
            return
        if want == have:
            return
        # The answer models read numbers as text: 2 and "2" are the same value.
        if have is not None and not isinstance(want, bool) and str(want) == str(have):
            return
        found.append(where)

    walk(canonical(declared), canonical(actual), path)
    return found


def judge_holder(
    declared: Mapping[str, Any],
    holder: Mapping[str, Any],
    *,
    phase: str | None,
    created_ms: float | None,
    since_ms: float,
) -> Judgment:
    """Whether the job holding a name is the one declared (wire bodies; description not compared).

    The rule is ``judging.judge``; this supplies its evidence: where the holder differs from the
    declaration. since_ms: when the create began, clock skew allowed for (``judging.since_ms``).
    """
    wanted = dict(declared)
    metadata = wanted.get("metadata")
    if isinstance(metadata, Mapping):
        wanted["metadata"] = {k: v for k, v in metadata.items() if k != "description"}
    return judge(
        phase=phase, created_ms=created_ms, since_ms=since_ms, differences=differences(wanted, holder)
    )

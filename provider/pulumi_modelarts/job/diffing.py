"""Update versus replace: what a change of the declared inputs means for the job. Pure functions.

A training job cannot be changed after creation except for its description, so nearly every change to what
was declared means a new job. Both sides are declared inputs in their normal form (``normalising``), never
what the service returns: fields the service fills in (ids, create times, flavor details, defaults) must not
look like changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The property lists are generated from the models (scripts/generate): JOB_FIELDS go into the create request
# body, SETTINGS_FIELDS steer the provider only, a change to TRIGGERS_FIELD forces a new job, HIDDEN_FIELDS
# (never compared) are filled in by the resource itself.
from ..generated.fields import JOB_FIELDS, SETTINGS_FIELDS, TRIGGERS_FIELD
from ..wire.phases import is_failure
from .normalising import canonical, is_unknown, normalise_inputs, same

__all__ = ["ADD", "DELETE", "UPDATE", "Decision", "Leaf", "compare", "decide", "leaf_path", "leaves"]


ADD, UPDATE, DELETE = "add", "update", "delete"
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Leaf:
    """One changed value: where (``leaf_path``: ``spec.resource.node_count``,
    ``algorithm.parameters[1].value``, ``algorithm.environments.TOKEN``), how (ADD, UPDATE or DELETE) and
    whether it forces a new job.

    Only the path and the kind: never a value, so a secret (an environment variable's) cannot leak through it.
    """

    path: str
    kind: str
    replaces: bool


def leaf_path(parent: str, key: object) -> str:
    """parent extended by a list index (``[1]``) or a key: ``.name`` for a plain name, else ``["the key"]``
    (Pulumi's property-path syntax, so a map key holding dots or slashes stays one segment)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    text = str(key)
    if _PLAIN_KEY.match(text):
        return f"{parent}.{text}" if parent else text
    return f"{parent}[{json.dumps(text, ensure_ascii=False)}]"


def leaves(old: Any, new: Any, path: str) -> list[tuple[str, str]]:
    """(path, kind) of each value that differs between two declarations, deepest first: maps by key, lists
    by index; unset and empty values count as absent; a value not known yet (preview) counts as changed."""
    return _leaves(canonical(old), canonical(new), path)


def _leaves(old: Any, new: Any, path: str) -> list[tuple[str, str]]:
    if is_unknown(new):
        return [(path, UPDATE if _present(old) else ADD)]
    if not _present(old) and not _present(new):
        return []
    if not _present(old):
        return [(path, ADD)]
    if not _present(new):
        return [(path, DELETE)]
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        found: list[tuple[str, str]] = []
        for key in [*old, *(k for k in new if k not in old)]:
            found.extend(_leaves(old.get(key), new.get(key), leaf_path(path, key)))
        return found
    if isinstance(old, list) and isinstance(new, list):
        found = []
        for index in range(max(len(old), len(new))):
            before = old[index] if index < len(old) else None
            after = new[index] if index < len(new) else None
            found.extend(_leaves(before, after, leaf_path(path, index)))
        return found
    return [] if same(old, new) else [(path, UPDATE)]


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, (dict, list)) and not value)


@dataclass
class Decision:
    """What an update means. replaces lists top-level properties (what the dynamic provider protocol can
    carry); leaves names each changed value inside them; reasons are for a person to read."""

    replaces: list[str] = field(default_factory=list)
    description_changed: bool = False
    settings_changed: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    leaves: list[Leaf] = field(default_factory=list)

    def forcing(self) -> list[str]:
        """The paths of the changed values that force a new job."""
        return [leaf.path for leaf in self.leaves if leaf.replaces]

    @property
    def changes(self) -> bool:
        return bool(self.replaces or self.description_changed or self.settings_changed)

    @property
    def delete_before_replace(self) -> bool:
        # A replaced training job is obsolete, and two live jobs must not share a name.
        return True


def _without_description(metadata: Any) -> Any:
    if isinstance(metadata, Mapping):
        return {k: v for k, v in metadata.items() if k != "description"}
    return metadata


def _description(metadata: Any) -> Any:
    return metadata.get("description") if isinstance(metadata, Mapping) else None


def decide(
    declared: Mapping[str, Any] | None,
    news: Mapping[str, Any],
    *,
    last_phase: object = None,
    last_secondary_phase: object = None,
) -> Decision:
    """``compare`` for inputs as given (normalised here); core, which normalises each value once at the top
    of an operation, calls ``compare`` itself."""
    return compare(
        normalise_inputs(declared or {}),
        normalise_inputs(news),
        last_phase=last_phase,
        last_secondary_phase=last_secondary_phase,
    )


def compare(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    last_phase: object = None,
    last_secondary_phase: object = None,
) -> Decision:
    """Compare the declared inputs in the state (old) with the new inputs, both normalised
    (``normalise_inputs``).

    - metadata.description alone changed: update in place;
    - wait_for, wait_timeout, replace_when_failed, name_prefix, keep_record: update of the state only;
    - tags: update in place (core.update sends the difference);
    - anything else in kind/metadata/algorithm/tasks/spec, or triggers: replace, naming the property;
      a value not known yet in one of those counts as a change (it may differ);
    - replace_when_failed and the job last seen Failed or Abnormal, or with its creation failed (secondary
      phase CreateFailed): replace ("status").
    """
    decision = Decision()

    def replaced(name: str, old_value: Any, new_value: Any) -> None:
        decision.replaces.append(name)
        found = leaves(old_value, new_value, name) or [(name, UPDATE)]
        decision.leaves.extend(Leaf(path, kind, True) for path, kind in found)
        paths = ", ".join(path for path, _ in found) or name
        decision.reasons.append(
            f"changes to triggers force a new job ({paths})" if name == TRIGGERS_FIELD else f"{paths} changed"
        )

    for name in (*JOB_FIELDS, TRIGGERS_FIELD):
        old_value, new_value = old.get(name), new.get(name)
        if name == "metadata" and isinstance(new_value, Mapping):
            if not same(_without_description(old_value), _without_description(new_value)):
                replaced(name, _without_description(old_value), _without_description(new_value))
            if not same(_description(old_value), _description(new_value)):
                decision.description_changed = "metadata" not in decision.replaces
                kind = leaves(_description(old_value), _description(new_value), "metadata.description")
                decision.leaves.extend(Leaf(path, k, False) for path, k in kind)
            continue
        if not same(old_value, new_value):
            replaced(name, old_value, new_value)

    for name in SETTINGS_FIELDS:  # never HIDDEN_FIELDS: filling them in later must not look like a change
        if not same(old.get(name), new.get(name)):
            decision.settings_changed.append(name)
            found = leaves(old.get(name), new.get(name), name)
            decision.leaves.extend(Leaf(path, kind, False) for path, kind in found)

    phase = last_phase if isinstance(last_phase, str) else None
    secondary = last_secondary_phase if isinstance(last_secondary_phase, str) else None
    if new.get("replace_when_failed") is True and is_failure(phase, secondary):
        if "status" not in decision.replaces:
            decision.replaces.append("status")
            decision.leaves.append(Leaf("status", UPDATE, True))
        decision.reasons.append(f"the job was last seen {last_phase} and replace_when_failed is set")
    return decision

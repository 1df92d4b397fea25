"""Declared inputs: normalising them, naming jobs, and deciding update versus replace. Pure functions.

A training job cannot be changed after creation except for its description, so nearly every change to what
was declared means a new job. The comparison is always between what the user *declared* (kept in the state
as the ``declared_inputs`` output) and what they declare now, never against what the service returns:
fields the service fills in (ids, create times, flavor details, defaults) must not look like changes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi.output import UNKNOWN, Unknown
from pulumi.runtime import rpc

# The property lists are generated from the models (scripts/generate): JOB_FIELDS go into the create request
# body, SETTINGS_FIELDS steer the provider only, a change to TRIGGERS_FIELD forces a new job, HIDDEN_FIELDS
# are filled in by the resource itself.
from ..generated.fields import HIDDEN_FIELDS as HIDDEN_FIELDS
from ..generated.fields import INPUT_FIELDS as INPUT_FIELDS
from ..generated.fields import JOB_DEFAULTS
from ..generated.fields import JOB_FIELDS as JOB_FIELDS
from ..generated.fields import NAME_SCOPE_FIELD as NAME_SCOPE_FIELD
from ..generated.fields import SETTINGS_FIELDS as SETTINGS_FIELDS
from ..generated.fields import TRIGGERS_FIELD as TRIGGERS_FIELD
from ..wire.phases import is_failure
from . import secret_paths
from .job_state import DECLARED_INPUTS
from .ownership import Holding as Holding
from .ownership import Judgment as Judgment
from .ownership import judge

PROVIDER_KEY = "__provider"

DEFAULT_KIND = JOB_DEFAULTS["kind"]
NAME_MAX_LENGTH = 64
NAME_SUFFIX_LENGTH = 6
_NAME_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_SUFFIX_ALPHABET = string.ascii_lowercase + string.digits
# How many generations of one auto-name create tries before giving up (each stale holder moves it on).
MAX_NAME_GENERATIONS = 20


def is_unknown(value: object) -> bool:
    """A value not known yet during preview (pulumi 3.259 hands providers `Unknown()` or the sentinel)."""
    return isinstance(value, Unknown) or (isinstance(value, str) and value == rpc.UNKNOWN)


def contains_unknown(value: object) -> bool:
    kind = type(value)
    if kind is str:
        return value == rpc.UNKNOWN
    if kind is dict:
        return any(contains_unknown(v) for v in value.values())  # type: ignore[attr-defined]
    if kind is list:
        return any(contains_unknown(v) for v in value)  # type: ignore[attr-defined]
    if kind is bool or kind is int or kind is float or value is None:
        return False
    if is_unknown(value):
        return True
    if isinstance(value, Mapping):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_unknown(v) for v in value)
    return False


def _path(parent: str, key: object) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def strip_unknowns(value: Any, path: str = "", found: list[str] | None = None) -> Any:
    """value with unknowns replaced by None; the paths of the unknowns (a.b[0].c) are appended to found."""
    if is_unknown(value):
        if found is not None:
            found.append(path)
        return None
    if isinstance(value, Mapping):
        return {k: strip_unknowns(v, _path(path, k), found) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_unknowns(v, _path(path, i), found) for i, v in enumerate(value)]
    return value


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + ".") or path.startswith(root + "[")


def _parent(path: str) -> str:
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def affected_by_unknown(path: str, unknowns: list[str]) -> bool:
    """Whether a problem at path may go away once the unknown values at unknowns are known.

    That is a problem at, below or above an unknown value, or a rule between siblings of one.
    """
    for unknown in unknowns:
        if _under(path, unknown) or _under(unknown, path):
            return True
        parent = _parent(path)
        if parent and _under(unknown, parent):
            return True
    return False


def unwrap_secrets(value: Any) -> Any:
    """Plain values with every wrapped RPC secret opened (the engine normally sends none to this provider)."""
    value = rpc.unwrap_rpc_secret(value)
    if isinstance(value, Mapping):
        return {k: unwrap_secrets(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [unwrap_secrets(v) for v in value]
    return value


def clean(value: Any) -> Any:
    """Plain data as declared inputs compare: unset (None) entries dropped, whole floats back to ints."""
    # None means "not set"; the engine turns every number into a float, so 2.0 goes back to 2.
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def _normalised(value: Any) -> Any:
    """unwrap_secrets then clean in one walk (the same result), testing the exact types plain data has
    first: check and diff normalise every job's inputs several times, and the ABC checks dominated."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is dict and value.get(_SECRET_SIG_KEY) == _SECRET_SIG:
        return _normalised(value["value"])
    if kind is dict or isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            item = _normalised(item)
            if item is not None:
                out[key if type(key) is str else str(key)] = item
        return out
    if kind is list or kind is tuple:
        return [_normalised(v) for v in value]
    return clean(value)


_SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"  # rpc's marker of a wrapped secret (is_rpc_secret)
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


def normalise_inputs(props: Mapping[str, Any]) -> dict[str, Any]:
    """Declared inputs without the serialized provider or unset values, with kind defaulted to "job".

    Unknown values (preview) are kept as they are.
    """
    cleaned = _normalised({k: v for k, v in props.items() if k != PROVIDER_KEY})
    assert isinstance(cleaned, dict)
    if cleaned.get("kind") is None:
        cleaned["kind"] = DEFAULT_KIND
    return cleaned


def job_body(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The part of the normalised inputs that is the create request body."""
    return {k: inputs[k] for k in JOB_FIELDS if k in inputs}


def canonical(value: Any) -> Any:
    """A form for comparing declarations: unset (None) and empty maps/lists count as absent."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            c = canonical(v)
            if c is None or (isinstance(c, (dict, list)) and not c):
                continue
            out[str(k)] = c
        return out
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return clean(value)


def _same(old: Any, new: Any) -> bool:
    if contains_unknown(new):
        return False
    if old == new:  # the usual answer, without building both canonical forms
        return True
    a, b = canonical(old), canonical(new)
    empty: tuple[Any, ...] = (None, {}, [])
    if a in empty and b in empty:
        return True
    return bool(a == b)


# ---------------------------------------------------------------------------------------------------------
# Names


def sanitise_prefix(prefix: object, fallback: str = "job") -> str:
    """A name prefix made of letters, digits, _ and - only, short enough to leave room for "-xxxxxx"."""
    text = prefix if isinstance(prefix, str) else ""
    text = _NAME_BAD_CHARS.sub("-", text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    text = text[: NAME_MAX_LENGTH - NAME_SUFFIX_LENGTH - 1].rstrip("-")
    return text or fallback


def random_suffix(length: int = NAME_SUFFIX_LENGTH) -> str:
    return "".join(secrets.choice(_SUFFIX_ALPHABET) for _ in range(length))


def generate_name(prefix: object, suffix: Callable[[], str] = random_suffix) -> str:
    """prefix (sanitised) + "-" + a random 6-character suffix; never longer than 64 characters."""
    return f"{sanitise_prefix(prefix)}-{suffix()}"[:NAME_MAX_LENGTH]


def name_prefix_of(inputs: Mapping[str, Any], default_prefix: str = "job") -> str:
    prefix = inputs.get("name_prefix")
    return sanitise_prefix(prefix if isinstance(prefix, str) and prefix else default_prefix)


def secret_values(data: Mapping[str, Any] | None) -> set[str]:
    """The values of a job's secret inputs (``fields.SECRET_INPUTS``: environment variables), from its
    declared inputs or from a resource's outputs (their ``declared_inputs``): what ``redact`` must hide from a
    text quoting the service, which may echo the request."""
    # The texts the secret paths hold, less those also given elsewhere among the inputs: such a text is not a
    # secret of the state, so it is left alone.
    if not isinstance(data, Mapping):
        return set()
    found = _strings(secret_paths.found(data)) - _strings(secret_paths.without(data))
    declared = data.get(DECLARED_INPUTS)
    return found | secret_values(declared) if isinstance(declared, Mapping) else found


def _strings(value: Any) -> set[str]:
    """Every text among the values (not the keys) of plain data."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def auto_name(inputs: Mapping[str, Any], generation: int = 0, default_prefix: str = "job") -> str | None:
    """The name a job without a declared name gets: ``<prefix>-<6 characters>``, deterministic.

    The characters come from a hash of the stack (``name_scope``: two stacks of one program must not share
    names), the prefix, the job body without ``metadata.name``, ``metadata.description`` (the description
    changes in place) and the secret environment variables, and ``triggers``. ``generation`` > 0 picks the
    next name once an earlier generation is held by a stopped job. Re-running the same program yields the
    same name, so a create repeated after a killed ``pulumi up`` meets the job it already started. None while
    a value it depends on is not known.
    """
    prefix = name_prefix_of(inputs, default_prefix)
    # Without the secret inputs: a name must not let anyone test guesses at one.
    body = secret_paths.without(job_body(inputs))
    metadata = body.get("metadata")
    if isinstance(metadata, Mapping):
        body["metadata"] = {k: v for k, v in metadata.items() if k not in ("name", "description")}
    seed = {
        "scope": inputs.get(NAME_SCOPE_FIELD),
        "prefix": prefix,
        "job": canonical(body),
        "triggers": canonical(inputs.get(TRIGGERS_FIELD)),
    }
    if contains_unknown(seed):
        return None
    if generation:
        seed["generation"] = generation
    text = json.dumps(seed, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    chars = []
    for _ in range(NAME_SUFFIX_LENGTH):
        number, index = divmod(number, len(_SUFFIX_ALPHABET))
        chars.append(_SUFFIX_ALPHABET[index])
    return f"{prefix}-{''.join(chars)}"[:NAME_MAX_LENGTH]


def auto_name_generation(inputs: Mapping[str, Any], default_prefix: str = "job") -> int | None:
    """Which generation of its auto-name the inputs' metadata.name is; None for a name the user chose."""
    metadata = inputs.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(name, str) or not name:
        return None
    for generation in range(MAX_NAME_GENERATIONS):
        if auto_name(inputs, generation, default_prefix) == name:
            return generation
    return None


def with_job_name(
    news: dict[str, Any],
    olds: Mapping[str, Any] | None,
    default_prefix: str = "job",
    suffix: Callable[[], str] | None = None,
) -> dict[str, Any]:
    """news with metadata.name filled in when the user gave none.

    The name already chosen in the old inputs is reused, so the job keeps its name across updates (also
    when name_prefix changes: a prefix only matters for a job not yet named). A new name is ``auto_name``
    (deterministic), or prefix + suffix() when a suffix function is given. Unknown values are left alone; a
    name that depends on one is unknown too.
    """
    metadata = news.get("metadata")
    if is_unknown(metadata):
        return news
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, Mapping):
        return news  # wrong type: check reports it
    if metadata.get("name") is not None:
        return news
    old_name = None
    if olds:
        old_meta = olds.get("metadata")
        if isinstance(old_meta, Mapping):
            candidate = old_meta.get("name")
            if isinstance(candidate, str) and candidate and not is_unknown(candidate):
                old_name = candidate
    prefix = news.get("name_prefix")
    if is_unknown(prefix) and old_name is None:
        # The name depends on a value not known yet; the engine shows it as unknown until then.
        return {**news, "metadata": {**metadata, "name": UNKNOWN}}
    if old_name is not None:
        name: Any = old_name
    elif suffix is not None:
        name = generate_name(prefix if isinstance(prefix, str) and prefix else default_prefix, suffix)
    else:
        name = auto_name(news, 0, default_prefix) or UNKNOWN
    return {**news, "metadata": {**metadata, "name": name}}


# ---------------------------------------------------------------------------------------------------------
# A name already held: whose job is it?

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
                walk(value, have.get(key), _path(where, key))
            return
        if isinstance(want, (list, tuple)):
            if not isinstance(have, (list, tuple)) or len(have) != len(want):
                found.append(where)
                return
            for index, (w, h) in enumerate(zip(want, have, strict=True)):
                walk(w, h, _path(where, index))
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

    The rule is ``ownership.judge``; this supplies its evidence: where the holder differs from the
    declaration. since_ms: when the create began, clock skew allowed for (``ownership.since_ms``).
    """
    wanted = dict(declared)
    metadata = wanted.get("metadata")
    if isinstance(metadata, Mapping):
        wanted["metadata"] = {k: v for k, v in metadata.items() if k != "description"}
    return judge(
        phase=phase, created_ms=created_ms, since_ms=since_ms, differences=differences(wanted, holder)
    )


# ---------------------------------------------------------------------------------------------------------
# Update or replace


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
    return [] if _same(old, new) else [(path, UPDATE)]


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
            if not _same(_without_description(old_value), _without_description(new_value)):
                replaced(name, _without_description(old_value), _without_description(new_value))
            if not _same(_description(old_value), _description(new_value)):
                decision.description_changed = "metadata" not in decision.replaces
                kind = leaves(_description(old_value), _description(new_value), "metadata.description")
                decision.leaves.extend(Leaf(path, k, False) for path, k in kind)
            continue
        if not _same(old_value, new_value):
            replaced(name, old_value, new_value)

    for name in SETTINGS_FIELDS:  # never HIDDEN_FIELDS: filling them in later must not look like a change
        if not _same(old.get(name), new.get(name)):
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

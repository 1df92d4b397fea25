"""Job names: a declared prefix made safe, the name a job without one gets (deterministic, in generations
once an earlier one is held), and the name kept across updates. Pure functions.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import string
from collections.abc import Callable, Mapping
from typing import Any

from ..generated.fields import NAME_SCOPE_FIELD, TRIGGERS_FIELD
from . import secret_paths
from .normalising import NOT_KNOWN, canonical, contains_unknown, is_unknown, job_body

__all__ = [
    "MAX_NAME_GENERATIONS",
    "NAME_MAX_LENGTH",
    "NAME_SUFFIX_LENGTH",
    "auto_name",
    "auto_name_generation",
    "generate_name",
    "name_prefix_of",
    "random_suffix",
    "sanitise_prefix",
    "with_job_name",
]

NAME_MAX_LENGTH = 64
NAME_SUFFIX_LENGTH = 6
_NAME_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_SUFFIX_ALPHABET = string.ascii_lowercase + string.digits
# How many generations of one auto-name create tries before giving up (each stale holder moves it on).
MAX_NAME_GENERATIONS = 20


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


def auto_name(inputs: Mapping[str, Any], generation: int = 0, default_prefix: str = "job") -> str | None:
    """The name a job without a declared name gets: ``<prefix>-<6 characters>``, deterministic.

    The characters come from a hash of the stack (``name_scope``: two stacks of one program must not share
    names), the prefix, the job body without ``metadata.name``, ``metadata.description`` (the description
    changes in place) and the secret environment variables, and ``triggers``. ``generation`` > 0 picks the
    next name once an earlier generation is held by a stopped job. Re-running the same program yields the
    same name, so a create repeated after a killed ``pulumi up`` meets the job it already started. None while
    a value it depends on is not known.
    """
    seed = _name_seed(inputs, default_prefix)
    return None if seed is None else _named(seed, generation)


def auto_name_generation(inputs: Mapping[str, Any], default_prefix: str = "job") -> int | None:
    """Which generation of its auto-name the inputs' metadata.name is; None for a name the user chose."""
    metadata = inputs.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(name, str) or not name:
        return None
    seed = _name_seed(inputs, default_prefix)  # once: the generations differ only in the hash
    if seed is None:
        return None
    for generation in range(MAX_NAME_GENERATIONS):
        if _named(seed, generation) == name:
            return generation
    return None


def _name_seed(inputs: Mapping[str, Any], default_prefix: str) -> dict[str, Any] | None:
    """What an auto-name is hashed from (``auto_name`` says what), or None while part of it is not known."""
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
    return None if contains_unknown(seed) else seed


def _named(seed: Mapping[str, Any], generation: int) -> str:
    hashed = {**seed, "generation": generation} if generation else seed
    text = json.dumps(hashed, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    chars = []
    for _ in range(NAME_SUFFIX_LENGTH):
        number, index = divmod(number, len(_SUFFIX_ALPHABET))
        chars.append(_SUFFIX_ALPHABET[index])
    return f"{seed['prefix']}-{''.join(chars)}"[:NAME_MAX_LENGTH]


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
        return {**news, "metadata": {**metadata, "name": NOT_KNOWN}}
    if old_name is not None:
        name: Any = old_name
    elif suffix is not None:
        name = generate_name(prefix if isinstance(prefix, str) and prefix else default_prefix, suffix)
    else:
        name = auto_name(news, 0, default_prefix) or NOT_KNOWN
    return {**news, "metadata": {**metadata, "name": name}}

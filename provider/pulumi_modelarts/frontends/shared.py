"""What the two front-ends do alike, written once: the dynamic provider (``dynamic.py``, with ``resource.py``
in the program) and the native plugin (``plugin.py``) each translate their own protocol and call here for

- the provider configuration: the ``modelarts:*`` keys kept for the settings, the near misses named in hints
  (``ProviderConfig``);
- naming: the resource name as the default ``name_prefix``, the stack as ``name_scope`` (``with_naming``);
- how a check failure and a warning reach the engine (``engine_failure``, ``warning_line``);
- the text an error reaches the engine with (``error_text``);
- listing jobs (``get_training_jobs`` / ``getTrainingJobs``), through ``core.open_client`` like every other
  call (``find_jobs``).

What a read means (a lookup or a refresh) and whether a refresh found the tags changed elsewhere is the job
layer's to say (``core.read``).

Importing it loads neither pulumi, pydantic nor httpx: the program imports it through ``resource.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..account.settings import CONFIG_NAMESPACE, SOURCES, near_miss_keys
from ..generated.fields import NAME_SCOPE_FIELD

if TYPE_CHECKING:
    from ..job.progress import Progress

__all__ = [
    "CONFIG_KEYS",
    "ProviderConfig",
    "engine_failure",
    "error_text",
    "find_jobs",
    "scope_of_urn",
    "stack_scope",
    "warning_line",
    "with_naming",
]

#: The stack config keys the settings are read from ("modelarts:region", ...).
CONFIG_KEYS = tuple(f"{CONFIG_NAMESPACE}:{key}" for key, _env in SOURCES.values())


class ProviderConfig:
    """The provider configuration a front-end was given, read by its operations on many threads at once.

    Until the engine configures the provider (``configure``) there is no stack config to judge settings by:
    check then leaves them to the operations, which resolve them with the environment's fallbacks.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, str] = {}
        self._configured = False
        self._misplaced: list[str] = []  # near-miss config keys that are set (names only)

    def configure(self, given: Mapping[str, object]) -> None:
        """The stack's configuration as the engine handed it over: full key ("modelarts:region") -> value.

        The settings' keys with a text are kept; the near misses that are set are remembered by name only.
        """
        misses = near_miss_keys()
        misplaced = sorted(key for key, value in given.items() if key in misses and value not in (None, ""))
        self._keep(given, configured=True, misplaced=misplaced)

    def remember(self, config: Mapping[str, object]) -> None:
        """Config that is not the stack's own (a direct call, a test): used by operations, never judged."""
        self._keep(config, configured=False, misplaced=[])

    def _keep(self, given: Mapping[str, object], *, configured: bool, misplaced: list[str]) -> None:
        kept = {key: _text(value) for key, value in given.items() if key in CONFIG_KEYS}
        with self._lock:
            self._values = {key: value for key, value in kept.items() if value}
            self._configured = configured
            self._misplaced = misplaced

    def current(self) -> dict[str, str]:
        """The configuration as last received (``modelarts:<key>`` -> value), for an operation."""
        with self._lock:
            return dict(self._values)

    def for_check(self) -> tuple[dict[str, str] | None, list[str]]:
        """What check judges settings by: the configuration (None before the engine configured the provider)
        and the near misses set."""
        with self._lock:
            return (dict(self._values) if self._configured else None), list(self._misplaced)


def _text(value: object) -> str:
    """A setting's value as the stack config gives it: text; an explicit provider's boolean or object
    (``useInstanceMetadata``, ``assumeRole``) as the JSON the stack config would hold."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return ""


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


def engine_failure(path: str, reason: str) -> tuple[str, str]:
    """A check failure as the engine should print it: (property, reason).

    The engine looks a failure's property up among the top-level inputs and prints its value, so a nested
    path ("spec.resource.node_count") would show as ``{<nil>}``: it leads the reason instead.
    """
    if path and "." not in path and "[" not in path:
        return path, reason
    return "", f"{path}: {reason}" if path else reason


def warning_line(path: str, reason: str, job: str | None = None) -> str:
    """A warning (advice the service does not enforce), naming the job where the line is not under it."""
    named = f"training job {job}: " if job else ""
    return f"{named}{path}: {reason}" if path else f"{named}{reason}"


def error_text(exc: BaseException, *data: Mapping[str, Any]) -> str:
    """What the engine shows of a failed operation: this package's errors are written for users and go as
    they are; anything else is a bug, named by its type.

    data: the operation's inputs or outputs, when the front-end has them: their secret values are hidden, a
    last net behind the client's own scrubbing (``Transport.hide``).
    """
    from ..job.normalising import secret_values
    from ..wire.errors import ModelArtsError, redact

    text = str(exc) if isinstance(exc, ModelArtsError) else f"{type(exc).__name__}: {exc}"
    hidden: set[str] = set()
    for given in data:
        hidden |= secret_values(given)
    return redact(text, hidden) if hidden else text


def find_jobs(
    config: Mapping[str, str],
    progress: Progress,
    *,
    name: str | None = None,
    phases: Sequence[str] = (),
    kind: str | None = None,
    created_after_ms: int | None = None,
    created_before_ms: int | None = None,
    tags: Mapping[str, str] | None = None,
    sort_by: str | None = None,
    order: str | None = None,
) -> list[dict[str, Any]]:
    """Every page of the search, as the lookup answers it (no secrets); sort_by and order left out are the
    service's: create_time, newest first.

    Raises ValueError naming the filter the service would refuse, before any call.
    """
    from ..job import core
    from ..job.tagging import tag_map

    try:
        filters = core.search_filters(
            name=name,
            phases=list(phases),
            kind=kind,
            created_after_ms=created_after_ms,
            created_before_ms=created_before_ms,
        )
    except ValueError as exc:  # pydantic's ValidationError: a filter the service would refuse
        errors = getattr(exc, "errors", None)
        reasons = [str(e["msg"]) for e in errors()] if callable(errors) else [str(exc)]
        raise ValueError("; ".join(reasons)) from None
    with core.open_client(config, progress) as client:
        return core.list_jobs(client, filters, sort_by=sort_by, order=order, tags=tag_map(tags))

"""The provider configuration a front-end was given: the ``modelarts:*`` keys kept for the settings, and the
near misses set (named in hints), read by the operations on many threads at once (``ProviderConfig``).

Importing it loads neither pulumi, pydantic nor httpx: the program imports it through ``resource.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping

from ..account.settings import CONFIG_NAMESPACE, SOURCES, near_miss_keys

__all__ = ["CONFIG_KEYS", "ProviderConfig"]

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

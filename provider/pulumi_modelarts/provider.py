"""The dynamic provider behind ``TrainingJob``: ``pulumi.dynamic`` calls translated to and from ``core``.

The provider object is pickled into the Pulumi state (by reference: it lives in this package and has no
attributes), so it holds no settings, credentials or clients. Each call resolves settings from the stack
config handed to ``configure`` (kept in a process-wide holder) and the environment, and opens a client for the
duration of the call. The provider host runs up to four calls at once on threads; the only shared mutable
state is that holder, guarded by a lock.

Progress goes to stderr, which the Pulumi CLI shows as diagnostics.

The Pulumi program imports this module only to name the provider class; ``core`` (and through it pydantic,
httpx and the wire models) loads on the first call, in the provider host.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping
from typing import Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from .errors import ProvisioningError
from .progress import StderrProgress, engine_address
from .settings import CONFIG_NAMESPACE, SOURCES

__all__ = ["ProvisioningError", "TrainingJobProvider", "current_config", "set_config", "stderr_progress"]

_CONFIG_LOCK = threading.Lock()
_CONFIG: dict[str, str] = {}


def set_config(config: Mapping[str, object]) -> None:
    """Remember the ``modelarts:*`` stack config for this process (called by ``configure``)."""
    kept = {
        str(k): str(v)
        for k, v in config.items()
        if v is not None and isinstance(k, str) and k.startswith(f"{CONFIG_NAMESPACE}:")
    }
    with _CONFIG_LOCK:
        _CONFIG.clear()
        _CONFIG.update(kept)


def current_config() -> dict[str, str]:
    with _CONFIG_LOCK:
        return dict(_CONFIG)


def stderr_progress() -> StderrProgress:
    """Progress on stderr, asking the engine that started this provider host whether it still listens."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    # Only Pulumi's dynamic provider host (`python -m pulumi.dynamic <engine address>`) has an engine.
    hosted = spec is not None and spec.name == "pulumi.dynamic.__main__"
    return StderrProgress(engine_address(sys.argv[1:]) if hosted else None)


class TrainingJobProvider(ResourceProvider):
    """CRUD for ModelArts training jobs. Stateless: safe to pickle, safe to share between threads."""

    def configure(self, req: ConfigureRequest) -> None:
        keys = [f"{CONFIG_NAMESPACE}:{key}" for key, _env in SOURCES.values()]
        set_config({key: req.config.get(key) for key in keys})

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        from . import core

        checked = core.check(_olds, news)
        return CheckResult(checked.inputs, [CheckFailure(f.path, f.reason) for f in checked.failures])

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        from . import core

        decision = core.plan(_id, _olds, _news, stderr_progress())
        return DiffResult(
            changes=decision.changes,
            replaces=decision.replaces,
            delete_before_replace=decision.delete_before_replace,
        )

    def create(self, props: dict[str, Any]) -> CreateResult:
        from . import core

        said = stderr_progress()
        with core.open_client(current_config(), said) as client:
            created = core.create(props, client, said)
        return CreateResult(created.id, created.outputs)

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from . import core

        said = stderr_progress()
        with core.open_client(current_config(), said) as client:
            found = core.read(id_, props, client, said)
        # An empty id tells the engine the job is gone: refresh drops it from the state.
        return ReadResult(found.id, found.outputs) if found is not None else ReadResult("", {})

    def update(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> UpdateResult:
        from . import core

        said = stderr_progress()
        with core.open_client(current_config(), said) as client:
            updated = core.update(_id, _olds, _news, client, said)
        return UpdateResult(updated.outputs)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        from . import core

        said = stderr_progress()
        with core.open_client(current_config(), said) as client:
            core.delete(_id, client, said, _props)

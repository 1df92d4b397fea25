"""The dynamic provider behind ``TrainingJob``: ``pulumi.dynamic`` calls translated to and from ``core``.

The provider object is pickled into the Pulumi state (by reference: it lives in this package and has no
attributes), so it holds no settings, credentials or clients. Each call resolves settings from the stack
config handed to ``configure`` (kept in a process-wide holder) and the environment, and opens a client for the
duration of the call. The provider host runs up to four calls at once on threads; the only shared mutable
state is that holder, guarded by a lock.

Progress goes to stderr, which the Pulumi CLI shows as diagnostics.

What the engine prints is shaped as for the native plugin (``engine_text``: a nested check-failure path leads
its reason, warnings name the job); this module's own part is that this package's errors reach the engine as
the gRPC status details themselves, without the "Exception calling application:" grpc puts before an escaped
exception (``_reported``), and a create whose job may still run as a partial create (``partial``).

The Pulumi program imports this module only to name the provider class; ``core`` (and through it pydantic,
httpx and the wire models) loads on the first call, in the provider host.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

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

from ..account.settings import near_miss_keys
from ..job.errors import InvalidInputsError, ProvisioningError
from ..job.waiting.giving_up import JobMayStillRun
from ..wire.errors import ModelArtsError
from .engine import StderrProgress, engine_address
from .engine_text import engine_failure, error_text, warning_line
from .provider_config import CONFIG_KEYS, ProviderConfig

if TYPE_CHECKING:
    from ..job.checking import Failure
    from ..wire.api import ModelArtsAPI

__all__ = ["ProvisioningError", "TrainingJobProvider", "current_config", "set_config", "stderr_progress"]

_R = TypeVar("_R")
# The dynamic provider host runs as `python -m pulumi.dynamic`; its servicer methods hold the gRPC context.
_HOST_MODULE = "pulumi.dynamic.__main__"
_HOST_METHODS = frozenset({"Check", "Diff", "Create", "Read", "Update", "Delete"})
# Where the host keeps the serialised provider in a resource's properties (``pulumi.dynamic.__main__``).
PROVIDER_KEY = "__provider"

# The provider object holds nothing (it is pickled into the state): the configuration is the process's.
CONFIG = ProviderConfig()


def set_config(config: Mapping[str, object]) -> None:
    """Use this ``modelarts:*`` config for this process's operations (a direct call, a test); unlike the
    engine's configure, it is not the stack's own, so check does not judge settings by it."""
    CONFIG.remember(config)


def current_config() -> dict[str, str]:
    return CONFIG.current()


def stderr_progress() -> StderrProgress:
    """Progress on stderr, asking the engine that started this provider host whether it still listens."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    # Only Pulumi's dynamic provider host (`python -m pulumi.dynamic <engine address>`) has an engine.
    hosted = spec is not None and spec.name == "pulumi.dynamic.__main__"
    return StderrProgress(engine_address(sys.argv[1:]) if hosted else None)


def _client(said: StderrProgress) -> ModelArtsAPI:
    """The client of an operation, opened here for every one: the provider config as last received, its
    retries said on stderr. A context manager: the operation closes it."""
    from ..job import core

    return core.open_client(CONFIG.current(), said)


def check_failure(path: str, reason: str) -> CheckFailure:
    """A failure as the engine should print it (``engine_text.engine_failure``)."""
    return CheckFailure(*engine_failure(path, reason))


def _servicer_context() -> Any:
    """The gRPC context of the dynamic host's servicer method this thread is running, or None.

    It is found on the stack (the nearest frame of a servicer method of the host module, whose ``context``
    argument has ``abort``) because nothing public reaches it: pulumi's dynamic host
    (``pulumi/dynamic/__main__.py``, ``DynamicResourceProviderServicer.Create``/``Read``/...) receives
    ``(request, context)`` from grpc but calls ``provider.create(props)`` and the rest without it, and offers
    no hook to run code around a call; grpc has no "current call" accessor; the host builds its own
    ``grpc.server`` in ``main()``, so no server interceptor can be added; and grpc's ``_call_behavior``
    turns any exception escaping the servicer into "Exception calling application: <text>", unless the
    method's own context aborted the call. The alternatives (patching the host's servicer class, or the
    dynamic provider protocol's own error types, which do not exist) are worse or unavailable. Only frames
    are read, nothing is changed, and outside that host (tests, other callers) the answer is None.
    """
    frame = inspect.currentframe()
    while frame is not None:
        spec = frame.f_globals.get("__spec__")
        if getattr(spec, "name", None) == _HOST_MODULE and frame.f_code.co_name in _HOST_METHODS:
            context = frame.f_locals.get("context")
            return context if callable(getattr(context, "abort", None)) else None
        frame = frame.f_back
    return None


def _reported(method: Callable[..., _R]) -> Callable[..., _R]:
    """Let this package's errors reach the engine as written.

    An exception escaping a servicer method reaches the engine as "Exception calling application: <text>"
    (grpc's wrapper); ``context.abort`` sets the status details without it. Outside the host (tests, other
    callers), or for an unexpected exception (a bug, whose traceback grpc logs), it is raised as is.
    """

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> _R:
        try:
            return method(*args, **kwargs)
        except ModelArtsError as exc:
            context = _servicer_context()
            if context is None:
                raise
            import grpc  # type: ignore[import-untyped]

            # The operation's inputs and outputs: their secrets are hidden from the text too.
            data = [arg for arg in args if isinstance(arg, Mapping)]
            text = error_text(exc, *data)
            if isinstance(exc, JobMayStillRun) and data:
                context.abort_with_status(_partial_create(exc, text, data[0]))  # raises
            context.abort(grpc.StatusCode.UNKNOWN, text)  # raises
            raise

    return wrapper


def _partial_create(exc: JobMayStillRun, text: str, props: Mapping[str, Any]) -> Any:
    """A create's answer for a job that may still run (``partial``): recorded with its outputs and, as the
    host records every dynamic resource's outputs, the serialised provider its later calls run."""
    import asyncio

    from pulumi.runtime import rpc

    from .partial import init_failed_status

    outputs = {**(exc.outputs or {}), PROVIDER_KEY: props.get(PROVIDER_KEY)}
    loop = asyncio.new_event_loop()  # as the host serialises a create's outputs
    try:
        properties = loop.run_until_complete(rpc.serialize_properties(outputs, {}))
    finally:
        loop.close()
    return init_failed_status(text, exc.job_id, properties)


# Whether this pulumi SDK's dynamic ReadResult carries inputs (the inputs the engine then stores).
READ_TAKES_INPUTS = "inputs" in inspect.signature(ReadResult.__init__).parameters


def _secret_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Inputs handed back to the engine, with the secret ones (``fields.SECRET_INPUTS``) marked secret again,
    as the resource registered them: the state's inputs keep them encrypted."""
    from pulumi.runtime import rpc

    from ..job.secret_paths import PLAIN, mark

    return mark(inputs, PLAIN, rpc.wrap_rpc_secret)


def _job_name(inputs: Mapping[str, Any]) -> str | None:
    metadata = inputs.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) else None


def _catalogue(inputs: Mapping[str, Any]) -> list[Failure]:
    """What the account's catalogue refuses in a job about to be created or replaced (job/catalogue.py), once
    the engine configured the provider (a direct call has no account to ask); a listing that could not be
    read is a warning naming the job."""
    from ..job.catalogue import check_planned

    if CONFIG.for_check()[0] is None:
        return []
    said = stderr_progress()
    verdict = check_planned(inputs, CONFIG.current(), said)
    for skipped in verdict.skipped:
        said.say(f"warning: {warning_line('', skipped, _job_name(inputs))}")
    return verdict.failures


class TrainingJobProvider(ResourceProvider):
    """CRUD for ModelArts training jobs. Stateless: safe to pickle, safe to share between threads."""

    def configure(self, req: ConfigureRequest) -> None:
        # The config can only be asked key by key: the settings' keys, and the known near misses to name.
        CONFIG.configure({key: req.config.get(key) for key in (*CONFIG_KEYS, *near_miss_keys())})

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        from ..job import core
        from .renaming import as_written, from_python, spelled_twice
        from .unknowns import given_out, taken_in

        # Outside the provider host (no configure), settings come from wherever the caller resolves them.
        config, misplaced = CONFIG.for_check()
        # The program's plain dicts may spell properties as Python does (node_selector_terms) or as the wire
        # does (nodeSelectorTerms); the stored inputs have the wire's, and problems the program's spelling.
        checked = core.check(_olds, from_python(taken_in(news)), config=config, misplaced=misplaced)
        if checked.warnings:
            # A dynamic provider has no per-resource log (its stderr is shown among the stack's diagnostics),
            # so each line names the job.
            job = _job_name(checked.inputs)
            said = stderr_progress()
            for warning in checked.warnings:
                said.say(f"warning: {warning_line(*as_written(warning.path, warning.reason, news), job)}")
        # A new job: what the account's catalogue refuses fails the preview.
        failures = checked.failures or ([] if _olds else _catalogue(checked.inputs))
        problems = [*spelled_twice(news), *(as_written(f.path, f.reason, news) for f in failures)]
        found = [check_failure(path, reason) for path, reason in problems]
        return CheckResult(given_out(checked.inputs), found)

    @_reported
    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        from ..job import core
        from .renaming import as_written
        from .unknowns import taken_in

        news = taken_in(_news)
        # The protocol carries top-level replaces only: the progress line names the values forcing a new job.
        decision = core.plan(_id, _olds, news, stderr_progress(), explain=True)
        # A new job replaces this one: the account's catalogue judges it as it judges a create.
        if decision.replaces and (refused := _catalogue(news)):
            raise InvalidInputsError(as_written(f.path, f.reason, _news) for f in refused)
        return DiffResult(
            changes=decision.changes,
            replaces=decision.replaces,
            delete_before_replace=decision.delete_before_replace,
        )

    @_reported
    def create(self, props: dict[str, Any]) -> CreateResult:
        from ..job import core

        said = stderr_progress()
        with _client(said) as client:
            created = core.create(props, client, said)
        return CreateResult(created.id, created.outputs)

    @_reported
    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from ..job import core
        from ..job.recorded import DECLARED_INPUTS

        said = stderr_progress()
        with _client(said) as client:
            found = core.read(id_, props, client, said)
        # An empty id tells the engine the job is gone: refresh drops it from the state.
        if found is None:
            return ReadResult("", {})
        # Tags changed elsewhere: the stored inputs become the declared inputs read (with the tags found), so
        # the next preview shows the drift as a change of tags. With a pulumi SDK whose ReadResult takes no
        # inputs (3.171 does not) the next preview still finds the drift (declared_inputs holds the tags
        # found), shown as an update without the property named.
        after = found.outputs.get(DECLARED_INPUTS)
        if READ_TAKES_INPUTS and isinstance(after, dict) and found.drifted_tags is not None:
            return ReadResult(found.id, found.outputs, _secret_inputs(after))
        return ReadResult(found.id, found.outputs)

    @_reported
    def update(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> UpdateResult:
        from ..job import core

        stored = core.stored_update(_id, _olds, _news)  # settings only: no client, no call
        if stored is not None:
            return UpdateResult(stored.outputs)
        said = stderr_progress()
        with _client(said) as client:
            updated = core.update(_id, _olds, _news, client, said)
        return UpdateResult(updated.outputs)

    @_reported
    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        from ..job import core

        said = stderr_progress()
        with _client(said) as client:
            core.delete(_id, client, said, _props)

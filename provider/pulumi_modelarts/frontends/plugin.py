"""The native provider plugin, ``pulumi-resource-modelarts``: Pulumi's provider protocol over ``core``.

The engine starts this executable and talks gRPC to it (``pulumi.provider.experimental``). This module holds
the provider class, which translates each request for ``core`` and its answer back, and the entry point
(``main``); the warm-up is ``warm_up``'s and the server start ``serving``'s:

- values: the engine's ``PropertyValue``s in schema names (``nodeCount``) become core's plain data in wire
  names (``node_count``) and back, secrets opened and marked again (``native_values``); the paths of check
  failures, the fields their reasons name, detailed-diff keys and replace reasons are renamed too;
- create, read, update and delete run ``core`` on threads of this module's own executor, sized for many jobs
  waiting at once (``asyncio.to_thread`` would use the default executor, a handful of threads on a small
  machine, and quietly cap the number of concurrent waits);
- progress lines go to the engine's log service with the resource's URN (the CLI shows them under the job),
  through the loop that serves the plugin (``EngineLog``);
- a request's timeout (``customTimeouts``) goes to core as it came, which bounds a create's wait, an update's
  retries and a delete's wait with it (``waiting.clamp``); the engine's cancel (Ctrl-C) ends the waits: the
  job is then terminated while the engine still listens, as for any failed wait;
- a create whose job may still run (``JobMayStillRun``) is answered as a partial create (``partial``): the
  engine records the job with its outputs and reports the creation as failed.

Settings come from the provider configuration (``modelarts:*`` stack config or an explicit provider's
arguments) and the environment, resolved afresh for every operation. What this front-end does exactly as the
dynamic one has a module each: which config keys count (``provider_config``), naming (``naming``), failures,
warnings and errors as the engine shows them (``engine_text``), the functions (``functions``); lookup or
refresh, tag drift and an imported job's diff are the job layer's (``core.read``, ``core.plan``).
"""

from __future__ import annotations

import asyncio
import functools
import importlib.resources
import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import (
    CheckFailure,
    CheckRequest,
    CheckResponse,
    ConfigureRequest,
    ConfigureResponse,
    CreateRequest,
    CreateResponse,
    DeleteRequest,
    DiffRequest,
    DiffResponse,
    GetSchemaRequest,
    GetSchemaResponse,
    InvokeRequest,
    InvokeResponse,
    PropertyDiff,
    PropertyDiffKind,
    Provider,
    ReadRequest,
    ReadResponse,
    UpdateRequest,
    UpdateResponse,
)

from ..account import shared_lookups
from ..account.settings import CONFIG_NAMESPACE, SOURCES
from ..generated import schema_names
from ..job.checking import Failure
from ..job.errors import InvalidInputsError
from ..job.normalising import NOT_KNOWN
from ..job.progress import Progress
from ..job.recorded import declared_from_job
from ..job.waiting.giving_up import JobMayStillRun
from .engine import EngineDebug, EngineLog
from .engine_text import engine_failure, error_text, warning_line
from .functions import BY_TOKEN
from .in_flight import InFlight
from .naming import scope_of_urn, with_naming
from .native_values import (
    answered,
    diff_key,
    outputs_map,
    planned_state,
    property_map,
    to_plain,
    wire_args,
    wire_inputs,
    wire_state,
    with_secret_inputs,
    with_tags_found,
)
from .partial import PartialCreate
from .provider_config import ProviderConfig
from .renaming import schema_failure, to_schema
from .serving import serve_engine
from .warm_up import WarmUp

if TYPE_CHECKING:
    from ..wire.api import ModelArtsAPI

__all__ = ["ModelArtsProvider", "main"]

RESOURCE_TYPE = "modelarts:index:TrainingJob"
# One thread per operation in flight; a create waiting for Running holds its thread for the whole wait.
# The engine runs at most --parallel operations at once (default 4 x cores); this leaves room above that.
WORKERS = 256
T = TypeVar("T")


@functools.cache
def secret_settings() -> tuple[str, ...]:
    """The provider settings the schema marks secret (``secretKey``...): the schema, generated from the
    settings, is their one list."""
    schema_file = importlib.resources.files("pulumi_modelarts.generated").joinpath("schema.json")
    schema = schema_file.read_text(encoding="utf-8")
    variables: Mapping[str, Mapping[str, Any]] = json.loads(schema)["config"]["variables"]
    return tuple(key for key, spec in variables.items() if spec.get("secret"))


def with_secret_settings(config: Mapping[str, PropertyValue]) -> dict[str, PropertyValue]:
    """The provider's configuration with every secret setting marked secret, however it was given."""
    secret = secret_settings()
    return {
        key: value.with_secret(True) if key in secret and not value.is_secret else value
        for key, value in config.items()
    }


def config_secrets_warning(keys: Sequence[str]) -> str:
    """The warning for credentials given in the stack config: the state keeps them secret, but the config file
    holds them in plain text unless set with --secret, and Pulumi's own debug output shows them."""
    environment = {key: names for key, names in SOURCES.values()}
    named = [f"{CONFIG_NAMESPACE}:{key}" for key in keys]
    where = " or ".join(f"${name}" for key in keys for name in environment.get(key, ())[:1])
    verb, it = ("is", "it") if len(keys) == 1 else ("are", "them")
    return (
        f"{', '.join(named)} {verb} set in the stack config: the state keeps {it} secret, but without "
        f"`--secret` the stack's config file holds {it} in plain text, and Pulumi's own debug output (-v=9, "
        f"PULUMI_DEBUG_GRPC) shows {it} either way. Prefer the environment ({where})."
    )


def _named(urn: str) -> str:
    """A resource's name, from its URN (``urn:pulumi:<stack>::<project>::<type>::<name>``)."""
    return urn.rpartition("::")[2] or urn


def _is_default_provider(urn: str) -> bool:
    # The engine names the provider it makes from the stack config "default" or "default_<version>...".
    name = urn.rpartition("::")[2]
    return name == "default" or name.startswith("default_")


# ---------------------------------------------------------------------------------------------------------
# The provider


class ModelArtsProvider(Provider):
    """The ``modelarts`` package: the TrainingJob resource and the getTrainingJobs function."""

    def __init__(self, engine: str | None = None, workers: int = WORKERS, *, warm_up: bool = False) -> None:
        """warm_up: load the models and the client on a thread of their own once an operation announces it
        will need them (``WarmUp``), as the served plugin does; off, each operation loads what it uses."""
        self.engine_log = EngineLog(engine)
        self.workers = workers
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="modelarts")
        self._config = ProviderConfig()
        self._stop = threading.Event()
        self._warned_config = False
        self.warm_up = WarmUp() if warm_up else None
        self.flights = InFlight(self.engine_log)

    async def _run(self, call: Callable[[], T], what: str) -> T:
        loop = asyncio.get_running_loop()
        self.engine_log.bind(loop)
        with self.flights.under_way(what):
            return await loop.run_in_executor(self._executor, call)

    def last_words(self, why: str) -> None:
        """Say why this plugin stops and which of its operations end with it (``in_flight``); never raises."""
        self.flights.last_words(why)

    def config(self) -> dict[str, str]:
        """The provider configuration as ``configure`` last received it (``modelarts:<key>`` -> value)."""
        return self._config.current()

    def _client(self, progress: Progress, limit: float | None = None) -> ModelArtsAPI:
        """The client of an operation, opened here for every one: the provider config as configured, within
        the operation's own time (``customTimeouts``) when it has one. The operation closes it."""
        from ..job import core

        return core.open_client(self.config(), progress, limit=limit)

    async def _catalogue(self, urn: str, inputs: Mapping[str, Any]) -> list[Failure]:
        """What the account's catalogue refuses in a job about to be created or replaced (job/catalogue.py),
        once the engine configured the provider; a listing it could not read is a warning on the job."""
        from ..job.catalogue import check_planned

        if self._config.for_check()[0] is None:
            return []
        progress = self.engine_log.progress(urn)
        verdict = await self._run(lambda: check_planned(inputs, self.config(), progress), "catalogue")
        for skipped in verdict.skipped:
            self.engine_log.log(urn, warning_line("", skipped), warning=True)
        return verdict.failures

    async def get_schema(self, request: GetSchemaRequest) -> GetSchemaResponse:
        schema = importlib.resources.files("pulumi_modelarts.generated").joinpath("schema.json")
        return GetSchemaResponse(schema.read_text(encoding="utf-8"))

    async def check_config(self, request: CheckRequest) -> CheckResponse:
        # Settings are resolved (with the environment's fallbacks) when an operation needs them. The engine
        # records this answer as the provider's inputs and outputs, and strips secrets before this call: a
        # credential set without --secret would be stored in plain text unless it is marked here.
        inputs = with_secret_settings(request.new_inputs)
        given = [key for key in secret_settings() if key in request.new_inputs]
        if given and not self._warned_config and _is_default_provider(request.urn):
            self._warned_config = True  # once per plugin, not on every check of the provider
            self.engine_log.log(request.urn, config_secrets_warning(given), warning=True)
        return CheckResponse(inputs=inputs, failures=[])

    async def configure(self, request: ConfigureRequest) -> ConfigureResponse:
        # The engine hands the package's config both as "modelarts:key" variables and as bare-key args (an
        # explicit provider's arguments, which win); a value not known yet counts as not given.
        given: dict[str, object] = dict(request.variables)
        for key, value in request.args.items():
            plain = to_plain(value)
            if plain is not NOT_KNOWN:
                given[f"{CONFIG_NAMESPACE}:{key}"] = plain
        self._config.configure(given)
        return ConfigureResponse(accept_secrets=True, supports_preview=False)

    async def check(self, request: CheckRequest) -> CheckResponse:
        from ..job import core

        if self.warm_up is not None and not request.old_inputs:
            self.warm_up.start()  # a new job: a create follows unless this is a preview

        sent = wire_inputs(request.new_inputs)
        # The resource name and the stack, which generated names use, as the dynamic resource passes them.
        news = with_naming(sent, request.name, scope_of_urn(request.urn))
        config, misplaced = self._config.for_check()
        # Settings are checked at preview too (no API call, no value in any message), as the dynamic one does.
        olds = wire_inputs(request.old_inputs)
        checked = core.check(olds, news, config=config, misplaced=misplaced)
        # Paths and the names their reasons mention as the user wrote them (schema names).
        found = checked.failures
        if not found and not request.old_inputs:  # a new job: what the catalogue refuses fails the preview
            found = await self._catalogue(request.urn, checked.inputs)
        failures = [CheckFailure(*engine_failure(*schema_failure(f.path, f.reason))) for f in found]
        # Advice the service does not enforce: a warning on the job's row, the inputs pass.
        for advice in checked.warnings:
            self.engine_log.log(
                request.urn, warning_line(*schema_failure(advice.path, advice.reason)), warning=True
            )
        answer = with_secret_inputs(answered(checked.inputs, sent, request.new_inputs))
        return CheckResponse(inputs=answer, failures=failures)

    async def diff(self, request: DiffRequest) -> DiffResponse:
        from ..job import core

        # An imported job's whole state (planned_state keeps it): core.plan judges it by what it says.
        olds = wire_state(planned_state(request.old_state))
        # Normalised once, by core.plan.
        news = wire_inputs(request.new_inputs)
        progress = self.engine_log.progress(request.urn)
        decision = core.plan(request.resource_id, olds, news, progress)
        if decision.forcing() and (refused := await self._catalogue(request.urn, news)):
            raise InvalidInputsError(schema_failure(f.path, f.reason) for f in refused)
        # Each changed value at its own path (spec.resource.nodeCount, algorithm.parameters[1].value), in
        # schema names: `preview --diff` shows it where it is and `preview --json` lists it. The replace
        # reasons are those paths too: the engine takes property paths there (it replaces the job and reports
        # them as the step's replaceReasons), so a reviewer sees which value forces a new job.
        detailed = {
            diff_key(leaf.path): PropertyDiff(_KINDS[leaf.kind, leaf.replaces], leaf.path != "status")
            for leaf in decision.leaves
        }
        return DiffResponse(
            changes=decision.changes,
            replaces=[diff_key(path) for path in decision.forcing()],
            delete_before_replace=decision.delete_before_replace,
            detailed_diff=detailed,
        )

    async def create(self, request: CreateRequest) -> CreateResponse:
        from ..job import core

        inputs = wire_inputs(request.properties)
        progress = self.engine_log.progress(request.urn)

        def call() -> core.JobState:
            if self.warm_up is not None:
                self.warm_up.wait()
            with self._client(progress, request.timeout) as client:
                return core.create(inputs, client, progress, limit=request.timeout, stop=self._stop)

        try:
            created = await self._run(call, f"create {_named(request.urn)}")
        except JobMayStillRun as exc:
            # The job may still run: the engine records it (its creation failed) rather than lose it.
            kept = outputs_map(exc.outputs or {}, request.properties)
            raise PartialCreate(error_text(exc), exc.job_id, PropertyValue.marshal_map(kept)) from None
        return CreateResponse(created.id, outputs_map(created.outputs, request.properties))

    async def read(self, request: ReadRequest) -> ReadResponse:
        from ..job import core

        olds = wire_state(request.properties)
        progress = self.engine_log.progress(request.urn)

        def call() -> core.JobState | None:
            with self._client(progress) as client:
                return core.read(request.resource_id, olds, client, progress)

        found = await self._run(call, f"read {_named(request.urn)}")
        if found is None:
            return ReadResponse(resource_id="", properties={}, inputs={})  # gone: refresh drops it
        inputs: Mapping[str, PropertyValue] = request.inputs
        if not inputs:
            # `pulumi import`: the inputs are what the job says about itself.
            inputs = with_secret_inputs(
                property_map(to_schema(declared_from_job(found.outputs), schema_names.INPUTS))
            )
        else:
            inputs = with_tags_found(inputs, found.drifted_tags)
        return ReadResponse(
            resource_id=found.id, properties=outputs_map(found.outputs, inputs), inputs=dict(inputs)
        )

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        from ..job import core

        olds = wire_state(request.olds)
        news = wire_inputs(request.news)
        progress = self.engine_log.progress(request.urn)

        def call() -> core.JobState:
            if (stored := core.stored_update(request.resource_id, olds, news)) is not None:
                return stored  # settings only: no client, no call
            with self._client(progress, request.timeout) as client:
                return core.update(request.resource_id, olds, news, client, progress, limit=request.timeout)

        updated = await self._run(call, f"update {_named(request.urn)}")
        return UpdateResponse(outputs_map(updated.outputs, request.news))

    async def delete(self, request: DeleteRequest) -> None:
        from ..job import core

        state = wire_state(request.properties)
        progress = self.engine_log.progress(request.urn)

        def call() -> None:
            with self._client(progress, request.timeout) as client:
                core.delete(request.resource_id, client, progress, state, limit=request.timeout)

        await self._run(call, f"delete {_named(request.urn)}")

    async def invoke(self, request: InvokeRequest) -> InvokeResponse:
        roots = schema_names.FUNCTIONS.get(request.tok)
        if roots is None:
            raise ValueError(f"unknown function {request.tok}")
        args, function = wire_args(request.args, roots[0]), BY_TOKEN[request.tok]
        progress = self.engine_log.progress("")
        what = request.tok.rsplit(":", 1)[-1]
        result = await self._run(lambda: function(self.config(), progress, args), what)
        return InvokeResponse(return_value=property_map(to_schema(result, roots[1])))

    async def cancel(self) -> None:
        # Waits under way end now (their jobs terminated while the engine listens), IAM's too; later at once.
        self._stop.set()
        shared_lookups.cancel_waits()


_KINDS = {
    ("add", False): PropertyDiffKind.ADD,
    ("add", True): PropertyDiffKind.ADD_REPLACE,
    ("update", False): PropertyDiffKind.UPDATE,
    ("update", True): PropertyDiffKind.UPDATE_REPLACE,
    ("delete", False): PropertyDiffKind.DELETE,
    ("delete", True): PropertyDiffKind.DELETE_REPLACE,
}


def main() -> None:
    """Entry point of ``pulumi-resource-modelarts``: serve the provider to the engine that started it."""

    def provider_for(engine: str) -> ModelArtsProvider:
        package_log = logging.getLogger("pulumi_modelarts")
        package_log.setLevel(logging.DEBUG)
        provider = ModelArtsProvider(engine, warm_up=True)
        package_log.addHandler(EngineDebug(provider.engine_log))
        return provider

    serve_engine(provider_for)

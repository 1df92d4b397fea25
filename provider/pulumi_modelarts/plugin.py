"""The native provider plugin, ``pulumi-resource-modelarts``: Pulumi's provider protocol over ``core``.

The engine starts this executable and talks gRPC to it (``pulumi.provider.experimental``). Every method turns
``PropertyValue``s into the plain dicts ``core`` works on, calls it, and turns the answer back:

- property names are the schema's (camelCase, ``nodeCount``) on the engine's side and the wire's
  (``node_count``) on core's: every value is renamed on the way in and out (``renaming``, by the generated
  types of ``schema_names``; map keys, such as environment variables, are never renamed), and so are the
  paths of check failures, the fields their reasons name, detailed-diff keys and replace reasons;
- numbers arrive as floats (whole ones become ints again), values not known yet (preview) become the same
  unknown marker the dynamic provider sees, and secrets are unwrapped on the way in and marked again on the
  way out (where the inputs had them, and on the outputs that are always secret);
- create, read, update and delete run ``core`` on threads of this module's own executor, sized for many jobs
  waiting at once (``asyncio.to_thread`` would use the default executor, a handful of threads on a small
  machine, and quietly cap the number of concurrent waits);
- progress lines go to the engine's log service with the resource's URN, so the CLI shows them under the job;
- a create's wait is bounded by ``customTimeouts`` when given (the request's timeout) and ends when the engine
  cancels the deployment (Ctrl-C): the job is then terminated while the engine still listens, as for any
  failed wait; an update's retries and a delete's wait for the job to stop are bounded the same way.

Settings come from the provider configuration (``modelarts:*`` stack config or an explicit provider's
arguments) and the environment, resolved afresh for every operation. What this front-end does exactly as the
dynamic one (which config keys count, naming, failures and warnings as the engine shows them, error text,
listing jobs) is ``front_end``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.resources
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import MappingProxyType
from typing import Any, TypeVar

from pulumi.provider.experimental.property_value import Computed, PropertyValue
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
from pulumi.runtime import rpc

from . import schema_names
from .fields import SECRET_OUTPUTS, SETTINGS_FIELDS
from .front_end import (
    ProviderConfig,
    engine_failure,
    error_text,
    find_jobs,
    scope_of_urn,
    warning_line,
    with_naming,
)
from .job_state import declared_from_job, restrict
from .progress import EngineLog, engine_address, wait_until_engine_gone
from .renaming import rename, schema_failure, schema_path, to_schema, wire_table
from .secret_paths import SECRET_PATHS, Path, Steps, mark, renamed
from .settings import CONFIG_NAMESPACE, SOURCES

__all__ = ["ModelArtsProvider", "main", "to_plain", "to_property"]

RESOURCE_TYPE = "modelarts:index:TrainingJob"
FUNCTION_TYPE = "modelarts:index:getTrainingJobs"
# One thread per operation in flight; a create waiting for Running holds its thread for the whole wait.
# The engine runs at most --parallel operations at once (default 4 x cores); this leaves room above that.
WORKERS = 256
T = TypeVar("T")


# ---------------------------------------------------------------------------------------------------------
# PropertyValue <-> plain data


def to_plain(value: PropertyValue) -> Any:
    """Plain data from a PropertyValue: secrets opened, whole floats as ints, unknowns as the marker."""
    inner = value.value
    # The exact types a PropertyValue holds first (str, float, a mapping proxy, a tuple): the ABC checks
    # below cost more than the rest of the walk, for every value of every request.
    if isinstance(inner, str) or inner is None or isinstance(inner, bool):
        return inner
    if isinstance(inner, float):
        return int(inner) if inner.is_integer() else inner
    if isinstance(inner, MappingProxyType):
        return {str(k): to_plain(v) for k, v in inner.items() if isinstance(v, PropertyValue)}
    if isinstance(inner, tuple):
        return [to_plain(v) for v in inner if isinstance(v, PropertyValue)]
    if isinstance(inner, Computed):
        return rpc.UNKNOWN
    if isinstance(inner, Mapping):
        return {str(k): to_plain(v) for k, v in inner.items() if isinstance(v, PropertyValue)}
    if isinstance(inner, Sequence):
        return [to_plain(v) for v in inner if isinstance(v, PropertyValue)]
    raise ValueError(f"unsupported value of type {type(inner).__name__}")


def plain_map(values: Mapping[str, PropertyValue]) -> dict[str, Any]:
    return {k: to_plain(v) for k, v in values.items()}


def to_property(value: Any, like: PropertyValue | None = None, *, secret: bool = False) -> PropertyValue:
    """A PropertyValue from plain data; where ``like`` (the value it came from) was secret, so is this."""
    secret = secret or (like is not None and like.is_secret)
    template = like.value if like is not None else None
    if isinstance(value, str) and value == rpc.UNKNOWN:
        converted = PropertyValue.computed()
    elif value is None or isinstance(value, (bool, str)):
        converted = PropertyValue(value)
    elif isinstance(value, (int, float)):
        converted = PropertyValue(float(value))
    elif isinstance(value, Mapping):
        olds = template if isinstance(template, Mapping) else {}
        converted = PropertyValue({str(k): to_property(v, olds.get(str(k))) for k, v in value.items()})
    elif isinstance(value, (list, tuple)):
        items = template if isinstance(template, tuple) else ()
        converted = PropertyValue(
            [to_property(v, items[i] if i < len(items) else None) for i, v in enumerate(value)]
        )
    else:
        raise ValueError(f"unsupported value of type {type(value).__name__}")
    return converted.with_secret(True) if secret else converted


def property_map(
    values: Mapping[str, Any], like: Mapping[str, PropertyValue] | None = None, secret: Sequence[str] = ()
) -> dict[str, PropertyValue]:
    like = like or {}
    return {k: to_property(v, like.get(k), secret=k in secret) for k, v in values.items()}


def _answered(
    values: Mapping[str, Any], sent_wire: Mapping[str, Any], sent: Mapping[str, PropertyValue]
) -> dict[str, PropertyValue]:
    """Checked inputs (core's, in wire names) for the engine, in schema names. Each top-level value the engine
    sent unchanged (its plain form equal, as check leaves most) is answered with the very PropertyValue it
    sent: its secrets and dependencies are kept as they came, and nothing is renamed or built again."""
    names = schema_names.TYPES[schema_names.INPUTS]
    answer: dict[str, PropertyValue] = {}
    for key, value in values.items():
        name, shape = names.get(key, (key, ""))
        if name in sent and key in sent_wire and sent_wire[key] == value:
            answer[name] = sent[name]
        else:
            renamed = rename(value, shape, schema_names.TYPES) if shape else value
            answer[name] = to_property(renamed, sent.get(name))
    return answer


def with_secret_inputs(inputs: Mapping[str, PropertyValue]) -> dict[str, PropertyValue]:
    """inputs with every secret input (``fields.SECRET_INPUTS``) marked secret, whatever the program passed.

    The schema declares them secret, but the generated SDKs mark no nested property so: the checked inputs the
    engine records in the state must, or environment variables would be stored there in plain text.
    """
    return mark(inputs, _PROPERTY_VALUES, _secret, _secret_schema_paths())


@functools.cache
def _secret_schema_paths() -> tuple[Path, ...]:
    # The plugin's values are in schema names: the secret paths renamed once.
    return renamed(schema_path, SECRET_PATHS)


def _into_field(
    value: PropertyValue, name: str, inner: Callable[[PropertyValue], PropertyValue]
) -> PropertyValue:
    fields = value.value
    if isinstance(fields, Mapping) and name in fields:
        return PropertyValue(
            {**fields, name: inner(fields[name])}, is_secret=value.is_secret, dependencies=value.dependencies
        )
    return value  # absent, unknown (Computed) or not the shape the schema gives: nothing to mark


def _into_items(value: PropertyValue, inner: Callable[[PropertyValue], PropertyValue]) -> PropertyValue:
    items = value.value
    if isinstance(items, Sequence) and not isinstance(items, str):
        marked = [inner(item) for item in items]
        return PropertyValue(marked, is_secret=value.is_secret, dependencies=value.dependencies)
    return value


def _secret(value: PropertyValue) -> PropertyValue:
    return value if value.is_secret else value.with_secret(True)


_PROPERTY_VALUES: Steps[PropertyValue] = Steps(_into_field, _into_items)


@functools.cache
def secret_settings() -> tuple[str, ...]:
    """The provider settings the schema marks secret (``secretKey``...): the schema, generated from the
    settings, is their one list."""
    schema = importlib.resources.files("pulumi_modelarts").joinpath("schema.json").read_text(encoding="utf-8")
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


def _is_default_provider(urn: str) -> bool:
    # The engine names the provider it makes from the stack config "default" or "default_<version>...".
    name = urn.rpartition("::")[2]
    return name == "default" or name.startswith("default_")


def outputs_map(outputs: Mapping[str, Any], inputs: Mapping[str, PropertyValue]) -> dict[str, PropertyValue]:
    """The resource's outputs (core's, in wire names) for the engine, in schema names; those always secret are
    marked, and so is any output whose input was secret."""
    secret = [schema_path(name, schema_names.OUTPUTS) for name in SECRET_OUTPUTS]
    renamed = to_schema(outputs, schema_names.OUTPUTS)
    return property_map(renamed, {k: v for k, v in inputs.items() if v.is_secret}, secret)


# ---------------------------------------------------------------------------------------------------------
# Values in schema names as core's plain data in wire names, read and renamed in one walk


def wire_inputs(values: Mapping[str, PropertyValue]) -> dict[str, Any]:
    """A request's inputs (schema names) as the plain data core takes (wire names)."""
    return _wire_map(values, schema_names.INPUTS, wire_table())


def wire_state(values: Mapping[str, PropertyValue]) -> dict[str, Any]:
    """A request's stored outputs (schema names) as the plain data core takes (wire names)."""
    return _wire_map(values, schema_names.OUTPUTS, wire_table())


def _wire_map(
    values: Mapping[str, PropertyValue], shape: str, table: Mapping[str, Mapping[str, tuple[str, str]]]
) -> dict[str, Any]:
    """to_wire(plain_map(values), shape) in one walk: every value is read once, and renamed as it is read."""
    props = table.get(shape)
    if props is None:
        return plain_map(values)
    return _wire_object(values, props, table)


def _wire_object(
    values: Mapping[Any, Any], props: Mapping[str, tuple[str, str]], table: Mapping[str, Any]
) -> dict[str, Any]:
    renamed: dict[str, Any] = {}
    for key, item in values.items():
        if not isinstance(item, PropertyValue):
            continue
        entry = props.get(key)
        if entry is None:
            renamed.setdefault(str(key), to_plain(item))
        else:
            renamed[entry[0]] = _wire_value(item, entry[1], table) if entry[1] else to_plain(item)
    return renamed


def _wire_value(value: PropertyValue, shape: str, table: Mapping[str, Mapping[str, tuple[str, str]]]) -> Any:
    # As _rename walks plain data; a value not of the shape's kind is converted as it is. The exact types a
    # PropertyValue holds (a tuple, a mapping proxy) are tested first: this walk runs for every request.
    inner: Any = value.value
    kind = type(inner)
    if shape[:2] == "[]":
        of = shape[2:]
        if of and kind is tuple:
            return [_wire_value(v, of, table) for v in inner if isinstance(v, PropertyValue)]
        return to_plain(value)
    if kind is not MappingProxyType:
        return to_plain(value)
    if shape[:2] == "{}":
        of = shape[2:]
        if of:
            items = inner.items()
            return {str(k): _wire_value(v, of, table) for k, v in items if isinstance(v, PropertyValue)}
        return to_plain(value)
    props = table.get(shape)
    return to_plain(value) if props is None else _wire_object(inner, props, table)


# ---------------------------------------------------------------------------------------------------------
# The provider


class ModelArtsProvider(Provider):
    """The ``modelarts`` package: the TrainingJob resource and the getTrainingJobs function."""

    def __init__(self, engine: str | None = None, workers: int = WORKERS, *, warm_up: bool = False) -> None:
        """warm_up: load the models and the client on a thread of their own once an operation announces it
        will need them (``WarmUp``), as the served plugin does; off, each operation loads what it uses."""
        self._log = EngineLog(engine)
        self.workers = workers
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="modelarts")
        self._config = ProviderConfig()
        self._stop = threading.Event()
        self._warned_config = False
        self.warm_up = WarmUp() if warm_up else None

    async def _run(self, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def config(self) -> dict[str, str]:
        """The provider configuration as ``configure`` last received it (``modelarts:<key>`` -> value)."""
        return self._config.current()

    async def get_schema(self, request: GetSchemaRequest) -> GetSchemaResponse:
        schema = importlib.resources.files("pulumi_modelarts").joinpath("schema.json")
        return GetSchemaResponse(schema.read_text(encoding="utf-8"))

    async def check_config(self, request: CheckRequest) -> CheckResponse:
        # Settings are resolved (with the environment's fallbacks) when an operation needs them. The engine
        # records this answer as the provider's inputs and outputs, and strips secrets before this call: a
        # credential set without --secret would be stored in plain text unless it is marked here.
        inputs = with_secret_settings(request.new_inputs)
        given = [key for key in secret_settings() if key in request.new_inputs]
        if given and not self._warned_config and _is_default_provider(request.urn):
            self._warned_config = True  # once per plugin, not on every check of the provider
            self._log.log(request.urn, config_secrets_warning(given), warning=True)
        return CheckResponse(inputs=inputs, failures=[])

    async def configure(self, request: ConfigureRequest) -> ConfigureResponse:
        # The engine hands the package's config both as "modelarts:key" variables and as bare-key args (an
        # explicit provider's arguments, which win); a value not known yet counts as not given.
        given: dict[str, object] = dict(request.variables)
        for key, value in request.args.items():
            plain = to_plain(value)
            if plain != rpc.UNKNOWN:
                given[f"{CONFIG_NAMESPACE}:{key}"] = plain
        self._config.configure(given)
        return ConfigureResponse(accept_secrets=True, supports_preview=False)

    async def check(self, request: CheckRequest) -> CheckResponse:
        from . import core

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
        failures = [
            CheckFailure(*engine_failure(*schema_failure(f.path, f.reason))) for f in checked.failures
        ]
        # Advice the service does not enforce: a warning on the job's row, the inputs pass.
        for advice in checked.warnings:
            self._log.log(
                request.urn, warning_line(*schema_failure(advice.path, advice.reason)), warning=True
            )
        answer = with_secret_inputs(_answered(checked.inputs, sent, request.new_inputs))
        return CheckResponse(inputs=answer, failures=failures)

    async def diff(self, request: DiffRequest) -> DiffResponse:
        from . import core, diffing
        from .job_state import DECLARED_INPUTS
        from .tagging import TAGS_FIELD

        olds = wire_state(planned_state(request.old_state))
        # Normalised once, by core.plan (diffing.decide).
        news = wire_inputs(request.new_inputs)
        declared = olds.get(DECLARED_INPUTS)
        if not isinstance(declared, Mapping):
            # Adopted by `pulumi import`: compare what the program declares with the job as it was found.
            found = declared_from_job(olds)
            normalised = diffing.normalise_inputs(news)
            adopted = restrict(found, normalised)
            # Settings are the program's (only stored); tags are judged against those the job was found with.
            adopted.update({k: normalised[k] for k in SETTINGS_FIELDS if k in normalised and k != TAGS_FIELD})
            declared = diffing.normalise_inputs(adopted)
            olds = {**olds, DECLARED_INPUTS: declared}
        progress = self._log.progress(request.urn)
        decision = core.plan(request.resource_id, olds, news, progress)
        # Each changed value at its own path (spec.resource.nodeCount, algorithm.parameters[1].value), in
        # schema names: `preview --diff` shows it where it is and `preview --json` lists it. The replace
        # reasons are those paths too: the engine takes property paths there (it replaces the job and reports
        # them as the step's replaceReasons), so a reviewer sees which value forces a new job.
        detailed = {
            _diff_key(leaf.path): PropertyDiff(_KINDS[leaf.kind, leaf.replaces], leaf.path != "status")
            for leaf in decision.leaves
        }
        return DiffResponse(
            changes=decision.changes,
            replaces=[_diff_key(path) for path in decision.forcing()],
            delete_before_replace=decision.delete_before_replace,
            detailed_diff=detailed,
        )

    async def create(self, request: CreateRequest) -> CreateResponse:
        from . import core

        inputs = wire_inputs(request.properties)
        progress = self._log.progress(request.urn)
        limit = _limit(request.timeout)

        def call() -> core.JobState:
            if self.warm_up is not None:
                self.warm_up.wait()
            with core.open_client(self.config(), progress) as client:
                return core.create(inputs, client, progress, limit=limit, stop=self._stop)

        created = await self._run(call)
        return CreateResponse(created.id, outputs_map(created.outputs, request.properties))

    async def read(self, request: ReadRequest) -> ReadResponse:
        from . import core
        from .job_state import DECLARED_INPUTS

        olds = wire_state(request.properties)
        progress = self._log.progress(request.urn)

        # No stored outputs: an import or a lookup by id, for which a missing job is an error, not news.
        lookup = not olds

        def call() -> core.JobState | None:
            with core.open_client(self.config(), progress) as client:
                return core.read(request.resource_id, olds, client, progress, must_exist=lookup)

        found = await self._run(call)
        if found is None:
            return ReadResponse(resource_id="", properties={}, inputs={})  # gone: refresh drops it
        inputs: Mapping[str, PropertyValue] = request.inputs
        if not inputs:
            # `pulumi import`: the inputs are what the job says about itself.
            inputs = with_secret_inputs(
                property_map(to_schema(declared_from_job(found.outputs), schema_names.INPUTS))
            )
        else:
            inputs = with_tags_found(inputs, found.outputs.get(DECLARED_INPUTS))
        return ReadResponse(
            resource_id=found.id, properties=outputs_map(found.outputs, inputs), inputs=dict(inputs)
        )

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        from . import core

        olds = wire_state(request.olds)
        news = wire_inputs(request.news)
        progress = self._log.progress(request.urn)
        limit = _limit(request.timeout)

        def call() -> core.JobState:
            with core.open_client(self.config(), progress) as client:
                return core.update(request.resource_id, olds, news, client, progress, limit=limit)

        updated = await self._run(call)
        return UpdateResponse(outputs_map(updated.outputs, request.news))

    async def delete(self, request: DeleteRequest) -> None:
        from . import core

        state = wire_state(request.properties)
        progress = self._log.progress(request.urn)
        limit = _limit(request.timeout)

        def call() -> None:
            with core.open_client(self.config(), progress) as client:
                core.delete(request.resource_id, client, progress, state, limit=limit)

        await self._run(call)

    async def invoke(self, request: InvokeRequest) -> InvokeResponse:
        if request.tok != FUNCTION_TYPE:
            raise ValueError(f"unknown function {request.tok}")
        args = _wire_map(request.args, schema_names.FUNCTION_ARGS, wire_table())
        progress = self._log.progress("")

        def millis(key: str) -> int | None:
            value = args.get(key)
            return None if value is None else int(value)

        def call() -> list[dict[str, Any]]:
            return find_jobs(
                self.config(),
                progress,
                name=str(args["name"]) if args.get("name") else None,
                phases=[str(p) for p in args.get("phases") or []],
                kind=str(args["kind"]) if args.get("kind") else None,
                created_after_ms=millis("created_after"),
                created_before_ms=millis("created_before"),
                tags=args.get("tags"),
                sort_by=str(args["sort_by"]) if args.get("sort_by") else None,
                order=str(args["order"]) if args.get("order") else None,
            )

        jobs = await self._run(call)
        result = to_schema({"jobs": jobs}, schema_names.FUNCTION_RESULT)
        return InvokeResponse(return_value=property_map(result))

    async def cancel(self) -> None:
        # Waits in progress end now (their jobs are terminated while the engine listens); later ones at once.
        self._stop.set()


def with_tags_found(inputs: Mapping[str, PropertyValue], declared: object) -> Mapping[str, PropertyValue]:
    """The stored inputs with the tags a refresh found, when they manage tags and the job's differ: the next
    preview then shows the drift as a change of ``tags`` (and only of it)."""
    from .tagging import tag_map, tags_of

    found = tags_of(declared) if isinstance(declared, Mapping) else None
    if found is None or "tags" not in inputs:
        return inputs
    stored = tag_map(to_plain(inputs["tags"]))
    if stored == found:
        return inputs
    return {**inputs, "tags": to_property(found, inputs["tags"])}


# What diff reads of the stored outputs (core.plan): the declared inputs, the last phases and the name. A job
# adopted by `pulumi import` has no declared inputs; diff then compares with the whole job as found.
_PLANNED = ("declared_inputs", "phase", "secondary_phase", "name")


def planned_state(state: Mapping[str, PropertyValue]) -> Mapping[str, PropertyValue]:
    """The stored outputs diff needs (schema names), without converting the ~90 the job itself carries."""
    names = schema_names.TYPES[schema_names.OUTPUTS]
    planned = {names[wire][0] for wire in _PLANNED}
    if names["declared_inputs"][0] not in state:
        return state
    return {key: value for key, value in state.items() if key in planned}


def _limit(timeout: float | None) -> float | None:
    """The seconds a request's customTimeouts allow (the engine sends 0 when none is set)."""
    return timeout if timeout and timeout > 0 else None


def _diff_key(name: str) -> str:
    """A detailed-diff key or replace reason of core (a wire path) in schema names."""
    return schema_path(name, schema_names.OUTPUTS if name == "status" else schema_names.INPUTS)


_KINDS = {
    ("add", False): PropertyDiffKind.ADD,
    ("add", True): PropertyDiffKind.ADD_REPLACE,
    ("update", False): PropertyDiffKind.UPDATE,
    ("update", True): PropertyDiffKind.UPDATE_REPLACE,
    ("delete", False): PropertyDiffKind.DELETE,
    ("delete", True): PropertyDiffKind.DELETE_REPLACE,
}


def warm_up(ready: threading.Event | None = None) -> None:
    """Load what a check needs (core, the request models) and build their validators, which pydantic
    otherwise builds inside the first call that validates (about 0.1 s of CPU); then the same for what a
    create needs beyond it (the client, the response models); then set ready.

    A check does not wait for it: a no-change check needs no models at all, and one that validates imports
    them (Python's import lock makes it wait for an import under way) and waits in ``build_validators`` for a
    build under way rather than building the same validator again.
    """
    try:
        from . import core, models  # noqa: F401  (imported for their cost)

        models.build_validators(models.CreateTrainingJobRequest, models.ProviderSettings)
        from . import client  # noqa: F401

        models.build_validators(models.TrainingJob, models.ResourceOutputs)
    finally:
        if ready is not None:
            ready.set()


class WarmUp:
    """``warm_up`` on a thread of its own, started by the first operation that says a create may follow.

    Not at plugin start: a no-change preview or a refresh never needs the request validators, and loading
    them competes for the GIL and the CPU with the answers the engine waits for (a 20-job no-change preview
    took about 90 ms longer with it). A create waits for it rather than building the response models'
    validators a second time on its own thread.
    """

    def __init__(self) -> None:
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=warm_up, args=(self.ready,), name="modelarts-warm-up", daemon=True
                )
                self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def wait(self) -> None:
        self.start()
        self.ready.wait(timeout=60)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pulumi-modelarts")
    except PackageNotFoundError:
        return "0.0.0"


# Pulumi's own gRPC settings for plugins: a large stack's messages exceed gRPC's 4 MB default, and a request
# may wait long for a busy event loop before it is handled.
MAX_MESSAGE_BYTES = 400 * 1024 * 1024
MAX_UNREQUESTED_SECONDS = 30 * 60
RPCS = ("CheckConfig", "Configure", "Check", "Diff", "Create", "Read", "Update", "Delete", "Invoke")


def _servicer_class() -> type:
    """Pulumi's servicer, with an operation's error answered as its own text: by default gRPC prefixes it with
    "Unexpected <class ...>" and logs a traceback the engine then shows too."""
    import grpc  # type: ignore[import-untyped]  # (no stubs; two calls used)
    from pulumi.provider.experimental.server import ProviderServicer

    def answering(name: str) -> Callable[..., Any]:
        inherited = getattr(ProviderServicer, name)

        async def rpc_method(self: Any, request: Any, context: Any) -> Any:
            try:
                return await inherited(self, request, context)
            except Exception as exc:
                await context.abort(grpc.StatusCode.UNKNOWN, error_text(exc))

        return rpc_method

    return type("ModelArtsServicer", (ProviderServicer,), {name: answering(name) for name in RPCS})


def leave_when_engine_gone(engine: str, parent: int) -> None:
    """End this process once the engine that started it is gone (e.g. `pulumi` killed with SIGKILL, which
    never stops its plugins): nobody will ask anything of it again, and it would otherwise run for ever.

    It ends at once, without cancelling anything: a wait in flight just stops, and its job keeps running,
    neither terminated nor recorded, for ``modelarts-orphans`` or the next ``pulumi up`` to adopt (a job is
    only ever terminated while the engine listens). ``os._exit`` because the executor's threads, one per wait,
    would hold an ordinary exit until their waits end.
    """
    wait_until_engine_gone(engine, parent)
    with contextlib.suppress(OSError, ValueError):  # nobody may read it any more
        sys.stderr.write(
            "modelarts: the Pulumi engine is gone; the provider exits, leaving its jobs as they are\n"
        )
        sys.stderr.flush()
    os._exit(0)


def main() -> None:
    """Entry point of ``pulumi-resource-modelarts``: serve the provider to the engine that started it.

    Pulumi's Python providers call ``pulumi.provider.experimental.server.main(args, version, provider)``. This
    does what it does (a gRPC server on a free loopback port, the port on stdout) itself, because that
    function takes no servicer and no hook to run after the port is written: its fixed ``ProviderServicer``
    lets gRPC answer an error as "Unexpected <class ...>: text" and log a traceback the engine shows again
    (the servicer above answers the error's own text).
    """
    import grpc
    from pulumi.runtime.proto import provider_pb2_grpc

    parent = os.getppid()  # first: the engine, unless it is already gone
    # The engine stops its plugins with SIGINT and kills one only after a grace of seconds. A plugin started
    # from a shell's background job inherits SIGINT ignored, which would add that grace to every command.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    args = sys.argv[1:]
    engine = engine_address(args)
    if engine is None:
        sys.exit("pulumi-resource-modelarts is a Pulumi plugin: the Pulumi engine starts it")
    provider = ModelArtsProvider(engine, warm_up=True)
    threading.Thread(
        target=leave_when_engine_gone, args=(engine, parent), name="modelarts-engine-watch", daemon=True
    ).start()

    async def serve() -> None:
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.server_max_unrequested_time_in_server", MAX_UNREQUESTED_SECONDS),
        ]
        server = grpc.aio.server(options=options)
        servicer = _servicer_class()(args, _version(), provider, engine_address=engine)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
        await server.wait_for_termination()

    with contextlib.suppress(KeyboardInterrupt):  # the engine stops its plugins; nothing to report
        asyncio.run(serve())

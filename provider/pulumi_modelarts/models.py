"""Wire models for the ModelArts training-job API (``/v2/{project_id}/training-jobs``).

Field names and nesting follow the API pages exactly (see the seed documents). Two families:

* Requests (``CreateTrainingJobRequest``, ``SearchRequest`` and everything nested in them) are strict: unknown
  keys are refused, and the rules the API pages state are checked before anything is sent, so a user learns
  about a mistake at preview time with the path of the offending field.
* Responses (``TrainingJob``, ``SearchResponse``, ``ErrorBody``) are tolerant: every field is optional,
  numbers sent where text is documented are accepted as text, and fields this module does not know are kept,
  because the service adds fields over time and differs between clouds.

``problems()`` turns a ``pydantic.ValidationError`` into ``(dotted path, plain message)`` pairs and
``to_wire()`` turns a model into the JSON-ready body. Only pydantic is imported at module level: the provider
imports this module on every Pulumi run.
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Final, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

# The phase vocabulary lives in phases.py; re-exported here for the models' users.
from .phases import (
    TERMINABLE_PHASES,
    TERMINAL_PHASES,
    TERMINAL_SECONDARY_PHASES,
    Phase,
    SecondaryPhase,
    is_failure,
    is_terminable,
    is_terminal,
)

__all__ = [
    "REQUIRE_NAME",
    "TERMINABLE_PHASES",
    "TERMINAL_PHASES",
    "TERMINAL_SECONDARY_PHASES",
    "AlgoConfig",
    "AlgoConfigParam",
    "Algorithm",
    "AlgorithmResponse",
    "AutoSearch",
    "AutoStop",
    "BillingInfo",
    "Constraint",
    "CpuInfo",
    "CreateTrainingJobRequest",
    "Dataset",
    "DiskInfo",
    "Endpoints",
    "Engine",
    "EngineResponse",
    "ErrorBody",
    "FlavorDetail",
    "FlavorInfo",
    "GpuInfo",
    "I18nDescription",
    "Input",
    "InputRemote",
    "InputResponse",
    "JobActionRequest",
    "JobConfig",
    "JobMetadata",
    "JobStatus",
    "LogExportPath",
    "LogExportPathResponse",
    "MemoryInfo",
    "MetadataResponse",
    "Nfs",
    "NpuInfo",
    "ObsLocation",
    "Output",
    "OutputRemote",
    "OutputResponse",
    "Parameter",
    "ParameterResponse",
    "Phase",
    "Policies",
    "RemoteConstraint",
    "RequiredAffinity",
    "Resource",
    "ResourceResponse",
    "RewardAttr",
    "RunningRecord",
    "SchedulePolicy",
    "SearchFilter",
    "SearchParam",
    "SearchRequest",
    "SearchResponse",
    "SecondaryPhase",
    "Spec",
    "SpecResponse",
    "Summary",
    "Task",
    "TaskAlgorithm",
    "TaskEngine",
    "TaskInput",
    "TaskInputRemote",
    "TaskOutput",
    "TaskResource",
    "TaskStatus",
    "TrainingJob",
    "Volume",
    "environments_map",
    "is_failure",
    "is_terminable",
    "is_terminal",
    "problems",
    "require_name",
    "to_wire",
    "validate_create_request",
]


# ----------------------------------------------------------------------------------------------------
# Shared pieces

#: Validation-context key: when true, ``metadata.name`` must be present (the request actually sent).
REQUIRE_NAME: Final = "require_name"

_NAME_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
_RULE: Final = "modelarts_rule"


def _rule(message: str, at: str | None = None) -> PydanticCustomError:
    """A rule violation; ``at`` names the field below the validated model that the message is about."""
    context: dict[str, Any] = {"at": at} if at else {}
    return PydanticCustomError(_RULE, message, context)


def _given(value: object) -> bool:
    # Blank strings count as "not given": the API pages say "leave blank" for fields that must not be used.
    return value is not None and value != ""


class RequestModel(BaseModel):
    """Base for everything the user writes: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)


class ResponseModel(BaseModel):
    """Base for what the service returns: unknown keys kept, numbers accepted where text is documented."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True, defer_build=True)


def _none_as_empty_list(value: object) -> object:
    return [] if value is None else value


def _none_as_empty_dict(value: object) -> object:
    return {} if value is None else value


def _empty_mapping_as_none(value: object) -> object:
    # The service answers an unset log path as {} instead of "" or null.
    if isinstance(value, Mapping) and not value:
        return None
    return value


# ----------------------------------------------------------------------------------------------------
# Create request (POST /v2/{project_id}/training-jobs)


class JobMetadata(RequestModel):
    """``metadata`` of the create request.

    ``name`` is optional here because the provider can choose a name; the request actually sent must have one:
    validate with ``context={REQUIRE_NAME: True}`` (``validate_create_request``) or call ``require_name``.
    ``id``, ``create_time`` and ``user_name`` are set by the service; they are accepted because the request
    table lists them.
    """

    id: str | None = None
    name: str | None = None
    workspace_id: str | None = None
    description: str | None = Field(default=None, max_length=256)
    create_time: int | None = None
    user_name: str | None = None
    annotations: dict[str, str] | None = None

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str | None) -> str | None:
        if value is not None and not _NAME_RE.fullmatch(value):
            raise _rule(
                "must be 1 to 64 characters, using only letters, digits, '_' and '-'"
                if value
                else "must not be empty"
            )
        return value

    @model_validator(mode="after")
    def _check_required_name(self, info: ValidationInfo) -> JobMetadata:
        if isinstance(info.context, Mapping) and info.context.get(REQUIRE_NAME) and self.name is None:
            raise _rule("a job name is required", at="name")
        return self


class Constraint(RequestModel):
    """``parameters[].constraint``."""

    type: str | None = None
    editable: bool | None = None
    required: bool | None = None
    sensitive: bool | None = None
    valid_type: str | None = None
    valid_range: list[str] | None = None


class I18nDescription(RequestModel):
    """``parameters[].i18n_description``."""

    language: str | None = None
    description: str | None = None


class Parameter(RequestModel):
    """A running parameter (hyperparameter) passed to the training code. ``name`` is required: a nameless
    parameter cannot reach the job."""

    name: str = Field(min_length=1)
    value: str | None = None
    description: str | None = None
    constraint: Constraint | None = None
    i18n_description: I18nDescription | None = None


class RewardAttr(RequestModel):
    """``policies.auto_search.reward_attrs[]``: a metric to optimise (mode ``max`` or ``min``)."""

    name: str | None = None
    mode: str | None = None
    regex: str | None = None


class SearchParam(RequestModel):
    """``policies.auto_search.search_params[]``: a hyperparameter to search."""

    name: str | None = None
    param_type: str | None = None
    lower_bound: str | None = None
    upper_bound: str | None = None
    discrete_points_num: str | None = None
    discrete_values: list[str] | None = None


class AlgoConfigParam(RequestModel):
    """``policies.auto_search.algo_configs[].params[]`` (AutoSearchAlgoConfigParameter)."""

    key: str | None = None
    value: str | None = None
    type: str | None = None


class AlgoConfig(RequestModel):
    """``policies.auto_search.algo_configs[]``: a search algorithm and its parameters."""

    name: str | None = None
    params: list[AlgoConfigParam] | None = None


class AutoSearch(RequestModel):
    """``policies.auto_search``: hyperparameter search configuration."""

    skip_search_params: str | None = None
    reward_attrs: list[RewardAttr] | None = None
    search_params: list[SearchParam] | None = None
    algo_configs: list[AlgoConfig] | None = None


class Policies(RequestModel):
    """``algorithm.policies``."""

    auto_search: AutoSearch | None = None


class Dataset(RequestModel):
    """A dataset version used as input; the service fills in ``obs_url``."""

    id: str = Field(min_length=1)
    version_id: str = Field(min_length=1)
    obs_url: str | None = None


class ObsLocation(RequestModel):
    """An OBS path (``obs: {obs_url}``)."""

    obs_url: str = Field(min_length=1)


class InputRemote(RequestModel):
    """Where an input channel's data comes from: exactly one of ``dataset`` or ``obs``."""

    dataset: Dataset | None = None
    obs: ObsLocation | None = None

    @model_validator(mode="after")
    def _one_source(self) -> InputRemote:
        if self.dataset is not None and self.obs is not None:
            raise _rule("give either dataset or obs, not both")
        if self.dataset is None and self.obs is None:
            raise _rule("give the data source: dataset or obs")
        return self


class RemoteConstraint(RequestModel):
    """``inputs[].remote_constraint[]``."""

    data_type: str | None = None
    attributes: str | None = None


class Input(RequestModel):
    """A data input channel: a ``name`` and a ``remote`` (dataset or OBS path) are required."""

    name: str = Field(min_length=1)
    description: str | None = None
    local_dir: str | None = None
    remote: InputRemote
    remote_constraint: list[RemoteConstraint] | None = None


class OutputRemote(RequestModel):
    """Where an output channel's data goes: an OBS path."""

    obs: ObsLocation


class Output(RequestModel):
    """A data output channel: ``name`` and ``remote.obs.obs_url`` are required. ``mode`` (default
    ``upload_periodically``) and ``period`` (default ``30s``) tune the upload."""

    name: str = Field(min_length=1)
    description: str | None = None
    local_dir: str | None = None
    remote: OutputRemote
    mode: str | None = None
    period: str | None = None


class Engine(RequestModel):
    """The engine (framework image) a job runs on.

    One of: ``engine_id``; ``engine_name`` with ``engine_version``; or a custom ``image_url``. A preset
    framework may be combined with a custom image (``engine_name`` [+ ``engine_version``] + ``image_url``).
    With ``engine_id`` the other three stay blank.
    """

    engine_id: str | None = None
    engine_name: str | None = None
    engine_version: str | None = None
    image_url: str | None = None

    @model_validator(mode="after")
    def _one_engine(self) -> Engine:
        _check_engine(self.engine_id, self.engine_name, self.engine_version, self.image_url)
        return self

    @property
    def is_custom_image(self) -> bool:
        """True when the job runs the user's own image (``image_url``)."""
        return _given(self.image_url)


def _check_engine(
    engine_id: str | None, engine_name: str | None, engine_version: str | None, image_url: str | None
) -> None:
    if _given(engine_id):
        for field, value in (
            ("engine_name", engine_name),
            ("engine_version", engine_version),
            ("image_url", image_url),
        ):
            if _given(value):
                raise _rule(f"leave {field} blank when engine_id is set", at=field)
        return
    if _given(engine_version) and not _given(engine_name):
        raise _rule("engine_version needs engine_name", at="engine_name")
    if _given(engine_name) and not (_given(engine_version) or _given(image_url)):
        raise _rule("engine_name needs engine_version (or a custom image_url)", at="engine_version")
    if not (_given(engine_name) or _given(image_url)):
        raise _rule("give engine_id, engine_name with engine_version, or image_url")


class Algorithm(RequestModel):
    """``algorithm`` of the create request. Exactly one algorithm source:

    1. ``id`` -- an algorithm from algorithm management;
    2. ``subscription_id`` together with ``item_version_id`` -- a subscribed algorithm;
    3. your own code or image, which needs an ``engine`` and then
       ``code_dir`` together with ``boot_file`` (the boot file runs on the engine), and/or
       ``command`` (the container start command; only with a custom image, ``engine.image_url``).

    With sources 1 and 2, ``code_dir``, ``boot_file``, ``engine`` and ``command`` stay blank, as the API pages
    say. ``environments`` is a map of variable name to text value.
    """

    id: str | None = None
    name: str | None = None
    subscription_id: str | None = None
    item_version_id: str | None = None
    code_dir: str | None = None
    boot_file: str | None = None
    autosearch_config_path: str | None = None
    autosearch_framework_path: str | None = None
    command: str | None = None
    parameters: list[Parameter] | None = None
    policies: Policies | None = None
    inputs: list[Input] | None = None
    outputs: list[Output] | None = None
    engine: Engine | None = None
    local_code_dir: str | None = None
    working_dir: str | None = None
    environments: dict[str, str] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Algorithm:
        _check_pair(self.subscription_id, "subscription_id", self.item_version_id, "item_version_id")
        _check_pair(self.code_dir, "code_dir", self.boot_file, "boot_file")
        by_id = _given(self.id)
        by_subscription = _given(self.subscription_id)
        if by_id and by_subscription:
            raise _rule(
                "use either id or subscription_id with item_version_id, not both", at="subscription_id"
            )
        if by_id or by_subscription:
            source = "id" if by_id else "subscription_id"
            for field, value in (
                ("code_dir", self.code_dir),
                ("boot_file", self.boot_file),
                ("command", self.command),
                ("engine", self.engine),
            ):
                if _given(value):
                    raise _rule(f"leave {field} blank when the algorithm is given by {source}", at=field)
            return self
        has_code = _given(self.code_dir)
        has_command = _given(self.command)
        if self.engine is None:
            if has_code or has_command:
                raise _rule("an engine is required to run your own code or command", at="engine")
            raise _rule(
                "choose an algorithm: id, subscription_id with item_version_id, "
                "or an engine with code_dir and boot_file (or a command)"
            )
        if has_command and not self.engine.is_custom_image:
            raise _rule("command is only used with a custom image (engine.image_url)", at="command")
        if not (has_code or has_command):
            if self.engine.is_custom_image:
                raise _rule("a custom image needs a command (or code_dir with boot_file)", at="command")
            raise _rule("a preset engine needs code_dir and boot_file", at="code_dir")
        return self


def _check_pair(first: object, first_name: str, second: object, second_name: str) -> None:
    if _given(first) and not _given(second):
        raise _rule(f"{second_name} is required together with {first_name}", at=second_name)
    if _given(second) and not _given(first):
        raise _rule(f"{first_name} is required together with {second_name}", at=first_name)


class JobConfig(RequestModel):
    """``tasks[].algorithm.job_config``."""

    parameters: list[Parameter] | None = None
    inputs: list[Input] | None = None
    outputs: list[Output] | None = None
    engine: Engine | None = None


class TaskEngine(RequestModel):
    """Engine of a heterogeneous-job task."""

    engine_id: str | None = None
    engine_name: str | None = None
    engine_version: str | None = None
    image_url: str | None = None


class TaskInputRemote(RequestModel):
    """A task input's data (heterogeneous jobs read only from OBS)."""

    obs: ObsLocation | None = None


class TaskInput(RequestModel):
    """``tasks[].algorithm.inputs[]``."""

    name: str = Field(min_length=1)
    description: str | None = None
    local_dir: str | None = None
    remote: TaskInputRemote


class TaskOutput(RequestModel):
    """``tasks[].algorithm.outputs[]``."""

    name: str = Field(min_length=1)
    description: str | None = None
    local_dir: str | None = None
    remote: OutputRemote


class TaskAlgorithm(RequestModel):
    """``tasks[].algorithm``; ``code_dir`` and ``boot_file`` come together."""

    job_config: JobConfig | None = None
    code_dir: str | None = None
    boot_file: str | None = None
    engine: TaskEngine | None = None
    inputs: list[TaskInput] | None = None
    outputs: list[TaskOutput] | None = None
    local_code_dir: str | None = None
    working_dir: str | None = None

    @model_validator(mode="after")
    def _pairs(self) -> TaskAlgorithm:
        _check_pair(self.code_dir, "code_dir", self.boot_file, "boot_file")
        return self


class TaskResource(RequestModel):
    """``tasks[].task_resource``."""

    flavor_id: str | None = None
    node_count: int = Field(ge=1)


class Task(RequestModel):
    """A task of a heterogeneous job (the API says this is not implemented yet; kept for completeness)."""

    role: str | None = None
    algorithm: TaskAlgorithm | None = None
    task_resource: TaskResource | None = None


class Resource(RequestModel):
    """``spec.resource``: a public flavor (``flavor_id``) or a dedicated pool (``pool_id`` [+ ``flavor_id``]).
    ``node_count`` defaults to 1 on the service side and must be at least 1."""

    flavor_id: str | None = None
    node_count: int | None = Field(default=None, ge=1)
    pool_id: str | None = None

    @model_validator(mode="after")
    def _flavor_or_pool(self) -> Resource:
        if not (_given(self.flavor_id) or _given(self.pool_id)):
            raise _rule("give flavor_id, or pool_id for a dedicated pool", at="flavor_id")
        return self


class Nfs(RequestModel):
    """An NFS mount. Both paths are required: a mount needs a server export and a place in the container."""

    nfs_server_path: str = Field(min_length=1)
    local_path: str = Field(min_length=1)
    read_only: bool | None = None


class Volume(RequestModel):
    """``spec.volumes[]``: a volume attached to the job (NFS)."""

    nfs: Nfs


class LogExportPath(RequestModel):
    """``spec.log_export_path``: where logs are kept (an OBS URL, or a host path)."""

    obs_url: str | None = None
    host_path: str | None = None


class AutoStop(RequestModel):
    """``spec.auto_stop``: stop the job after ``duration`` units of ``time_unit`` (e.g. ``HOURS``)."""

    time_unit: str | None = None
    duration: int | None = Field(default=None, ge=1)


class RequiredAffinity(RequestModel):
    """``spec.schedule_policy.required_affinity`` (``cabinet`` or ``hyperinstance``)."""

    affinity_type: str | None = None
    affinity_group_size: int | None = Field(default=None, ge=1)


class SchedulePolicy(RequestModel):
    """``spec.schedule_policy``."""

    required_affinity: RequiredAffinity | None = None
    priority: int | None = None
    preemptible: bool | None = None


class Spec(RequestModel):
    """``spec`` of the create request."""

    resource: Resource | None = None
    volumes: list[Volume] | None = None
    log_export_path: LogExportPath | None = None
    auto_stop: AutoStop | None = None
    schedule_policy: SchedulePolicy | None = None


JobKind = Literal["job", "hetero_job", "autosearch_job", "mrs_job", "edge_job"]


class CreateTrainingJobRequest(RequestModel):
    """Body of ``POST /v2/{project_id}/training-jobs``.

    ``kind`` defaults to ``job`` and is always sent. A job needs an ``algorithm`` (or, for heterogeneous jobs,
    ``tasks``); ``spec`` and ``tasks`` are not used together.
    """

    kind: JobKind = "job"
    metadata: JobMetadata
    algorithm: Algorithm | None = None
    tasks: list[Task] | None = None
    spec: Spec | None = None

    def model_post_init(self, context: Any, /) -> None:
        # kind is a default the wire needs; marking it "set" keeps it in to_wire's exclude_unset dump.
        self.model_fields_set.add("kind")

    @model_validator(mode="after")
    def _shape(self) -> CreateTrainingJobRequest:
        if self.algorithm is None and not self.tasks:
            raise _rule("an algorithm is required", at="algorithm")
        if self.tasks and self.spec is not None:
            raise _rule("leave tasks blank when spec is given", at="tasks")
        return self


def validate_create_request(data: object, *, require_name: bool = True) -> CreateTrainingJobRequest:
    """Parse a create body; by default ``metadata.name`` must be present (the request sent to the service)."""
    return CreateTrainingJobRequest.model_validate(data, context={REQUIRE_NAME: require_name})


def require_name(request: CreateTrainingJobRequest) -> CreateTrainingJobRequest:
    """Check a request is complete enough to send (it has ``metadata.name``); raises ``ValidationError``."""
    return validate_create_request(to_wire(request, keep_null=True))


class JobActionRequest(RequestModel):
    """Body of ``POST /v2/{project_id}/training-jobs/{id}/actions``; ``terminate`` is the only action."""

    action_type: Literal["terminate"] = "terminate"

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("action_type")


# ----------------------------------------------------------------------------------------------------
# Search request (POST /v2/{project_id}/training-job-searches)


class SearchFilter(RequestModel):
    """A search condition: ``key`` (e.g. ``name``, ``phase``, ``create_time``), an ``operator`` and values."""

    key: str = Field(min_length=1)
    operator: Literal["between", "like", "in", "not"]
    value: list[str]


class SearchRequest(RequestModel):
    """Body of a job search. ``offset`` is a page index (0 is the first page), ``limit`` 1-50 jobs per page;
    the service sorts by ``create_time`` in ``desc`` order unless told otherwise."""

    offset: int | None = Field(default=None, ge=0)
    limit: int | None = Field(default=None, ge=1, le=50)
    sort_by: str | None = None
    order: Literal["asc", "desc"] | None = None
    group_by: str | None = None
    filters: list[SearchFilter] | None = None


# ----------------------------------------------------------------------------------------------------
# Responses


class MetadataResponse(ResponseModel):
    """``metadata`` as returned; ``create_time`` is in milliseconds since the epoch."""

    id: str | None = None
    name: str | None = None
    description: str | None = None
    create_time: int | None = None
    workspace_id: str | None = None
    user_name: str | None = None
    ai_project: str | None = None
    annotations: Annotated[dict[str, str], BeforeValidator(_none_as_empty_dict)] = Field(default_factory=dict)


class TaskStatus(ResponseModel):
    """``status.task_statuses[]``."""

    task: str | None = None
    exit_code: int | None = None
    message: str | None = None


class RunningRecord(ResponseModel):
    """``status.running_records[]``: one run and how it ended (times in seconds)."""

    start_at: int | None = None
    end_at: int | None = None
    start_type: str | None = None
    end_reason: str | None = None
    end_related_task: str | None = None
    end_recover: str | None = None
    end_recover_before_downgrade: str | None = None


class JobStatus(ResponseModel):
    """``status``: ``phase`` is the stable level-1 phase (see ``Phase``), ``duration`` is in milliseconds."""

    phase: str | None = None
    secondary_phase: str | None = None
    duration: int | None = None
    node_count_metrics: Annotated[list[list[int]], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )
    tasks: Annotated[list[str], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)
    start_time: int | None = None
    task_statuses: Annotated[list[TaskStatus], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )
    running_records: Annotated[list[RunningRecord], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )


class _ConstraintResponse(ResponseModel):
    type: str | None = None
    editable: bool | None = None
    required: bool | None = None
    sensitive: bool | None = None
    valid_type: str | None = None
    valid_range: Annotated[list[str], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)


class _I18nResponse(ResponseModel):
    language: str | None = None
    description: str | None = None


class ParameterResponse(ResponseModel):
    """A parameter as returned, with its ``constraint`` and descriptions."""

    name: str | None = None
    value: str | None = None
    description: str | None = None
    constraint: _ConstraintResponse | None = None
    i18n_description: _I18nResponse | None = None


class _ObsResponse(ResponseModel):
    obs_url: Annotated[str | None, BeforeValidator(_empty_mapping_as_none)] = None


class _DatasetResponse(ResponseModel):
    id: str | None = None
    version_id: str | None = None
    obs_url: str | None = None


class _RemoteResponse(ResponseModel):
    dataset: _DatasetResponse | None = None
    obs: _ObsResponse | None = None


class InputResponse(ResponseModel):
    """An input channel as returned (``local_dir`` is filled in by the service)."""

    name: str | None = None
    description: str | None = None
    local_dir: str | None = None
    remote: _RemoteResponse | None = None
    remote_constraint: Annotated[list[dict[str, Any]], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )


class OutputResponse(ResponseModel):
    """An output channel as returned."""

    name: str | None = None
    description: str | None = None
    local_dir: str | None = None
    remote: _RemoteResponse | None = None
    mode: str | None = None
    period: str | None = None


class EngineResponse(ResponseModel):
    """An engine as returned."""

    engine_id: str | None = None
    engine_name: str | None = None
    engine_version: str | None = None
    image_url: str | None = None
    install_sys_packages: bool | None = None
    v1_compatible: bool | None = None
    run_user: str | None = None


class _PolicyResponse(ResponseModel):
    auto_search: dict[str, Any] | None = None


class Summary(ResponseModel):
    """``algorithm.summary``: visualisation logs (``log_type``, ``log_dir.pfs.pfs_path``, ...)."""

    log_type: str | None = None
    log_dir: dict[str, Any] | None = None
    data_sources: Annotated[list[dict[str, Any]], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )


Environments = list[dict[str, str]] | dict[str, str] | None


def environments_map(environments: Environments) -> dict[str, str]:
    """The environment as one map, whether the service sent a map or an array of maps (later entries win)."""
    if environments is None:
        return {}
    if isinstance(environments, Mapping):
        return dict(environments)
    merged: dict[str, str] = {}
    for entry in environments:
        merged.update(entry)
    return merged


class AlgorithmResponse(ResponseModel):
    """``algorithm`` as returned. ``environments`` is documented as an array of maps but is also seen as a
    map; both are accepted (``env`` gives a single map)."""

    id: str | None = None
    name: str | None = None
    subscription_id: str | None = None
    item_version_id: str | None = None
    code_dir: str | None = None
    boot_file: str | None = None
    autosearch_config_path: str | None = None
    autosearch_framework_path: str | None = None
    command: str | None = None
    parameters: Annotated[list[ParameterResponse], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )
    policies: _PolicyResponse | None = None
    inputs: Annotated[list[InputResponse], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)
    outputs: Annotated[list[OutputResponse], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )
    engine: EngineResponse | None = None
    local_code_dir: str | None = None
    working_dir: str | None = None
    environments: Environments = None
    summary: Summary | None = None

    @property
    def env(self) -> dict[str, str]:
        """``environments`` as a single map."""
        return environments_map(self.environments)


class BillingInfo(ResponseModel):
    """``flavor_detail.billing``."""

    code: str | None = None
    unit_num: int | None = None


class CpuInfo(ResponseModel):
    arch: str | None = None
    core_num: int | None = None


class GpuInfo(ResponseModel):
    unit_num: int | None = None
    product_name: str | None = None
    memory: str | None = None


class NpuInfo(ResponseModel):
    unit_num: str | None = None
    product_name: str | None = None
    memory: str | None = None


class MemoryInfo(ResponseModel):
    size: int | None = None
    unit: str | None = None


class DiskInfo(ResponseModel):
    # Documented as Integer on one page and String on others; text holds both.
    size: str | None = None
    unit: str | None = None


class FlavorInfo(ResponseModel):
    """``flavor_detail.flavor_info``: the machine behind a flavor."""

    max_num: int | None = None
    cpu: CpuInfo | None = None
    gpu: GpuInfo | None = None
    npu: NpuInfo | None = None
    memory: MemoryInfo | None = None
    disk: DiskInfo | None = None


class FlavorDetail(ResponseModel):
    """``spec.resource.flavor_detail`` (public pools only); also the shape of ``tasks[].task_resource``."""

    flavor_id: str | None = None
    flavor_name: str | None = None
    max_num: int | None = None
    flavor_type: str | None = None
    billing: BillingInfo | None = None
    flavor_info: FlavorInfo | None = None
    attributes: Annotated[dict[str, str], BeforeValidator(_none_as_empty_dict)] = Field(default_factory=dict)


class ResourceResponse(ResponseModel):
    """``spec.resource`` as returned: adds ``policy``, ``flavor_name`` and ``flavor_detail``."""

    policy: str | None = None
    flavor_id: str | None = None
    flavor_name: str | None = None
    node_count: int | None = None
    pool_id: str | None = None
    flavor_detail: FlavorDetail | None = None


class _NfsResponse(ResponseModel):
    nfs_server_path: str | None = None
    local_path: str | None = None
    read_only: bool | None = None


class _VolumeResponse(ResponseModel):
    nfs: _NfsResponse | None = None


class LogExportPathResponse(ResponseModel):
    """``spec.log_export_path``; an unset path may come back as ``{}``, which reads as ``None``."""

    obs_url: Annotated[str | None, BeforeValidator(_empty_mapping_as_none)] = None
    host_path: Annotated[str | None, BeforeValidator(_empty_mapping_as_none)] = None


class _AffinityResponse(ResponseModel):
    affinity_type: str | None = None
    affinity_group_size: int | None = None


class _SchedulePolicyResponse(ResponseModel):
    required_affinity: _AffinityResponse | None = None
    priority: int | None = None
    preemptible: bool | None = None


class _AutoStopResponse(ResponseModel):
    time_unit: str | None = None
    duration: int | None = None


class SpecResponse(ResponseModel):
    """``spec`` as returned."""

    resource: ResourceResponse | None = None
    volumes: Annotated[list[_VolumeResponse], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )
    log_export_path: LogExportPathResponse | None = None
    schedule_policy: _SchedulePolicyResponse | None = None
    auto_stop: _AutoStopResponse | None = None


class _TaskAlgorithmResponse(ResponseModel):
    code_dir: str | None = None
    boot_file: str | None = None
    # Documented as a single object in one table and as arrays in others.
    inputs: Any = None
    outputs: Any = None
    engine: EngineResponse | None = None
    local_code_dir: str | None = None
    working_dir: str | None = None


class _TaskResponse(ResponseModel):
    role: str | None = None
    algorithm: _TaskAlgorithmResponse | None = None
    task_resource: FlavorDetail | None = None


class _TaskUrl(ResponseModel):
    task: str | None = None
    url: str | None = None


class _SshEndpoint(ResponseModel):
    key_pair_names: Annotated[list[str], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)
    task_urls: Annotated[list[_TaskUrl], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)


class _TokenEndpoint(ResponseModel):
    url: str | None = None
    # Access tokens for the job's web tools: kept out of reprs so they never end up in logs.
    token: str | None = Field(default=None, repr=False)


class Endpoints(ResponseModel):
    """``endpoints``: remote access to the job (SSH, JupyterLab, TensorBoard, MindStudio Insight)."""

    ssh: _SshEndpoint | None = None
    jupyter_lab: _TokenEndpoint | None = None
    tensorboard: _TokenEndpoint | None = None
    mindstudio_insight: _TokenEndpoint | None = None


class TrainingJob(ResponseModel):
    """A training job as the service returns it (create, get, terminate and search answers)."""

    kind: str | None = None
    metadata: MetadataResponse = Field(default_factory=MetadataResponse)
    status: JobStatus = Field(default_factory=JobStatus)
    algorithm: AlgorithmResponse | None = None
    tasks: Annotated[list[_TaskResponse], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)
    spec: SpecResponse | None = None
    endpoints: Endpoints | None = None

    @model_validator(mode="before")
    @classmethod
    def _null_sections(cls, data: Any) -> Any:
        # A null metadata/status section reads like an absent one.
        if isinstance(data, Mapping) and any(data.get(k, 0) is None for k in ("metadata", "status")):
            return {k: v for k, v in data.items() if not (k in ("metadata", "status") and v is None)}
        return data

    @property
    def job_id(self) -> str | None:
        return self.metadata.id

    @property
    def name(self) -> str | None:
        return self.metadata.name

    @property
    def phase(self) -> str | None:
        return self.status.phase

    @property
    def secondary_phase(self) -> str | None:
        return self.status.secondary_phase

    @property
    def is_terminal(self) -> bool:
        return is_terminal(self.status.phase, self.status.secondary_phase)


class SearchResponse(ResponseModel):
    """Answer to a job search: ``total`` jobs overall, ``count`` matching, and one page of ``items``."""

    total: int | None = None
    count: int | None = None
    limit: int | None = None
    offset: int | None = None
    sort_by: str | None = None
    order: str | None = None
    group_by: str | None = None
    workspace_id: str | None = None
    ai_project: str | None = None
    items: Annotated[list[TrainingJob], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)


class ErrorBody(ResponseModel):
    """An error answer: ``{"error_code", "error_msg", "error_solution"}``."""

    error_code: str | None = None
    error_msg: str | None = None
    error_solution: str | None = None


# ----------------------------------------------------------------------------------------------------
# to_wire


def to_wire(model: BaseModel, *, keep_null: bool = False) -> dict[str, Any]:
    """The JSON-ready body: field names as on the wire, only what was set (plus defaults such as ``kind``).

    Fields explicitly set to ``None`` are dropped unless ``keep_null`` is true (then a parsed body dumps back
    exactly as it came in).
    """
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=not keep_null)


# ----------------------------------------------------------------------------------------------------
# problems(): ValidationError -> (dotted path, plain message)

TOP_LEVEL: Final = "(top level)"

_BOUND_KEYS: Final = {
    "greater_than_equal": "ge",
    "greater_than": "gt",
    "less_than_equal": "le",
    "less_than": "lt",
}
_KIND_WORDS: Final[dict[str, str]] = {
    "dict_type": "must be an object (a map of fields)",
    "model_type": "must be an object (a map of fields)",
    "model_attributes_type": "must be an object (a map of fields)",
    "dataclass_type": "must be an object (a map of fields)",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "set_type": "must be a list",
    "string_type": "must be text",
    "string_sub_type": "must be text",
    "string_unicode": "must be valid text",
    "bytes_type": "must be text",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "int_parsing_size": "is too large a number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "none_required": "must be empty (null)",
    "missing": "is required",
    "extra_forbidden": "unknown field",
    "frozen_field": "cannot be changed",
    "frozen_instance": "cannot be changed",
    "recursion_loop": "refers to itself",
    "is_instance_of": "has the wrong kind of value",
    "callable_type": "has the wrong kind of value",
    "union_tag_invalid": "has the wrong kind of value",
    "union_tag_not_found": "has the wrong kind of value",
}


def _plural(count: object, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _message(error: Mapping[str, Any]) -> str:
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    if kind == _RULE:
        return str(error.get("msg", "is not valid"))
    if kind in _KIND_WORDS:
        return _KIND_WORDS[kind]
    if kind == "string_too_short":
        minimum = ctx.get("min_length", 1)
        return "must not be empty" if minimum == 1 else f"must be at least {_plural(minimum, 'character')}"
    if kind == "string_too_long":
        return f"must be at most {_plural(ctx.get('max_length'), 'character')}"
    if kind == "too_short":
        minimum = ctx.get("min_length", 1)
        return "must not be empty" if minimum == 1 else f"must have at least {_plural(minimum, 'item')}"
    if kind == "too_long":
        return f"must have at most {_plural(ctx.get('max_length'), 'item')}"
    if kind == "string_pattern_mismatch":
        return "has characters that are not allowed"
    for bound, words in (
        ("greater_than_equal", "at least"),
        ("greater_than", "more than"),
        ("less_than_equal", "at most"),
        ("less_than", "less than"),
    ):
        if kind == bound:
            return f"must be {words} {ctx.get(_BOUND_KEYS[bound])}"
    if kind in ("literal_error", "enum"):
        return f"must be {ctx.get('expected', 'one of the allowed values')}"
    if kind in ("value_error", "assertion_error"):
        text = str(error.get("msg", ""))
        for prefix in ("Value error, ", "Assertion failed, "):
            text = text.removeprefix(prefix)
        return text or "is not valid"
    return "is not valid"


def _is_type_tag(part: object) -> bool:
    # pydantic adds union-member tags such as "list[dict[str,str]]" or "function-after[...]" to locations.
    return isinstance(part, str) and part.endswith("]") and "[" in part and not part.startswith("[")


_PLAIN_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _dotted(parts: Iterable[object]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _unwrap(annotation: Any) -> Any:
    """Strip Optional/Annotated/Union-with-None from a field annotation."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
            continue
        args = [a for a in get_args(annotation) if a is not type(None)]
        if origin in (Union, types.UnionType) and len(args) == 1:
            annotation = args[0]
            continue
        return annotation


def _model_at(root: type[BaseModel] | None, parts: Iterable[object]) -> type[BaseModel] | None:
    """The model class found by following a location from ``root`` (None when it leads elsewhere)."""
    current: Any = root
    for part in parts:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return None
            current = field.annotation
            continue
        origin = get_origin(current)
        args = get_args(current)
        if origin is list and args:
            current = args[0]
        elif origin is dict and len(args) == 2:
            current = args[1]
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _suggestion(unknown: object, known: Iterable[str]) -> str | None:
    import difflib  # only needed when a user mistypes a field name

    if not isinstance(unknown, str):
        return None
    names = list(known)

    def squash(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "")

    for name in names:
        if squash(name) == squash(unknown):
            return name
    close = difflib.get_close_matches(unknown.lower(), names, n=1, cutoff=0.7)
    return close[0] if close else None


_MODELS_BY_TITLE: dict[str, type[BaseModel]] = {}


def _root_model(title: str) -> type[BaseModel] | None:
    if not _MODELS_BY_TITLE:
        for value in list(globals().values()):
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == __name__:
                _MODELS_BY_TITLE[value.__name__] = value
    return _MODELS_BY_TITLE.get(title)


def problems(error: ValidationError) -> list[tuple[str, str]]:
    """Each problem in ``error`` as ``(dotted path, message)``.

    For example ``("spec.resource.node_count", "must be at least 1")``. Paths use ``[i]`` for list positions;
    messages are plain words; repeated pairs are merged.
    """
    root = _root_model(error.title)
    found: list[tuple[str, str]] = []
    for item in error.errors(include_url=False):
        loc = [part for part in item.get("loc", ()) if not _is_type_tag(part)]
        kind = item.get("type")
        ctx = item.get("ctx") or {}
        if kind == _RULE and ctx.get("at"):
            loc.extend(str(ctx["at"]).split("."))
        message = _message(item)
        if loc and loc[-1] == "[key]":
            loc.pop()
            message = f"key {message}"
        if kind == "extra_forbidden" and loc:
            parent = _model_at(root, loc[:-1])
            if parent is not None:
                hint = _suggestion(loc[-1], parent.model_fields)
                if hint is not None and hint != loc[-1]:
                    message = f"unknown field; did you mean '{hint}'?"
        pair = (_dotted(loc) or TOP_LEVEL, message)
        if pair not in found:
            found.append(pair)
    return found

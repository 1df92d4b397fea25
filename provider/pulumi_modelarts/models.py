"""Wire models for the ModelArts training-job API (``/v2/{project_id}/training-jobs``).

Field names and nesting follow the API pages exactly (see the seed documents), and the official SDK's models
where the real service goes beyond them (tests/test_models_sdk_shape.py holds the SDK to that). Two families:

* Requests (``CreateTrainingJobRequest``, ``SearchRequest`` and everything nested in them) are strict: unknown
  keys, wrong types and impossible values are refused before anything is sent, so a user learns about a
  mistake at preview time with the path of the offending field. Rules between fields are declared once in
  ``INPUT_RULES`` with their evidence: those the service enforces refuse the request; the API pages' advice
  the service does not enforce is a warning (``advice()``), never a refusal (docs/input-rules.md).
* Responses (``TrainingJob``, ``SearchResponse``, ``ErrorBody``) are tolerant: every field is optional,
  numbers sent where text is documented are accepted as text, and fields this module does not know are kept,
  because the service adds fields over time and differs between clouds.

The request models, with ``ProviderSettings`` and ``ResourceOutputs``, are also the one source of the
``TrainingJob`` resource's shape: ``scripts/generate`` writes the typed inputs, the property lists, the typed
part of the resource and the inputs tables of docs/training-job.md from their fields and descriptions.

``problems()`` turns a ``pydantic.ValidationError`` into ``(dotted path, plain message)`` pairs and
``to_wire()`` turns a model into the JSON-ready body. Only pydantic (with its annotated_types) is imported at
module level: the provider imports this module on every Pulumi run.
"""

from __future__ import annotations

import gc
import re
import threading
import types
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, ClassVar, Final, Literal, NamedTuple, Union, get_args, get_origin

import annotated_types
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from . import lifecycle

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
    parse_phase,
)

# Building ~150 model classes allocates enough to set off several full collections of the cyclic garbage
# collector (about a third of this module's import time, measured); nothing built here is garbage, so the
# collector waits until the last class is defined (the end of this module).
_COLLECTING = gc.isenabled()
gc.disable()

__all__ = [
    "INPUT_RULES",
    "REQUIRE_NAME",
    "TAGS_MAX",
    "TERMINABLE_PHASES",
    "TERMINAL_PHASES",
    "TERMINAL_SECONDARY_PHASES",
    "AlgoConfig",
    "AlgoConfigParam",
    "Algorithm",
    "AlgorithmResponse",
    "AlgorithmSummary",
    "AssetModel",
    "AutoSearch",
    "AutoStop",
    "BillingInfo",
    "CheckpointConfig",
    "Constraint",
    "CpuInfo",
    "CreateTrainingJobRequest",
    "CustomMetric",
    "CustomizedFlavor",
    "Dataset",
    "DiskInfo",
    "Endpoints",
    "Engine",
    "EngineResponse",
    "ErrorBody",
    "FlavorDetail",
    "FlavorInfo",
    "FtEnv",
    "FtJobConfig",
    "FtJobConfigResponse",
    "FtTaskEnv",
    "GpuInfo",
    "I18nDescription",
    "Input",
    "InputRemote",
    "InputResponse",
    "InputRule",
    "JobActionRequest",
    "JobConfig",
    "JobEndpoints",
    "JobEvent",
    "JobEvents",
    "JobMetadata",
    "JobStatus",
    "LogExportConfig",
    "LogExportPath",
    "LogExportPathResponse",
    "LogPreview",
    "MemoryInfo",
    "MetadataResponse",
    "MetricsExec",
    "MetricsHttpGet",
    "Nfs",
    "NodeAffinity",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "Notification",
    "NpuInfo",
    "ObsLocation",
    "ObsVolume",
    "Output",
    "OutputModel",
    "OutputModelObs",
    "OutputRemote",
    "OutputResponse",
    "Parameter",
    "ParameterResponse",
    "PfsVolume",
    "Phase",
    "Policies",
    "PreferredAffinity",
    "PreferredSchedulingTerm",
    "ProviderSettings",
    "RecoverRecord",
    "RemoteConstraint",
    "RequestModel",
    "RequiredAffinity",
    "ReservedTime",
    "Resource",
    "ResourceOutputs",
    "ResourceResponse",
    "ResponseModel",
    "Retention",
    "RewardAttr",
    "RunningRecord",
    "SchedulePolicy",
    "SearchFilter",
    "SearchParam",
    "SearchRequest",
    "SearchResponse",
    "SearchTag",
    "SecondaryPhase",
    "Spec",
    "SpecResponse",
    "SshAccess",
    "Summary",
    "SummaryDataSource",
    "SummaryJob",
    "SummaryLogDir",
    "SummaryNfs",
    "SummaryPfs",
    "TagAnswer",
    "TagsAnswer",
    "TagsBody",
    "Task",
    "TaskAlgorithm",
    "TaskEngine",
    "TaskInput",
    "TaskInputRemote",
    "TaskIp",
    "TaskLogExportPath",
    "TaskOutput",
    "TaskResource",
    "TaskStatus",
    "TmsTag",
    "TrainingExperimentReference",
    "TrainingExperimentResponse",
    "TrainingJob",
    "Volume",
    "advice",
    "advice_rules",
    "build_validators",
    "environments_map",
    "is_failure",
    "is_terminable",
    "is_terminal",
    "problems",
    "require_name",
    "tag_problems",
    "tags_body",
    "to_wire",
    "validate_create_request",
    "wire_fields",
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


def _whole_number_not_a_flag(value: object) -> object:
    if isinstance(value, bool):
        raise _rule("must be a whole number, not true or false")
    return value


def _number_not_a_flag(value: object) -> object:
    if isinstance(value, bool):
        raise _rule("must be a number, not true or false")
    return value


# The numbers of requests: every int and float field is declared with one of these (tests/test_models.py
# finds any that is not). pydantic's lax mode reads true as 1, so a flag written where a count is meant would
# go out as 1; it is refused instead. Everything else lax mode takes is kept: 2.0 for a whole number (Pulumi
# hands every number over as a float), 2 for a number, and text holding a number.
WholeNumber = Annotated[int, BeforeValidator(_whole_number_not_a_flag)]
Number = Annotated[float, BeforeValidator(_number_not_a_flag)]


def _given(value: object) -> bool:
    # Blank strings count as "not given": the API pages say "leave blank" for fields that must not be used.
    return value is not None and value != ""


# ----------------------------------------------------------------------------------------------------
# Cross-field rules: each declared once, with how sure we are that the service refuses a request breaking it.
#
# An ``error`` rule refuses the inputs at preview: the evidence says the service refuses such a request (or
# the request names nothing to act on). A ``warning`` rule is advice from the API pages ("leave it blank",
# "must be used together with") that real, accepted requests contradict or nothing shows the service
# enforcing: the inputs pass, the request is sent as written, and the user is told what the pages say. The
# table in docs/input-rules.md is generated from INPUT_RULES (scripts/generate).

Severity = Literal["error", "warning"]

# Where the evidence comes from (the names docs/input-rules.md explains).
_PAGES = "API pages (create a training job)"
_SDK = "official SDK (huaweicloudsdkmodelarts v1 models)"
_TF = "Terraform resource huaweicloud_modelarts_training_job"
_TF_BASIC = "Terraform acceptance test TestAccTrainingJob_basic (run against the service)"
_TF_DEBUG = "Terraform acceptance test TestAccTrainingJob_debug_job (run against the service)"


class InputRule(NamedTuple):
    """One cross-field rule of the create request's inputs."""

    key: str
    where: str  # the object the rule is about, as a path with [] for list items
    rule: str  # the rule in words
    severity: Severity
    evidence: str

    def error(self, message: str, at: str | None = None) -> PydanticCustomError:
        """The validation error for a broken ``error`` rule."""
        assert self.severity == "error", self.key
        return _rule(message, at)

    def warn(self, model: RequestModel, message: str, at: str | tuple[str, ...] | None = None) -> None:
        """Note a broken ``warning`` rule on the model; ``advice()`` collects the notes with their paths.

        ``at`` is a dotted path below the model, or its parts (for a map key, which may hold dots).
        """
        assert self.severity == "warning", self.key
        parts = tuple(at.split(".")) if isinstance(at, str) else at or ()
        note = (parts, message, self.key)
        if note not in model.advice_notes:
            model.advice_notes.append(note)


INPUT_RULES: dict[str, InputRule] = {}


def _declare(key: str, where: str, rule: str, severity: Severity, evidence: str) -> InputRule:
    declared = InputRule(key, where, rule, severity, evidence)
    assert key not in INPUT_RULES, key
    INPUT_RULES[key] = declared
    return declared


EXPERIMENT_REFERENCE = _declare(
    "experiment-reference",
    "metadata.training_experiment_reference",
    "give the `id` of an experiment or the `name` of a new one",
    "error",
    f"{_TF}: `training_experiment_reference.id` is Required; an empty reference names no experiment.",
)
JOB_NAME = _declare(
    "job-name",
    "metadata",
    "`name`: 1 to 64 letters, digits, `_` or `-` (the provider chooses one when it is left out)",
    "error",
    f"{_PAGES}: `name` is mandatory, 1 to 64 digits, letters, `_` and `-`; {_TF}: Required.",
)
DATASET_VERSION = _declare(
    "dataset-version",
    "algorithm.inputs[].remote.dataset",
    "`version_id` is required unless `service_type` is `V3`",
    "error",
    f"{_PAGES}: `version_id` is mandatory; {_TF} sends `service_type` `V3` datasets of the asset service "
    "without a version.",
)
INPUT_SOURCE = _declare(
    "input-source",
    "algorithm.inputs[].remote",
    "give `dataset` or `obs`",
    "error",
    f"{_PAGES}: the input's data source; with neither the channel has no data.",
)
INPUT_SOURCE_BOTH = _declare(
    "input-source-both",
    "algorithm.inputs[].remote",
    "give `dataset` or `obs`, not both",
    "warning",
    f"{_PAGES} offer one or the other; nothing shows the service refusing both, nor which it uses.",
)
ENGINE_ID_ALONE = _declare(
    "engine-id-alone",
    "algorithm.engine",
    "with `engine_id`, leave `engine_name`, `engine_version` and `image_url` blank",
    "warning",
    f'{_PAGES}: "if engine_id is set, leave this parameter blank"; {_SDK} `JobEngine`: "no need to fill '
    f'in" (无需填写); {_TF_BASIC} sends `engine_id` with `engine_name` and `engine_version` and the '
    "service accepts it.",
)
ENGINE_VERSION_NAME = _declare(
    "engine-version-needs-name",
    "algorithm.engine",
    "`engine_version` comes with `engine_name`",
    "warning",
    f"{_PAGES}: a preset engine is `engine_name` + `engine_version`; no refusal of a lone version is known.",
)
ENGINE_NAME_VERSION = _declare(
    "engine-name-needs-version",
    "algorithm.engine",
    "`engine_name` comes with `engine_version` (or a custom `image_url`)",
    "warning",
    f"{_PAGES}: a preset engine is `engine_name` + `engine_version`; no refusal of a lone name is known.",
)
ENGINE_CHOICE = _declare(
    "engine-choice",
    "algorithm.engine",
    "give `engine_id`, `engine_name` (with `engine_version`) or `image_url`",
    "error",
    f"{_SDK} `JobEngine`: choose one of engine_id, engine_name + engine_version and image_url (三选一); "
    "an engine with none of them names nothing to run on.",
)
INSTALL_SYS_PACKAGES = _declare(
    "install-sys-packages",
    "algorithm.engine",
    "`install_sys_packages` only with `engine_name`, `engine_version` and `image_url`",
    "warning",
    f'{_SDK} `JobEngine`: "only supported when engine_name, engine_version and image_url are filled in"; '
    "no refusal is known.",
)
SUBSCRIPTION_PAIR = _declare(
    "subscription-pair",
    "algorithm",
    "`subscription_id` and `item_version_id` come together",
    "warning",
    f'{_PAGES}: "must be used with"; {_SDK} `JobAlgorithm`: "should appear together" (应与…一同出现); '
    "no refusal is known.",
)
CODE_PAIR = _declare(
    "code-pair",
    "algorithm",
    "`code_dir` and `boot_file` come together",
    "warning",
    f'{_PAGES} and {_SDK}: "must be used together"; {_TF_DEBUG} sends `code_dir` with a `command` and no '
    "`boot_file`, and the service accepts it.",
)
ONE_ALGORITHM = _declare(
    "one-algorithm",
    "algorithm",
    "use `id` or `subscription_id`, not both",
    "warning",
    f"{_PAGES} list them as alternatives; nothing shows the service refusing both, nor which it uses.",
)
ALGORITHM_OWN_CODE = _declare(
    "algorithm-leaves-code-blank",
    "algorithm",
    "with `id` or `subscription_id`, leave `code_dir`, `boot_file`, `engine` and `command` blank",
    "warning",
    f'{_PAGES}: "if id or subscription_id+item_version_id is set, leave it blank"; {_SDK}: "no need to '
    f'fill in"; {_TF_BASIC} sends an algorithm `id` with `code_dir` and `boot_file` and the service '
    "accepts it.",
)
ALGORITHM_SOURCE = _declare(
    "algorithm-source",
    "algorithm",
    "choose what runs: `id`, `subscription_id` (with `item_version_id`), or an `engine` with code or a "
    "command",
    "error",
    f"{_PAGES}: the algorithm is one of these sources; an algorithm with none of them names nothing to run.",
)
ENGINE_FOR_CODE = _declare(
    "engine-for-code",
    "algorithm",
    "your own `code_dir`/`boot_file` or `command` needs an `engine`",
    "error",
    f"{_SDK} `JobEngine`: an engine is chosen by id, name + version or image; without one there is nothing "
    "to run the code on.",
)
COMMAND_CUSTOM_IMAGE = _declare(
    "command-custom-image",
    "algorithm",
    "`command` is for a custom image (`engine.image_url`)",
    "warning",
    f'{_PAGES} and {_SDK}: "the start command of a custom image"; no refusal on a preset engine is known.',
)
SOMETHING_TO_START = _declare(
    "something-to-start",
    "algorithm",
    "an `engine` runs `code_dir` with `boot_file`, or (custom images) a `command`",
    "warning",
    f"{_PAGES}: code_dir/boot_file start a preset engine's job, command a custom image's; what the service "
    "does without them is not documented.",
)
ENV_NAME = _declare(
    "env-name",
    "algorithm.environments, tasks[].algorithm.environments",
    "a variable's name is not empty and holds no `=` or NUL character",
    "error",
    "POSIX: a process's environment is `name=value` strings ended by NUL, so no process can receive such a "
    "name as written; Kubernetes (the job's `schedule_policy` is its node affinity) refuses such a name in a "
    "container's `env` in every version.",
)
ENV_NAME_SHAPE = _declare(
    "env-name-shape",
    "algorithm.environments, tasks[].algorithm.environments",
    "a variable's name is letters, digits and `_`, not starting with a digit",
    "warning",
    f'{_SDK} `JobAlgorithm`: names "should contain only letters, digits and underscores, and start with a '
    'letter or an underscore" (变量名应该…); `TaskAlgorithm` states no constraint. No refusal by the '
    "service is known: Kubernetes takes any printable ASCII name without `=` since 1.30 (before, letters, "
    "digits, `_`, `-` and `.`, not starting with a digit), and a process receives such a name (only a shell "
    "cannot refer to it).",
)
TASK_CODE_PAIR = _declare(
    "task-code-pair",
    "tasks[].algorithm",
    "`code_dir` and `boot_file` come together",
    "warning",
    f'{_PAGES}: "must be used together"; no refusal is known (the same rule of `algorithm` is contradicted '
    f"by {_TF_DEBUG}).",
)
RESOURCE_CHOICE = _declare(
    "resource-choice",
    "spec.resource",
    "give `flavor_id`, `pool_id` (dedicated pool) or `pool_group_id` (pool federation)",
    "error",
    f'{_PAGES}: "select either flavor_id or pool_id+[flavor_id]"; {_TF}: `resource` is Required; with '
    "none of them the job has no machines.",
)
CUSTOMIZED_FLAVOR_POOL = _declare(
    "customized-flavor-pool",
    "spec.resource",
    "`main_container_customized_flavor` is for dedicated pools (`pool_id`)",
    "warning",
    f"{_TF_DEBUG} uses it with `pool_id` (a share of a dedicated pool's node); {_SDK} "
    "`MainContainerCustomizedFlavor` states no such limit; no refusal without a pool is known.",
)
VOLUME_PATH = _declare(
    "volume-path",
    "spec.volumes[].pfs, spec.volumes[].obs",
    "give the file system path, the mount point or both",
    "error",
    "an empty mount names nothing to mount.",
)
VOLUME_KIND = _declare(
    "volume-kind",
    "spec.volumes[]",
    "give `nfs`, `pfs` or `obs`",
    "error",
    f"{_SDK} `SpecVolumes`: a volume is one of them; an empty one names nothing to mount.",
)
VOLUME_KIND_ONE = _declare(
    "volume-kind-one",
    "spec.volumes[]",
    "one of `nfs`, `pfs` or `obs` per volume",
    "warning",
    f"{_SDK} `SpecVolumes` has the three side by side; nothing shows the service refusing two.",
)
SELECTOR_VALUES = _declare(
    "selector-values",
    "spec.schedule_policy.*.matchExpressions[], matchFields[]",
    "`In`/`NotIn` need values, `Exists`/`DoesNotExist` none, `Gt`/`Lt` one whole number",
    "error",
    f'{_SDK} `NodeSelectorRequirement`: "cannot be empty", "must be empty", "a single element, '
    'interpreted as an integer" (the Kubernetes node selector the scheduler is given refuses the rest).',
)
SELECTOR_TERM = _declare(
    "selector-term",
    "spec.schedule_policy.*.nodeSelectorTerms[], preference",
    "give `matchExpressions` or `matchFields`",
    "error",
    f"{_SDK} `NodeSelectorTerm`: a term is its requirements; an empty one selects nothing.",
)
SELECTOR_TERM_ONE = _declare(
    "selector-term-one",
    "spec.schedule_policy.*.nodeSelectorTerms[], preference",
    "`matchExpressions` or `matchFields`, not both",
    "warning",
    f"{_SDK} `NodeSelectorTerm` and {_TF} (which sends both keys of every term) allow both; a node must "
    "then meet both; nothing shows the service refusing it.",
)
AFFINITY_ONE = _declare(
    "affinity-one",
    "spec.schedule_policy",
    "`required_affinity` or `preferred_affinity`, not both",
    "warning",
    f"{_TF_DEBUG} uses each on its own; nothing shows the service refusing both.",
)
METRIC_SOURCE = _declare(
    "metric-source",
    "spec.custom_metrics[]",
    "give `exec` or `http_get`",
    "error",
    f"{_SDK}: a metric is collected by a command or an HTTP endpoint; an empty one collects nothing.",
)
METRIC_SOURCE_ONE = _declare(
    "metric-source-one",
    "spec.custom_metrics[]",
    "`exec` or `http_get`, not both",
    "warning",
    f"{_SDK} has the two side by side; nothing shows the service refusing both.",
)
ALGORITHM_REQUIRED = _declare(
    "algorithm-required",
    "(the job)",
    "an `algorithm` is required (or `tasks` for a heterogeneous job)",
    "error",
    f"{_TF}: `algorithm` is Required; a job with neither names nothing to run.",
)
TASKS_WITH_SPEC = _declare(
    "tasks-with-spec",
    "(the job)",
    "leave `tasks` blank when `spec` is given",
    "warning",
    f'{_PAGES}: "if this parameter is specified, leave the tasks parameter blank", and tasks are "not '
    'implemented currently"; no refusal is known.',
)
FEDERATED_POOL_GROUP = _declare(
    "federated-pool-group",
    "(the job)",
    "a `federated_pool_job` needs `spec.resource.pool_group_id`",
    "error",
    f'{_SDK} `SpecResource`: "required when kind is federated_pool_job" (该字段必填).',
)


class RequestModel(BaseModel):
    """Base for everything the user writes: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    # Warning rules broken in this object: (path below it, message, rule key); see ``advice``.
    _advice: list[tuple[tuple[str, ...], str, str]] = PrivateAttr(default_factory=list)

    @property
    def advice_notes(self) -> list[tuple[tuple[str, ...], str, str]]:
        """The warning rules this object breaks, as ``(path below it, message, rule key)``."""
        return self._advice


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
#
# These models are the one source of the job's shape: scripts/generate writes the typed inputs (inputs.py),
# the property lists (fields.py), the typed part of resource.py, the package exports and the inputs table
# of docs/training-job.md from them. Field descriptions are user documentation (Markdown); a class
# docstring's first paragraph describes the object to users, the rest is for maintainers. Fields marked
# ``service_set`` are accepted (the API pages list them in the request) but not offered as typed inputs;
# ``secret`` fields are kept encrypted.


class TrainingExperimentReference(RequestModel):
    """The experiment the job is filed under: an existing one by `id`, or a new one by `name`."""

    id: str | None = Field(default=None, description="Id of an existing experiment to add the job to.")
    name: str | None = Field(
        default=None, max_length=64, description="Name of a new experiment to create for the job."
    )
    description: str | None = Field(default=None, max_length=256, description="What the experiment is for.")

    @model_validator(mode="after")
    def _id_or_name(self) -> TrainingExperimentReference:
        if not (_given(self.id) or _given(self.name)):
            raise EXPERIMENT_REFERENCE.error(
                "give the id of an experiment, or the name of a new one", at="id"
            )
        return self


class JobMetadata(RequestModel):
    """The job's name, description and advanced settings.

    ``name`` is optional here because the provider can choose a name; the request actually sent must have one:
    validate with ``context={REQUIRE_NAME: True}`` (``validate_create_request``) or call ``require_name``.
    """

    input_name: ClassVar[str] = "Metadata"

    id: str | None = Field(
        default=None, description="Job id, set by the service.", json_schema_extra={"service_set": True}
    )
    name: str | None = Field(
        default=None,
        description=(
            "Job name: 1 to 64 letters, digits, `_` or `-`. Leave it out to get `<name_prefix>-<6 "
            "characters>` derived from the stack and the job's inputs (the same program gets the same "
            "name); the chosen name is kept across updates. Changing it replaces the job."
        ),
    )
    workspace_id: str | None = Field(
        default=None, description="Workspace of the job; the service uses the default workspace, `0`."
    )
    description: str | None = Field(
        default=None,
        max_length=256,
        description="What the job is for. The only field that changes in place on an existing job.",
    )
    create_time: WholeNumber | None = Field(
        default=None,
        description="Creation time in milliseconds since the epoch, set by the service.",
        json_schema_extra={"service_set": True},
    )
    user_name: str | None = Field(
        default=None,
        description="The user who created the job, set by the service.",
        json_schema_extra={"service_set": True},
    )
    annotations: dict[str, str] | None = Field(
        default=None,
        description=(
            "Advanced settings as text keys and values, for example `fault-tolerance/job-retry-num` (retries "
            "after a fault), `fault-tolerance/job-unconditional-retry`, `fault-tolerance/hang-retry`, "
            "`jupyter-lab/enable`, `tensorboard/enable`, `mindstudio-insight/enable`, "
            '`fault-tolerance/hccl_op_retry`, `performance_diagnosis_enabled` (each `"true"`) or '
            "`job_template` (`Template RL` for heterogeneous jobs). Keys starting `emulator/` steer the "
            "embedded emulator."
        ),
    )
    training_experiment_reference: TrainingExperimentReference | None = Field(
        default=None, description="The experiment the job is filed under."
    )

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str | None) -> str | None:
        if value is not None and not _NAME_RE.fullmatch(value):
            raise JOB_NAME.error(
                "must be 1 to 64 characters, using only letters, digits, '_' and '-'"
                if value
                else "must not be empty"
            )
        return value

    @model_validator(mode="after")
    def _check_required_name(self, info: ValidationInfo) -> JobMetadata:
        if isinstance(info.context, Mapping) and info.context.get(REQUIRE_NAME) and self.name is None:
            raise JOB_NAME.error("a job name is required", at="name")
        return self


class Constraint(RequestModel):
    """Rules for a parameter's value, as algorithm management records them."""

    input_name: ClassVar[str] = "ParameterConstraint"

    type: str | None = Field(default=None, description="Value type, for example `String` or `Integer`.")
    editable: bool | None = Field(default=None, description="Whether the value may be changed.")
    required: bool | None = Field(default=None, description="Whether the parameter must be given.")
    sensitive: bool | None = Field(
        default=None, description="Whether the value is sensitive (not implemented by the service yet)."
    )
    valid_type: str | None = Field(
        default=None,
        description="How `valid_range` reads: `Choice` (allowed values), `Range` (bounds) or `None`.",
    )
    valid_range: list[str] | None = Field(default=None, description="The allowed values or the bounds.")


class I18nDescription(RequestModel):
    """A parameter's description in one language."""

    input_name: ClassVar[str] = "ParameterI18nDescription"

    language: str | None = Field(default=None, description="Language, `zh-cn` or `en-us`.")
    description: str | None = Field(default=None, description="The description in that language.")


class Parameter(RequestModel):
    """A running parameter (hyperparameter) passed to the training code.

    ``name`` is required: a nameless parameter cannot reach the job.
    """

    name: str = Field(min_length=1, description="Parameter name, as the training code reads it.")
    value: str | None = Field(default=None, description="Parameter value, as text.")
    description: str | None = Field(default=None, description="What the parameter means.")
    constraint: Constraint | None = Field(default=None, description="Rules for the value.")
    i18n_description: I18nDescription | None = Field(
        default=None, description="The description in another language."
    )


class RewardAttr(RequestModel):
    """A metric the hyperparameter search optimises."""

    input_name: ClassVar[str] = "AutoSearchRewardAttr"

    name: str | None = Field(default=None, description="Metric name.")
    mode: str | None = Field(default=None, description="`max` when larger is better, `min` when smaller is.")
    regex: str | None = Field(
        default=None, description="Regular expression that finds the metric in the logs."
    )


class SearchParam(RequestModel):
    """A hyperparameter the search varies."""

    input_name: ClassVar[str] = "AutoSearchParam"

    name: str | None = Field(default=None, description="Hyperparameter name.")
    param_type: str | None = Field(
        default=None, description="`continuous` (between the bounds) or `discrete` (from a list)."
    )
    lower_bound: str | None = Field(default=None, description="Lower bound of a continuous hyperparameter.")
    upper_bound: str | None = Field(default=None, description="Upper bound of a continuous hyperparameter.")
    discrete_points_num: str | None = Field(
        default=None, description="How many points of a continuous hyperparameter are tried."
    )
    discrete_values: list[str] | None = Field(
        default=None, description="The values of a discrete hyperparameter."
    )


class AlgoConfigParam(RequestModel):
    """A setting of a search algorithm."""

    input_name: ClassVar[str] = "AutoSearchAlgoConfigParam"

    key: str | None = Field(default=None, description="Setting name.")
    value: str | None = Field(default=None, description="Setting value.")
    type: str | None = Field(default=None, description="Setting type.")


class AlgoConfig(RequestModel):
    """A search algorithm and its settings."""

    input_name: ClassVar[str] = "AutoSearchAlgoConfig"

    name: str | None = Field(default=None, description="Search algorithm name.")
    params: list[AlgoConfigParam] | None = Field(default=None, description="Its settings.")


class AutoSearch(RequestModel):
    """Hyperparameter search (auto search jobs)."""

    skip_search_params: str | None = Field(
        default=None, description="Hyperparameter combinations to leave out."
    )
    reward_attrs: list[RewardAttr] | None = Field(default=None, description="The metrics to optimise.")
    search_params: list[SearchParam] | None = Field(default=None, description="The hyperparameters to vary.")
    algo_configs: list[AlgoConfig] | None = Field(default=None, description="The search algorithms.")


class Policies(RequestModel):
    """Policies of the algorithm."""

    auto_search: AutoSearch | None = Field(default=None, description="Hyperparameter search.")


class Dataset(RequestModel):
    """A dataset (a version of it, unless it comes from the asset service) used as input data."""

    id: str = Field(min_length=1, description="Dataset id.")
    version_id: str | None = Field(
        default=None, description="Dataset version id; required unless `service_type` is `V3`."
    )
    obs_url: str | None = Field(
        default=None,
        description="OBS path of the dataset version, filled in by the service.",
        json_schema_extra={"service_set": True},
    )
    service_type: str | None = Field(
        default=None, description="`V3` for a dataset of the asset service; left out for other datasets."
    )
    name: str | None = Field(default=None, description="Dataset name.")
    dataset_proportion: WholeNumber | None = Field(
        default=None, description="Share of this dataset in a fine-tuning job's training data."
    )

    @model_validator(mode="after")
    def _version(self) -> Dataset:
        if self.service_type != "V3" and not _given(self.version_id):
            raise DATASET_VERSION.error("is required unless service_type is V3", at="version_id")
        return self


class ObsLocation(RequestModel):
    """An OBS path."""

    input_name: ClassVar[str] = "Obs"

    obs_url: str = Field(min_length=1, description="OBS path, for example `/bucket/data/`.")


class InputRemote(RequestModel):
    """Where an input channel's data comes from: exactly one of `dataset` or `obs`."""

    dataset: Dataset | None = Field(default=None, description="A dataset version.")
    obs: ObsLocation | None = Field(default=None, description="An OBS path.")

    @model_validator(mode="after")
    def _one_source(self) -> InputRemote:
        if self.dataset is not None and self.obs is not None:
            INPUT_SOURCE_BOTH.warn(
                self,
                "the API pages take either dataset or obs, not both; which one the service reads is "
                "not documented",
            )
        if self.dataset is None and self.obs is None:
            raise INPUT_SOURCE.error("give the data source: dataset or obs")
        return self


class RemoteConstraint(RequestModel):
    """A condition the input data must meet."""

    input_name: ClassVar[str] = "InputRemoteConstraint"

    data_type: str | None = Field(default=None, description="Kind of data source: an OBS path or a dataset.")
    attributes: str | None = Field(
        default=None,
        description="For a dataset: `data_format`, `data_segmentation` or `dataset_type` (labelling type).",
    )


class Input(RequestModel):
    """A data input channel of the training code."""

    name: str = Field(
        min_length=1, description="Channel name; the training code gets its local path under it."
    )
    description: str | None = Field(default=None, description="What the channel carries.")
    local_dir: str | None = Field(
        default=None,
        description="Container directory the data is placed in; the service picks one if left out.",
    )
    access_method: Literal["parameter", "env"] | None = Field(
        default=None,
        description=(
            "How the training code learns `local_dir`: as a running parameter (the service's default) or an "
            "environment variable."
        ),
    )
    remote: InputRemote = Field(description="Where the data comes from: a dataset version or an OBS path.")
    remote_constraint: list[RemoteConstraint] | None = Field(
        default=None, description="Conditions the data must meet."
    )


class OutputRemote(RequestModel):
    """Where an output channel's data goes."""

    obs: ObsLocation = Field(description="The OBS path.")


class Output(RequestModel):
    """A data output channel of the training code."""

    name: str = Field(
        min_length=1, description="Channel name; the training code gets its local path under it."
    )
    description: str | None = Field(default=None, description="What the channel carries.")
    local_dir: str | None = Field(default=None, description="Container directory the results are written to.")
    access_method: Literal["parameter", "env"] | None = Field(
        default=None,
        description=(
            "How the training code learns `local_dir`: as a running parameter (the service's default) or an "
            "environment variable."
        ),
    )
    remote: OutputRemote = Field(description="Where the results go: an OBS path.")
    mode: str | None = Field(
        default=None, description="When results are uploaded; the service uses `upload_periodically`."
    )
    period: str | None = Field(
        default=None, description="Upload period, for example `30s` (the service's default)."
    )


class Engine(RequestModel):
    """The engine (framework image) the job runs on: `engine_id`; or `engine_name` with `engine_version`; or a
    custom `image_url`, alone or on top of a preset `engine_name` (and `engine_version`).

    With ``engine_id`` the API pages say the other three stay blank; the service accepts them (Huawei's
    Terraform acceptance tests send engine_name and engine_version beside it), so that is a warning
    (``INPUT_RULES``), as is every other pairing advice here. An engine naming none of them is an error.
    """

    engine_id: str | None = Field(default=None, description="Preset engine id; leave the other fields blank.")
    engine_name: str | None = Field(default=None, description="Preset engine name, with `engine_version`.")
    engine_version: str | None = Field(default=None, description="Version of the preset engine.")
    image_url: str | None = Field(
        default=None, description="Custom image from SWR, for example `org/image:tag`."
    )

    install_sys_packages: bool | None = Field(
        default=None,
        description=(
            "Whether to install the MoXing version the training platform chooses; only for a custom image on "
            "a preset engine (`engine_name`, `engine_version` and `image_url`)."
        ),
    )
    image_repo_id: str | None = Field(
        default=None, description="Instance id of the SWR enterprise repository the image comes from."
    )

    @model_validator(mode="after")
    def _one_engine(self) -> Engine:
        _check_engine(self, self.engine_id, self.engine_name, self.engine_version, self.image_url)
        if self.install_sys_packages and not (
            _given(self.engine_name) and _given(self.engine_version) and _given(self.image_url)
        ):
            INSTALL_SYS_PACKAGES.warn(
                self,
                "the official SDK supports install_sys_packages only with engine_name, engine_version and "
                "image_url; the service may ignore it here",
                at="install_sys_packages",
            )
        return self

    @property
    def is_custom_image(self) -> bool:
        """True when the job runs the user's own image (``image_url``)."""
        return _given(self.image_url)


def _check_engine(
    engine: RequestModel,
    engine_id: str | None,
    engine_name: str | None,
    engine_version: str | None,
    image_url: str | None,
) -> None:
    if _given(engine_id):
        for field, value in (
            ("engine_name", engine_name),
            ("engine_version", engine_version),
            ("image_url", image_url),
        ):
            if _given(value):
                ENGINE_ID_ALONE.warn(
                    engine,
                    f"{field} is not needed when engine_id is set: engine_id chooses the engine (the API "
                    f"pages say to leave it blank); it is sent as written",
                    at=field,
                )
        return
    if _given(engine_version) and not _given(engine_name):
        ENGINE_VERSION_NAME.warn(
            engine,
            "the API pages choose a preset engine by engine_name with engine_version",
            at="engine_name",
        )
    if _given(engine_name) and not (_given(engine_version) or _given(image_url)):
        ENGINE_NAME_VERSION.warn(
            engine,
            "the API pages choose a preset engine by engine_name with engine_version (or run a custom "
            "image_url on it)",
            at="engine_version",
        )
    if not (_given(engine_name) or _given(engine_version) or _given(image_url)):
        raise ENGINE_CHOICE.error("give engine_id, engine_name with engine_version, or image_url")


class SummaryPfs(RequestModel):
    """A path in an OBS parallel file system."""

    pfs_path: str = Field(min_length=1, description="The path, for example `/bucket/logs/`.")


class SummaryLogDir(RequestModel):
    """Where the visualisation logs are written."""

    pfs: SummaryPfs | None = Field(default=None, description="An OBS parallel file system path.")


class SummaryJob(RequestModel):
    """A training job whose visualisation logs are read."""

    job_id: str = Field(min_length=1, description="The training job's id.")


class SummaryNfs(RequestModel):
    """An SFS Turbo file system holding visualisation logs."""

    nfs_path: str = Field(
        min_length=1, description="The file system's address, for example `<id>.sfsturbo.internal:/`."
    )


class SummaryDataSource(RequestModel):
    """Visualisation logs to read: another job's or a file system's."""

    job: SummaryJob | None = Field(default=None, description="Logs of a training job.")
    nfs: SummaryNfs | None = Field(default=None, description="Logs on an SFS Turbo file system.")


class AlgorithmSummary(RequestModel):
    """Visualisation logs: what the job writes, and what it reads when it shows them."""

    input_name: ClassVar[str] = "Summary"

    log_type: Literal["tensorboard", "mindstudio-insight"] | None = Field(
        default=None, description="Kind of logs the job writes; the job can then feed a visualisation job."
    )
    log_dir: SummaryLogDir | None = Field(default=None, description="Where the logs are written.")
    data_sources: list[SummaryDataSource] | None = Field(
        default=None,
        description=(
            "Logs to show; required when the `tensorboard/enable` or `mindstudio-insight/enable` annotation "
            'is `"true"`.'
        ),
    )


def _env_name(name: str) -> str:
    # What no process could receive as written (ENV_NAME); reported on the key, as the user wrote it.
    if not name:
        raise ENV_NAME.error("must not be empty: an environment variable needs a name")
    if "=" in name:
        raise ENV_NAME.error("must not contain '=': a process reads a variable's name up to the first '='")
    if "\x00" in name:
        raise ENV_NAME.error(
            "must not contain the NUL character, which ends a variable in a process's environment"
        )
    return name


_ADVISED_ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _advise_env_names(model: RequestModel, environments: Mapping[str, str] | None) -> None:
    for name in environments or {}:
        if not _ADVISED_ENV_NAME.fullmatch(name):
            ENV_NAME_SHAPE.warn(
                model,
                "the official SDK advises names of letters, digits and _ that do not start with a digit (a "
                "shell cannot refer to this one); it is sent as written",
                at=("environments", name),
            )


# Environment variable names and values (the official SDK's limits for the job's algorithm; a task's
# environments have none stated).
EnvName = Annotated[str, annotated_types.MaxLen(8192), AfterValidator(_env_name)]
EnvValue = Annotated[str, annotated_types.MaxLen(4096)]
TaskEnvName = Annotated[str, AfterValidator(_env_name)]


class Algorithm(RequestModel):
    """What the job runs. Exactly one source: an algorithm `id`; a subscribed algorithm (`subscription_id`
    with `item_version_id`); or your own code or image: an `engine` with `code_dir` and `boot_file`, and/or
    a `command` (custom images only).

    With the first two sources the API pages say ``code_dir``, ``boot_file``, ``engine`` and ``command`` stay
    blank; the service accepts them (Huawei's Terraform acceptance tests send an id with code_dir and
    boot_file), so that is a warning (``INPUT_RULES``). ``environments`` is a map of variable name to text
    value.
    """

    id: str | None = Field(default=None, description="Algorithm id from algorithm management.")
    name: str | None = Field(
        default=None,
        description="Algorithm name; the API pages say to leave it blank.",
        json_schema_extra={"service_set": True},
    )
    subscription_id: str | None = Field(
        default=None, description="Subscription id of a subscribed algorithm, with `item_version_id`."
    )
    item_version_id: str | None = Field(
        default=None, description="Version of the subscribed algorithm, with `subscription_id`."
    )
    code_dir: str | None = Field(
        default=None, description="Code directory (an OBS path such as `/bucket/app/`), with `boot_file`."
    )
    boot_file: str | None = Field(
        default=None, description="Boot file inside `code_dir`, for example `/bucket/app/train.py`."
    )
    autosearch_config_path: str | None = Field(
        default=None, description="OBS path of the YAML configuration of an auto search job."
    )
    autosearch_framework_path: str | None = Field(
        default=None, description="OBS path of the framework code of an auto search job."
    )
    command: str | None = Field(
        default=None,
        description="Start command of a custom image's container, for example `python train.py`.",
    )
    parameters: list[Parameter] | None = Field(
        default=None, description="Running parameters (hyperparameters)."
    )
    policies: Policies | None = Field(default=None, description="Policies: hyperparameter search.")
    inputs: list[Input] | None = Field(default=None, description="Data input channels.")
    outputs: list[Output] | None = Field(default=None, description="Data output channels.")
    engine: Engine | None = Field(default=None, description="Engine or custom image to run your own code on.")
    local_code_dir: str | None = Field(
        default=None,
        description=(
            "Container directory the code is downloaded to; must be under `/home` (not `/home/ma-user` "
            "itself, nor `/home/ma-user/modelarts`, `/home/ma-user/modelarts-dev` or `/home/ma-user/infer`)."
        ),
    )
    working_dir: str | None = Field(default=None, description="Directory the algorithm runs in.")
    environments: dict[EnvName, EnvValue] | None = Field(
        default=None,
        max_length=100,
        description=(
            "Environment variables of the job, name to text value (names of letters, digits and `_`, not "
            "starting with a digit; `$` does not refer to other variables). Stored as a secret; shown only "
            "in the secret `environments` output."
        ),
        json_schema_extra={"secret": True},
    )
    summary: AlgorithmSummary | None = Field(default=None, description="Visualisation logs.")

    @model_validator(mode="after")
    def _env_names(self) -> Algorithm:
        _advise_env_names(self, self.environments)
        return self

    @model_validator(mode="after")
    def _one_source(self) -> Algorithm:
        _check_pair(
            self,
            SUBSCRIPTION_PAIR,
            self.subscription_id,
            "subscription_id",
            self.item_version_id,
            "item_version_id",
        )
        # code_dir with a command and no boot_file is a real, accepted request (a custom image's job).
        if _given(self.code_dir) and not _given(self.boot_file) and not _given(self.command):
            CODE_PAIR.warn(self, "the API pages use boot_file together with code_dir", at="boot_file")
        if _given(self.boot_file) and not _given(self.code_dir):
            CODE_PAIR.warn(self, "the API pages use code_dir together with boot_file", at="code_dir")
        by_id = _given(self.id)
        by_subscription = _given(self.subscription_id) or _given(self.item_version_id)
        if by_id and by_subscription:
            ONE_ALGORITHM.warn(
                self,
                "the API pages take either id or subscription_id with item_version_id, not both; which one "
                "the service runs is not documented",
                at="subscription_id",
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
                    ALGORITHM_OWN_CODE.warn(
                        self,
                        f"{field} is not needed when the algorithm is given by {source}: the algorithm "
                        f"brings its own (the API pages say to leave it blank); it is sent as written",
                        at=field,
                    )
            return self
        has_code = _given(self.code_dir) or _given(self.boot_file)
        has_command = _given(self.command)
        if self.engine is None:
            if has_code or has_command:
                raise ENGINE_FOR_CODE.error(
                    "an engine is required to run your own code or command", at="engine"
                )
            raise ALGORITHM_SOURCE.error(
                "choose an algorithm: id, subscription_id with item_version_id, "
                "or an engine with code_dir and boot_file (or a command)"
            )
        if has_command and not self.engine.is_custom_image:
            COMMAND_CUSTOM_IMAGE.warn(
                self,
                "the API pages use command to start a custom image (engine.image_url); on a preset engine "
                "the service may ignore it",
                at="command",
            )
        if not (has_code or has_command):
            if self.engine.is_custom_image:
                SOMETHING_TO_START.warn(
                    self,
                    "the API pages start a custom image with a command (or code_dir with boot_file); without "
                    "one what runs is up to the service",
                    at="command",
                )
            else:
                SOMETHING_TO_START.warn(
                    self,
                    "the API pages run code_dir with boot_file on a preset engine; without them what runs is "
                    "up to the service",
                    at="code_dir",
                )
        return self


def _check_pair(
    model: RequestModel, rule: InputRule, first: object, first_name: str, second: object, second_name: str
) -> None:
    if _given(first) and not _given(second):
        rule.warn(model, f"the API pages use {second_name} together with {first_name}", at=second_name)
    if _given(second) and not _given(first):
        rule.warn(model, f"the API pages use {first_name} together with {second_name}", at=first_name)


class TaskEngine(RequestModel):
    """The engine of a heterogeneous-job task."""

    engine_id: str | None = Field(default=None, description="Engine id, for example `caffe-1.0.0-python2.7`.")
    engine_name: str | None = Field(default=None, description="Engine name, for example `Caffe`.")
    engine_version: str | None = Field(default=None, description="Engine version.")
    image_url: str | None = Field(default=None, description="Custom image from SWR.")
    run_user: str | None = Field(
        default=None, description="User id the image starts as (custom images; the service uses 1000)."
    )


class JobConfig(RequestModel):
    """Algorithm settings of a heterogeneous-job task."""

    input_name: ClassVar[str] = "TaskJobConfig"

    parameters: list[Parameter] | None = Field(default=None, description="Running parameters.")
    inputs: list[Input] | None = Field(default=None, description="Data input channels.")
    outputs: list[Output] | None = Field(default=None, description="Data output channels.")
    engine: TaskEngine | None = Field(default=None, description="Engine or custom image.")


class TaskInputRemote(RequestModel):
    """Where a task input's data comes from (heterogeneous jobs read only from OBS)."""

    obs: ObsLocation | None = Field(default=None, description="The OBS path.")


class TaskInput(RequestModel):
    """A data input channel of a heterogeneous-job task."""

    name: str = Field(min_length=1, description="Channel name.")
    description: str | None = Field(default=None, description="What the channel carries.")
    local_dir: str | None = Field(default=None, description="Container directory the data is placed in.")
    remote: TaskInputRemote = Field(description="Where the data comes from.")


class TaskOutput(RequestModel):
    """A data output channel of a heterogeneous-job task."""

    name: str = Field(min_length=1, description="Channel name.")
    description: str | None = Field(default=None, description="What the channel carries.")
    local_dir: str | None = Field(default=None, description="Container directory the results are written to.")
    remote: OutputRemote = Field(description="Where the results go.")


class TaskAlgorithm(RequestModel):
    """What a heterogeneous-job task runs; `code_dir` and `boot_file` come together."""

    job_config: JobConfig | None = Field(default=None, description="Algorithm settings such as parameters.")
    code_dir: str | None = Field(default=None, description="Code directory, with `boot_file`.")
    boot_file: str | None = Field(default=None, description="Boot file inside `code_dir`.")
    engine: TaskEngine | None = Field(default=None, description="Engine of the task.")
    inputs: list[TaskInput] | None = Field(default=None, description="Data input channels.")
    outputs: list[TaskOutput] | None = Field(default=None, description="Data output channels.")
    local_code_dir: str | None = Field(
        default=None, description="Container directory the code is downloaded to (under `/home`)."
    )
    working_dir: str | None = Field(default=None, description="Directory the algorithm runs in.")
    environments: dict[TaskEnvName, str] | None = Field(
        default=None,
        description="Environment variables of the task, name to text value. Stored as a secret.",
        json_schema_extra={"secret": True},
    )

    @model_validator(mode="after")
    def _pairs(self) -> TaskAlgorithm:
        _check_pair(self, TASK_CODE_PAIR, self.code_dir, "code_dir", self.boot_file, "boot_file")
        _advise_env_names(self, self.environments)
        return self


class TaskResource(RequestModel):
    """The resources of a heterogeneous-job task."""

    flavor_id: str | None = Field(default=None, description="Resource flavor id.")
    node_count: WholeNumber = Field(ge=1, description="Number of nodes.")
    pool_id: str | None = Field(default=None, description="Dedicated resource pool id.")


class TaskLogExportPath(RequestModel):
    """Where a heterogeneous-job task's logs are kept."""

    obs_url: str | None = Field(default=None, description="OBS path for the logs.")


class Task(RequestModel):
    """A task of a heterogeneous job (the API pages say this is not implemented yet)."""

    role: str | None = Field(default=None, description="Task role (not supported by the service yet).")
    algorithm: TaskAlgorithm | None = Field(default=None, description="What the task runs.")
    task_resource: TaskResource | None = Field(default=None, description="The task's resources.")
    log_export_path: TaskLogExportPath | None = Field(default=None, description="Where the task's logs go.")


class CustomizedFlavor(RequestModel):
    """The main container's share of a dedicated pool's node, instead of a whole flavor."""

    input_name: ClassVar[str] = "MainContainerFlavor"

    cpu_core_num: Number | None = Field(default=None, gt=0, description="CPU cores.")
    mem_size: Number | None = Field(default=None, gt=0, description="Memory size.")
    accelerator_num: Number | None = Field(default=None, ge=0, description="Accelerator cards (GPU or NPU).")


class Resource(RequestModel):
    """The machines of the job: a public flavor (`flavor_id`), a dedicated pool (`pool_id`, with a `flavor_id`
    for GPU and Ascend pools) or, for `federated_pool_job`, a pool federation (`pool_group_id`)."""

    flavor_id: str | None = Field(
        default=None,
        description=(
            "Resource flavor id, for example `modelarts.vm.cpu.2u`; on a dedicated GPU or Ascend pool one of "
            "`modelarts.pool.visual.xlarge` (1 card), `2xlarge`, `4xlarge`, `8xlarge` or `16xlarge`. Not "
            "used on dedicated CPU pools."
        ),
    )
    node_count: WholeNumber | None = Field(
        default=None, ge=1, description="Number of nodes; the service uses 1."
    )
    pool_id: str | None = Field(default=None, description="Dedicated resource pool id.")
    pool_group_id: str | None = Field(
        default=None, description="Pool federation id; required when `kind` is `federated_pool_job`."
    )
    main_container_customized_flavor: CustomizedFlavor | None = Field(
        default=None, description="A custom share of the node for the main container (dedicated pools only)."
    )

    @model_validator(mode="after")
    def _flavor_or_pool(self) -> Resource:
        if not (_given(self.flavor_id) or _given(self.pool_id) or _given(self.pool_group_id)):
            raise RESOURCE_CHOICE.error(
                "give flavor_id, or pool_id for a dedicated pool (pool_group_id for a pool federation)",
                at="flavor_id",
            )
        if self.main_container_customized_flavor is not None and not _given(self.pool_id):
            CUSTOMIZED_FLAVOR_POOL.warn(
                self,
                "main_container_customized_flavor is a share of a dedicated pool's node (pool_id); without "
                "a pool the service may ignore it",
                at="main_container_customized_flavor",
            )
        return self


class Nfs(RequestModel):
    """An NFS mount.

    Both paths are required: a mount needs a server export and a place in the container.
    """

    nfs_server_path: str = Field(min_length=1, description="NFS export, for example `10.10.10.10:/data`.")
    local_path: str = Field(min_length=1, description="Mount point in the training container.")
    read_only: bool | None = Field(default=None, description="Whether the mount is read-only.")


class PfsVolume(RequestModel):
    """An OBS parallel file system mount."""

    input_name: ClassVar[str] = "Pfs"

    pfs_path: str | None = Field(
        default=None, description="The file system path, for example `/bucket/path`."
    )
    local_path: str | None = Field(default=None, description="Mount point in the training container.")

    @model_validator(mode="after")
    def _a_path(self) -> PfsVolume:
        if not (_given(self.pfs_path) or _given(self.local_path)):
            raise VOLUME_PATH.error("give pfs_path, local_path or both", at="pfs_path")
        return self


class ObsVolume(RequestModel):
    """An OBS bucket path mount."""

    obs_path: str | None = Field(default=None, description="The OBS path, for example `/bucket/path`.")
    local_path: str | None = Field(default=None, description="Mount point in the training container.")

    @model_validator(mode="after")
    def _a_path(self) -> ObsVolume:
        if not (_given(self.obs_path) or _given(self.local_path)):
            raise VOLUME_PATH.error("give obs_path, local_path or both", at="obs_path")
        return self


class Volume(RequestModel):
    """A volume mounted into the training containers: exactly one of `nfs`, `pfs` or `obs`."""

    nfs: Nfs | None = Field(default=None, description="An NFS mount.")
    pfs: PfsVolume | None = Field(default=None, description="An OBS parallel file system mount.")
    obs: ObsVolume | None = Field(default=None, description="An OBS path mount.")

    @model_validator(mode="after")
    def _one_kind(self) -> Volume:
        given = [name for name in ("nfs", "pfs", "obs") if getattr(self, name) is not None]
        if not given:
            raise VOLUME_KIND.error("give one of nfs, pfs or obs")
        if len(given) > 1:
            VOLUME_KIND_ONE.warn(
                self,
                f"the API pages mount one of nfs, pfs or obs per volume, not {given[1]} too; how the service "
                "treats both is not documented",
                at=given[1],
            )
        return self


class LogExportPath(RequestModel):
    """Where the job's logs are kept."""

    obs_url: str | None = Field(
        default=None, description="OBS path for the logs, for example `/bucket/logs/`."
    )
    host_path: str | None = Field(default=None, description="Path on the host for the logs.")


class AutoStop(RequestModel):
    """Stop the job after it has run for a while."""

    time_unit: Literal["HOURS"] = Field(description="Unit of `duration`.")
    duration: WholeNumber = Field(ge=1, description="How long the job may run.")


class ReservedTime(RequestModel):
    """How long the job's resources stay reserved."""

    time_unit: Literal["HOURS"] = Field(description="Unit of `duration`.")
    duration: WholeNumber = Field(ge=1, description="How long the resources stay reserved.")


class Retention(RequestModel):
    """Whether the job's record is aged out automatically."""

    policy: Literal["enabled", "disabled"] | None = Field(
        default=None,
        description=(
            "`enabled` ages this job's record out; `disabled` keeps it, unless aging is on for the whole "
            "account. Only for `kind` `job`, where the platform ages records at all."
        ),
    )


class NodeSelectorRequirement(RequestModel):
    """A condition on a node label or field."""

    key: str = Field(min_length=1, description="The label or field.")
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"] = Field(
        description=(
            "How the value relates to `values`: in the list, not in it, present, absent, greater or less "
            "than the one value."
        )
    )
    values: list[str] | None = Field(
        default=None,
        description=(
            "The values: at least one for `In` and `NotIn`, none for `Exists` and `DoesNotExist`, one whole "
            "number for `Gt` and `Lt`."
        ),
    )

    @model_validator(mode="after")
    def _values(self) -> NodeSelectorRequirement:
        values = self.values or []
        if self.operator in ("In", "NotIn") and not values:
            raise SELECTOR_VALUES.error(f"{self.operator} needs at least one value", at="values")
        if self.operator in ("Exists", "DoesNotExist") and values:
            raise SELECTOR_VALUES.error(f"leave values empty with {self.operator}", at="values")
        if self.operator in ("Gt", "Lt") and (len(values) != 1 or not re.fullmatch(r"-?\d+", values[0])):
            raise SELECTOR_VALUES.error(
                f"{self.operator} needs exactly one value, a whole number", at="values"
            )
        return self


class NodeSelectorTerm(RequestModel):
    """Conditions a node must meet: on its labels (`matchExpressions`) or its fields (`matchFields`)."""

    match_expressions: list[NodeSelectorRequirement] | None = Field(
        default=None, alias="matchExpressions", description="Conditions on node labels."
    )
    match_fields: list[NodeSelectorRequirement] | None = Field(
        default=None, alias="matchFields", description="Conditions on node fields."
    )

    @model_validator(mode="after")
    def _one_kind(self) -> NodeSelectorTerm:
        if self.match_expressions is None and self.match_fields is None:
            raise SELECTOR_TERM.error("give either matchExpressions or matchFields")
        if self.match_expressions is not None and self.match_fields is not None:
            SELECTOR_TERM_ONE.warn(
                self, "matchExpressions and matchFields both given: a node must meet both", at="matchFields"
            )
        return self


class NodeAffinity(RequestModel):
    """Nodes the job may run on."""

    node_selector_terms: list[NodeSelectorTerm] = Field(
        alias="nodeSelectorTerms",
        min_length=1,
        description="Node conditions; a node that meets any one of them will do.",
    )


class PreferredSchedulingTerm(RequestModel):
    """Nodes the scheduler prefers, with a weight."""

    weight: WholeNumber | None = Field(
        default=None, ge=1, le=100, description="Weight added to a node that meets `preference`."
    )
    preference: NodeSelectorTerm | None = Field(default=None, description="The node conditions.")


class PreferredAffinity(RequestModel):
    """Placement the scheduler tries for but may give up."""

    node_affinity: list[PreferredSchedulingTerm] | None = Field(
        default=None,
        description="Weighted node conditions; nodes with the highest sum of weights are preferred.",
    )


class RequiredAffinity(RequestModel):
    """Placement the scheduler must respect."""

    affinity_type: Literal["cabinet", "hyperinstance", "networkTopology"] | None = Field(
        default=None,
        description=(
            "`cabinet` (whole cabinets), `hyperinstance` (tasks grouped on supernodes) or `networkTopology` "
            "(tasks kept within a network level)."
        ),
    )
    job_level: Literal["cluster", "hyperinstanceGroup"] | None = Field(
        default=None,
        description="With `networkTopology`: the highest network level the whole job may span (`cluster`).",
    )
    affinity_group_size: WholeNumber | None = Field(
        default=None,
        ge=1,
        description="Tasks per group with `hyperinstance` or `networkTopology`; the service uses 1.",
    )
    affinity_group_level: str | None = Field(
        default=None,
        description=(
            "With `networkTopology`: the highest network level one group may span, such as `hyperinstance` "
            "or `slice`."
        ),
    )
    node_affinity: NodeAffinity | None = Field(default=None, description="Nodes the job may run on.")


class SchedulePolicy(RequestModel):
    """How the job is scheduled on a dedicated pool."""

    required_affinity: RequiredAffinity | None = Field(default=None, description="Placement rules.")
    preferred_affinity: PreferredAffinity | None = Field(default=None, description="Placement preferences.")
    priority: WholeNumber | None = Field(
        default=None,
        ge=0,
        le=3,
        description="Job priority on the pool; 3 is the highest (it needs a permission).",
    )
    preemptible: bool | None = Field(default=None, description="Whether other jobs may preempt this one.")

    @model_validator(mode="after")
    def _one_affinity(self) -> SchedulePolicy:
        if self.required_affinity is not None and self.preferred_affinity is not None:
            AFFINITY_ONE.warn(
                self,
                "required_affinity and preferred_affinity both given; the API pages show one at a time",
                at="preferred_affinity",
            )
        return self


class LogExportConfig(RequestModel):
    """How logs are exported."""

    version: Literal["v0", "v1"] | None = Field(
        default=None, description="Log format version; `v0` by default."
    )
    rotation_enabled: bool | None = Field(
        default=None, description="Whether logs can be downloaded by time period."
    )


class Notification(RequestModel):
    """Messages about the job, sent through Simple Message Notification."""

    topic_urn: str = Field(min_length=1, description="URN of the SMN topic.")
    events: (
        list[
            Literal[
                "JobStarted",
                "JobCompleted",
                "JobFailed",
                "JobTerminated",
                "JobRestarted",
                "JobHanged",
                "JobPreempted",
            ]
        ]
        | None
    ) = Field(default=None, description="The job events that send a message.")


class MetricsExec(RequestModel):
    """Metrics from a command."""

    command: list[str] = Field(min_length=1, description="The command and its arguments.")


class MetricsHttpGet(RequestModel):
    """Metrics from an HTTP endpoint of the job."""

    path: str = Field(min_length=1, description="URL path, for example `/metrics`.")
    port: WholeNumber = Field(ge=1, le=65535, description="Port.")


class CustomMetric(RequestModel):
    """Where custom metrics are collected: exactly one of `exec` or `http_get`."""

    exec: MetricsExec | None = Field(default=None, description="Run a command.")
    http_get: MetricsHttpGet | None = Field(default=None, description="Read an HTTP endpoint.")

    @model_validator(mode="after")
    def _one_way(self) -> CustomMetric:
        if self.exec is None and self.http_get is None:
            raise METRIC_SOURCE.error("give either exec or http_get")
        if self.exec is not None and self.http_get is not None:
            METRIC_SOURCE_ONE.warn(
                self,
                "exec and http_get both given; which one the service collects from is not documented",
                at="http_get",
            )
        return self


class OutputModelObs(RequestModel):
    """Where the trained model is saved."""

    obs_path: str = Field(min_length=1, description="OBS path, for example `obs://bucket/model/`.")
    local_path: str | None = Field(default=None, description="Path in the container the model is written to.")


class OutputModel(RequestModel):
    """The model a training job produces."""

    obs: OutputModelObs = Field(description="Where it is saved.")


class AssetModel(RequestModel):
    """The model asset a fine-tuning job publishes."""

    name: str = Field(min_length=1, description="Model name.")
    version: str = Field(min_length=1, description="Model version.")
    type: str = Field(min_length=1, description="Model type.")
    code: str | None = Field(default=None, description="Model code.")
    desc: str | None = Field(default=None, description="Model description.")
    series: str | None = Field(default=None, description="Model series (brand).")
    model_desc: str | None = Field(default=None, description="Description of the model asset.")
    parent_asset_id: str | None = Field(
        default=None, description="Id of an existing model asset this one is a version of."
    )


class Spec(RequestModel):
    """Resources, volumes, logs, scheduling and products of the job."""

    resource: Resource | None = Field(default=None, description="The machines: a flavor or a dedicated pool.")
    volumes: list[Volume] | None = Field(default=None, description="Volumes to mount.")
    log_export_path: LogExportPath | None = Field(default=None, description="Where logs are kept.")
    auto_stop: AutoStop | None = Field(default=None, description="Stop the job after a while.")
    schedule_policy: SchedulePolicy | None = Field(
        default=None, description="Scheduling on a dedicated pool."
    )
    runtime_type: str | None = Field(
        default=None,
        description="Runtime type of the job; the service reports `production` when it is left out.",
    )
    log_export_config: LogExportConfig | None = Field(default=None, description="How logs are exported.")
    notification: Notification | None = Field(default=None, description="Messages about job events.")
    custom_metrics: list[CustomMetric] | None = Field(default=None, description="Custom metrics to collect.")
    output_model: OutputModel | None = Field(default=None, description="Where the trained model is saved.")
    asset_model: AssetModel | None = Field(
        default=None, description="The model asset a fine-tuning job publishes."
    )
    asset_id: str | None = Field(
        default=None, description="Id of the model asset a fine-tuning job starts from."
    )
    retention: Retention | None = Field(default=None, description="Whether the job's record is aged out.")
    reserved_time: ReservedTime | None = Field(
        default=None, description="How long the job's resources stay reserved."
    )


class SshAccess(RequestModel):
    """SSH access to the job's containers."""

    input_name: ClassVar[str] = "Ssh"

    key_pair_names: list[str] = Field(
        min_length=1, description="Names of key pairs (from the ECS console) allowed to log in."
    )


class JobEndpoints(RequestModel):
    """Remote access to the job."""

    input_name: ClassVar[str] = "Endpoints"

    ssh: SshAccess = Field(description="SSH access.")


class FtEnv(RequestModel):
    """An environment variable of a fine-tuning job."""

    input_name: ClassVar[str] = "FtJobEnv"

    label: str | None = Field(default=None, description="Label.")
    des: str | None = Field(default=None, description="Description.")
    env_name: str | None = Field(default=None, description="Variable name.")
    env_type: str | None = Field(default=None, description="Variable type.")
    value: str | None = Field(default=None, description="Value.")
    modifiable: bool | None = Field(default=None, description="Whether it may be changed.")
    displayable: bool | None = Field(default=None, description="Whether it is shown.")
    used_steps: list[str] | None = Field(default=None, description="The steps that use it.")


class FtTaskEnv(RequestModel):
    """The environment of a fine-tuning job."""

    input_name: ClassVar[str] = "FtJobTaskEnv"

    envs: list[FtEnv] = Field(description="Its environment variables.")


class CheckpointConfig(RequestModel):
    """Checkpoints of a fine-tuning job."""

    input_name: ClassVar[str] = "FtJobCheckpointConfig"

    checkpoint_id: str | None = Field(default=None, description="Checkpoint to start from.")
    save_checkpoints_max: WholeNumber | None = Field(
        default=None, ge=-1, description="Checkpoints to keep: `0` none, `-1` no limit."
    )
    skipped_steps: WholeNumber | None = Field(
        default=None, ge=0, description="Steps to skip; `0` skips none."
    )
    restore_training: WholeNumber | None = Field(
        default=None, ge=0, le=1, description="`1` resumes training from the checkpoint, `0` does not."
    )


class FtJobConfig(RequestModel):
    """Settings of a fine-tuning job."""

    ft_job_uuid: str | None = Field(default=None, description="Model id.")
    ft_train_type: str | None = Field(default=None, description="Model training type.")
    model_type: str | None = Field(default=None, description="Model type.")
    train_output_path: str | None = Field(default=None, description="Output path of the job.")
    train_process: Number | None = Field(default=None, description="Training progress.")
    checkpoint_id: str | None = Field(default=None, description="Checkpoint id.")
    task_env: FtTaskEnv | None = Field(default=None, description="Environment variables.")
    checkpoint_config: CheckpointConfig | None = Field(default=None, description="Checkpoints.")


JobKind = Literal[
    "job",
    "federated_pool_job",
    "edge_job",
    "hetero_job",
    "mrs_job",
    "autosearch_job",
    "diag_job",
    "visualization_job",
]


class CreateTrainingJobRequest(RequestModel):
    """A training job: the create request body (`POST /v2/{project_id}/training-jobs`).

    ``kind`` defaults to ``job`` and is always sent. A job needs an ``algorithm`` (or, for heterogeneous jobs,
    ``tasks``); ``spec`` and ``tasks`` are not used together.
    """

    input_name: ClassVar[str] = ""

    kind: JobKind = Field(default="job", description="Job type.")
    metadata: JobMetadata = Field(
        description=(
            "The job's name (optional: auto-named `<name_prefix>-<6 characters>` from a hash of the stack "
            "and the inputs, kept across updates), its description (the one field changed in place) and "
            "advanced settings."
        )
    )
    algorithm: Algorithm | None = Field(
        default=None,
        description=(
            "What runs, from exactly one source: `id`; or `subscription_id` with `item_version_id`; or your "
            "own code or image: `engine` with `code_dir` and `boot_file`, or a custom image "
            "(`engine.image_url`) with a `command`. The `environments` are kept secret."
        ),
    )
    tasks: list[Task] | None = Field(
        default=None, description="Tasks of a heterogeneous job, instead of `spec`."
    )
    spec: Spec | None = Field(
        default=None,
        description=(
            "The machines (`resource`: a flavor, or `pool_id` for a dedicated pool; `node_count` at least "
            "1), volumes, logs, scheduling and what the job produces."
        ),
    )
    endpoints: JobEndpoints | None = Field(
        default=None, description="Remote access to the job: SSH key pairs allowed to log in."
    )
    train_type: Literal["SFT", "PRETRAIN", "LORA", "DPO", "RFT"] | None = Field(
        default=None,
        description=(
            "Training type of a fine-tuning job: full fine-tuning, pre-training, LoRA fine-tuning, DPO or "
            "RFT reinforcement learning."
        ),
    )
    ftjob_config: FtJobConfig | None = Field(default=None, description="Settings of a fine-tuning job.")

    def model_post_init(self, context: Any, /) -> None:
        # kind is a default the wire needs; marking it "set" keeps it in to_wire's exclude_unset dump.
        self.model_fields_set.add("kind")

    @model_validator(mode="after")
    def _shape(self) -> CreateTrainingJobRequest:
        if self.algorithm is None and not self.tasks:
            raise ALGORITHM_REQUIRED.error("an algorithm is required", at="algorithm")
        if self.tasks and self.spec is not None:
            TASKS_WITH_SPEC.warn(
                self,
                "the API pages say to leave tasks blank when spec is given (tasks are not implemented); the "
                "service uses spec",
                at="tasks",
            )
        if self.kind == "federated_pool_job":
            resource = self.spec.resource if self.spec is not None else None
            if resource is None or not _given(resource.pool_group_id):
                raise FEDERATED_POOL_GROUP.error(
                    "a federated_pool_job needs spec.resource.pool_group_id", at="spec.resource.pool_group_id"
                )
        return self


# pydantic builds a deferred model's validator inside the first call that validates, on whatever thread makes
# it, and two threads may build the same one: under the GIL that costs twice as long as one build.
_BUILDING = threading.Lock()


def build_validators(*classes: type[BaseModel]) -> None:
    """Build these models' validators now if not built yet; a thread finding another building waits for it."""
    with _BUILDING:
        for cls in classes:
            if not cls.__pydantic_complete__:
                cls.model_rebuild()


def validate_create_request(data: object, *, require_name: bool = True) -> CreateTrainingJobRequest:
    """Parse a create body; by default ``metadata.name`` must be present (the request sent to the service)."""
    if not CreateTrainingJobRequest.__pydantic_complete__:
        build_validators(CreateTrainingJobRequest)
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
# Provider settings and resource outputs: not wire fields, but part of the resource's shape.


class ProviderSettings(BaseModel):
    """Inputs beside the create request body: settings that steer the provider, and the job's tags (sent by
    the tag calls, not the create).

    The one place their defaults are written; generated into ``fields.SETTING_DEFAULTS``. ``check`` validates
    them (lifecycle.py parses ``wait_for`` and ``wait_timeout``); a change to ``triggers`` replaces the job.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    wait_for: Literal["none", "pending", "running", "completed"] = Field(
        default="pending",
        description=(
            "How far a new job must get before the deployment goes on (`pending`: past Creating). A job that "
            "fails or times out while waited on is terminated and reported."
        ),
    )
    wait_timeout: float | str = Field(
        default="30m",
        description=(
            'Longest wait for `wait_for`: seconds, or a duration such as `"90s"`, `"30m"` or `"1h30m"`.'
        ),
    )
    triggers: Any = Field(
        default=None,
        description="Any value; changing it replaces the job (like `keepers` in pulumi-random).",
        json_schema_extra={"replaces": True},
    )
    replace_when_failed: bool = Field(
        default=False,
        description=(
            "When the phase last stored (after create or refresh) is Failed, Abnormal or CreateFailed, the "
            "next `up` replaces the job."
        ),
    )
    name_prefix: str | None = Field(
        default=None,
        description="Prefix of the generated job name; the resource name when left out. Ignored once the job "
        "has a name.",
    )
    keep_record: bool = Field(
        default=True,
        description=(
            "What destroy (or the delete half of a replacement) does with the stopped job's record: keep "
            "it (`true`: logs stay readable, the name stays taken) or delete it (`false`: the name is free "
            "again)."
        ),
    )
    tags: dict[str, str] | None = Field(
        default=None,
        description=(
            "Tags of the job (key to value), for cost allocation and ownership on a shared account. They "
            "change in place (only the keys added, changed or removed are sent) and are read back on "
            "refresh and import. Left out, the job's tags are not managed (neither set nor read). The "
            "service's rules (TMS tags, as the official SDK's `TmsTag` documents them): at most 20 tags; a "
            "key has 1 to 128 characters (letters of any language, digits, spaces and `_ . : = + - @`), "
            "neither starts nor ends with a space and does not start with `_sys_`; a value has at most 255 "
            "characters (letters of any language, digits, spaces and `_ . : / = + - @`)."
        ),
    )
    show_logs: bool = Field(
        default=True,
        description=(
            "While a create waits for the job to complete (`wait_for: completed`), show the newest line of "
            "its log on its row (read at most every 30 s; credentials and environment values hidden). "
            "`false` turns it off."
        ),
    )
    name_scope: str | None = Field(
        default=None,
        description=(
            "The Pulumi project and stack (`project/stack`) the job belongs to, part of the generated name's "
            "hash so two stacks never share names. Set by the resource itself, not by users."
        ),
        json_schema_extra={"hidden": True},
    )

    # The rules the provider applies to its settings (lifecycle's parsers), so check reports what create and
    # the wait would refuse; the values stay as declared.
    @field_validator("wait_for", mode="before")
    @classmethod
    def _wait_for_choice(cls, value: object) -> str:
        return lifecycle.parse_wait_for(value)

    @field_validator("wait_timeout", mode="before")
    @classmethod
    def _wait_timeout_duration(cls, value: object) -> object:
        lifecycle.parse_duration(value)
        return value

    @field_validator("tags", mode="before")
    @classmethod
    def _service_tags(cls, value: object) -> object:
        if value is None:
            return value
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise ValueError("must be a map of text keys to text values")
        problems_found = tag_problems(value)
        if problems_found:
            raise ValueError("; ".join(problems_found))
        return value

    @field_validator("replace_when_failed", "show_logs", mode="before")
    @classmethod
    def _replace_when_failed_flag(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value


#: The service's tag rules (TMS tags on a training job; the official SDK's ``TmsTag``: key at most 128
#: characters of any language's letters, digits, spaces and ``_ . : = + - @``, no space at either end, not
#: ``_sys_``-prefixed; value at most 255 characters, ``/`` allowed too) and TMS's limit of 20 tags a resource.
TAGS_MAX: Final = 20
TAG_KEY_MAX_LENGTH: Final = 128
TAG_VALUE_MAX_LENGTH: Final = 255
TAG_KEY_PUNCTUATION: Final = frozenset(" _.:=+-@")
TAG_VALUE_PUNCTUATION: Final = frozenset(" _.:/=+-@")
TAG_RESERVED_PREFIX: Final = "_sys_"


def _tag_text_ok(text: str, punctuation: frozenset[str]) -> bool:
    return all(ch.isalpha() or ch.isdigit() or ch in punctuation for ch in text)


def tag_problems(tags: Mapping[str, str]) -> list[str]:
    """What the service would refuse in a tag map, one sentence a problem (none: it accepts them)."""
    found: list[str] = []
    if len(tags) > TAGS_MAX:
        found.append(f"at most {TAGS_MAX} tags, not {len(tags)}")
    for key, value in tags.items():
        if not key or len(key) > TAG_KEY_MAX_LENGTH:
            found.append(f"tag key {key!r}: 1 to {TAG_KEY_MAX_LENGTH} characters")
        elif not _tag_text_ok(key, TAG_KEY_PUNCTUATION):
            found.append(f"tag key {key!r}: only letters, digits, spaces and _ . : = + - @")
        elif key != key.strip(" "):
            found.append(f"tag key {key!r}: no space at the start or end")
        elif key.startswith(TAG_RESERVED_PREFIX):
            found.append(f"tag key {key!r}: keys starting with {TAG_RESERVED_PREFIX} are reserved")
        if len(value) > TAG_VALUE_MAX_LENGTH:
            found.append(f"tag {key!r}: the value has more than {TAG_VALUE_MAX_LENGTH} characters")
        elif not _tag_text_ok(value, TAG_VALUE_PUNCTUATION):
            found.append(f"tag {key!r}: the value may hold only letters, digits, spaces and _ . : / = + - @")
    return found


class TmsTag(RequestModel):
    """One tag of a training job as the tag calls send and return it (``key``, ``value``)."""

    key: str
    value: str = ""


class TagsBody(RequestModel):
    """Body of the tag calls: create and delete send it, the tag query answers it."""

    tags: list[TmsTag] = Field(default_factory=list)


def tags_body(tags: Mapping[str, str]) -> TagsBody:
    return TagsBody(tags=[TmsTag(key=k, value=v) for k, v in sorted(tags.items())])


class TagAnswer(ResponseModel):
    """One tag in the tag query's answer."""

    key: str | None = None
    value: str | None = None


class TagsAnswer(ResponseModel):
    """The tag query's answer (``GET .../modelarts-training-job/{id}/tags``)."""

    tags: list[TagAnswer] | None = None

    def as_map(self) -> dict[str, str]:
        return {t.key: t.value or "" for t in self.tags or [] if t.key}


class ResourceOutputs(BaseModel):
    """What a ``TrainingJob`` reports after create, update and refresh (``provider.job_outputs``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    kind: str = Field(description="Job type.")
    metadata: dict[str, Any] = Field(
        description=(
            "Metadata as the service returns it: id, name (also a generated one), description, create_time..."
        )
    )
    name: str = Field(description="The job's name.")
    status: dict[str, Any] = Field(
        description=(
            "phase, secondary_phase, duration (ms), start_time, tasks, task_statuses, running_records."
        )
    )
    phase: str = Field(
        description=(
            "Level-1 phase as last seen (Creating, Pending, Running, Completed, Failed, Terminated, ...)."
        )
    )
    secondary_phase: str = Field(description="Level-2 phase as last seen.")
    algorithm: dict[str, Any] = Field(
        description="The algorithm as the service returns it, without environment variables."
    )
    spec: dict[str, Any] = Field(
        description="The spec as the service returns it (flavor details, log path, volumes...)."
    )
    tasks: list[dict[str, Any]] = Field(description="Tasks of a heterogeneous job, as returned.")
    endpoints: dict[str, Any] = Field(
        description="Remote access endpoints (SSH, JupyterLab, TensorBoard), with tokens.",
        json_schema_extra={"secret": True},
    )
    environments: dict[str, str] = Field(
        description="Environment variables of the job.", json_schema_extra={"secret": True}
    )
    tags: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "The job's tags as the service last reported them (read only when `tags` is declared, and on "
            "import)."
        ),
    )
    declared_inputs: dict[str, Any] = Field(
        description="The inputs as declared (normalised); what changes are judged against.",
        json_schema_extra={"secret": True, "holds_inputs": True},
    )


# ----------------------------------------------------------------------------------------------------
# Search request (POST /v2/{project_id}/training-job-searches)


#: Filter keys the search API supports (others: ModelArts.2789), and the most values one filter may carry.
SEARCH_FILTER_KEYS: Final = (
    "id",
    "name",
    "kind",
    "phase",
    "algorithm_id",
    "algorithm_name",
    "create_time",
    "user_id",
    "pool_id",
    "training_experiment_id",
    "runtime_type",
    "priority",
)
SEARCH_FILTER_MAX_VALUES: Final = 10


class SearchFilter(RequestModel):
    """A search condition: ``key`` (e.g. ``name``, ``phase``, ``create_time``), an ``operator`` and values.

    Checked before sending, so a filter the service would refuse (ModelArts.2789, 2809) fails here naming it.
    """

    key: str = Field(min_length=1)
    operator: Literal["between", "like", "in", "not"]
    value: list[str]

    @model_validator(mode="after")
    def _supported(self) -> SearchFilter:
        where = f"search filter {self.key} {self.operator} {self.value}"
        if self.key not in SEARCH_FILTER_KEYS:
            raise _rule(f"{where}: the service filters only by {', '.join(SEARCH_FILTER_KEYS)}", at="key")
        if len(self.value) > SEARCH_FILTER_MAX_VALUES:
            raise _rule(f"{where}: at most {SEARCH_FILTER_MAX_VALUES} values per filter", at="value")
        return self

    @field_validator("value")
    @classmethod
    def _phases(cls, value: list[str], info: ValidationInfo) -> list[str]:
        # The service matches phases exactly: a phase in another case would silently match nothing, so each is
        # spelled as the service spells it, and an unknown one is refused. Blank: no condition (seed 004).
        if info.data.get("key") != "phase":
            return value
        try:
            return [parse_phase(v) if v else v for v in value]
        except ValueError as exc:
            raise _rule(f"search filter phase {info.data.get('operator')} {value}: {exc}") from None


class SearchTag(RequestModel):
    """A tag condition of a search: jobs carrying tag ``key`` with one of ``values`` (any value when none)."""

    key: str = Field(min_length=1)
    values: list[str] = Field(default_factory=list)


class SearchRequest(RequestModel):
    """Body of a job search. ``offset`` is a page index (0 is the first page), ``limit`` 1-50 jobs per page;
    the service sorts by ``create_time`` in ``desc`` order unless told otherwise."""

    offset: WholeNumber | None = Field(default=None, ge=0)
    limit: WholeNumber | None = Field(default=None, ge=1, le=50)
    sort_by: str | None = None
    order: Literal["asc", "desc"] | None = None
    group_by: str | None = None
    filters: list[SearchFilter] | None = None
    tags: list[SearchTag] | None = None


# ----------------------------------------------------------------------------------------------------
# Responses


class TrainingExperimentResponse(ResponseModel):
    """``metadata.training_experiment_reference`` as returned."""

    id: str | None = None
    name: str | None = None
    serial_number: str | None = None


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
    training_experiment_reference: TrainingExperimentResponse | None = None


class TaskStatus(ResponseModel):
    """``status.task_statuses[]``."""

    task: str | None = None
    exit_code: int | None = None
    message: str | None = None


class RecoverRecord(ResponseModel):
    """``running_records[].recover_records[]``: one fault recovery within a run (times in seconds)."""

    recover_start_at: int | None = None
    recover_end_at: int | None = None
    recover: str | None = None
    fault_scenario: str | None = None
    reason: str | None = None
    related_task: str | None = None
    recover_result: str | None = None


class RunningRecord(ResponseModel):
    """``status.running_records[]``: one run and how it ended (times in seconds)."""

    start_at: int | None = None
    end_at: int | None = None
    xpu_start_at: int | None = None
    start_type: str | None = None
    end_reason: str | None = None
    end_related_task: str | None = None
    end_recover: str | None = None
    end_recover_before_downgrade: str | None = None
    recover_records: list[RecoverRecord] | None = None


class TaskIp(ResponseModel):
    """``status.task_ips[]``: where a task runs."""

    task: str | None = None
    ip: str | None = None
    host_ip: str | None = None
    schedule_count: int | None = None


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
    # Added after the seeds (official SDK): how long the record is kept, and each task's addresses.
    retention_time: int | None = None
    task_ips: list[TaskIp] | None = None


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
    service_type: str | None = None
    name: str | None = None
    dataset_proportion: int | None = None


class _RemoteConstraintResponse(ResponseModel):
    data_type: str | None = None
    attributes: str | None = None


class _RemoteResponse(ResponseModel):
    dataset: _DatasetResponse | None = None
    obs: _ObsResponse | None = None


class InputResponse(ResponseModel):
    """An input channel as returned (``local_dir`` is filled in by the service)."""

    name: str | None = None
    description: str | None = None
    local_dir: str | None = None
    access_method: str | None = None
    remote: _RemoteResponse | None = None
    remote_constraint: Annotated[list[_RemoteConstraintResponse], BeforeValidator(_none_as_empty_list)] = (
        Field(default_factory=list)
    )


class OutputResponse(ResponseModel):
    """An output channel as returned."""

    name: str | None = None
    description: str | None = None
    local_dir: str | None = None
    access_method: str | None = None
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
    image_repo_id: str | None = None
    v1_compatible: bool | None = None
    run_user: str | None = None


class _RewardAttrResponse(ResponseModel):
    name: str | None = None
    mode: str | None = None
    regex: str | None = None


class _SearchParamResponse(ResponseModel):
    name: str | None = None
    param_type: str | None = None
    lower_bound: str | None = None
    upper_bound: str | None = None
    discrete_points_num: str | None = None
    discrete_values: list[str] | None = None


class _AlgoConfigParamResponse(ResponseModel):
    key: str | None = None
    value: str | None = None
    type: str | None = None


class _AlgoConfigResponse(ResponseModel):
    name: str | None = None
    params: list[_AlgoConfigParamResponse] | None = None


class _AutoSearchResponse(ResponseModel):
    skip_search_params: str | None = None
    reward_attrs: list[_RewardAttrResponse] | None = None
    search_params: list[_SearchParamResponse] | None = None
    algo_configs: list[_AlgoConfigResponse] | None = None


class _PolicyResponse(ResponseModel):
    auto_search: _AutoSearchResponse | None = None


class _PfsPathResponse(ResponseModel):
    pfs_path: str | None = None


class _LogDirResponse(ResponseModel):
    pfs: _PfsPathResponse | None = None


class _JobRefResponse(ResponseModel):
    job_id: str | None = None


class _NfsPathResponse(ResponseModel):
    nfs_path: str | None = None


class _DataSourceResponse(ResponseModel):
    job: _JobRefResponse | None = None
    nfs: _NfsPathResponse | None = None


class Summary(ResponseModel):
    """``algorithm.summary``: visualisation logs (``log_type``, ``log_dir.pfs.pfs_path``, ...)."""

    log_type: str | None = None
    log_dir: _LogDirResponse | None = None
    data_sources: Annotated[list[_DataSourceResponse], BeforeValidator(_none_as_empty_list)] = Field(
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

    pool_id: str | None = None
    flavor_id: str | None = None
    flavor_name: str | None = None
    max_num: int | None = None
    flavor_type: str | None = None
    billing: BillingInfo | None = None
    flavor_info: FlavorInfo | None = None
    attributes: Annotated[dict[str, str], BeforeValidator(_none_as_empty_dict)] = Field(default_factory=dict)


class _AllocatedResources(ResponseModel):
    cpu_arch: str | None = None
    cpu_core_num: float | None = None
    mem_size: float | None = None
    accelerator_num: float | None = None
    accelerator_type: str | None = None


class _CustomizedFlavorResponse(ResponseModel):
    cpu_core_num: float | None = None
    mem_size: float | None = None
    accelerator_num: float | None = None


class ResourceResponse(ResponseModel):
    """``spec.resource`` as returned: adds ``policy``, ``flavor_name`` and ``flavor_detail`` (and, on
    dedicated pools, ``pool_name`` and what the main container was given)."""

    policy: str | None = None
    flavor_id: str | None = None
    flavor_name: str | None = None
    node_count: int | None = None
    pool_id: str | None = None
    pool_name: str | None = None
    pool_group_id: str | None = None
    flavor_detail: FlavorDetail | None = None
    main_container_allocated_resources: _AllocatedResources | None = None
    main_container_customized_flavor: _CustomizedFlavorResponse | None = None


class _NfsResponse(ResponseModel):
    nfs_server_path: str | None = None
    local_path: str | None = None
    read_only: bool | None = None


class _MountResponse(ResponseModel):
    pfs_path: str | None = None
    obs_path: str | None = None
    local_path: str | None = None


class _VolumeResponse(ResponseModel):
    nfs: _NfsResponse | None = None
    pfs: _MountResponse | None = None
    obs: _MountResponse | None = None


class LogExportPathResponse(ResponseModel):
    """``spec.log_export_path``; an unset path may come back as ``{}``, which reads as ``None``."""

    obs_url: Annotated[str | None, BeforeValidator(_empty_mapping_as_none)] = None
    host_path: Annotated[str | None, BeforeValidator(_empty_mapping_as_none)] = None


class _AffinityResponse(ResponseModel):
    affinity_type: str | None = None
    job_level: str | None = None
    affinity_group_size: int | None = None
    affinity_group_level: str | None = None


class _SchedulePolicyResponse(ResponseModel):
    required_affinity: _AffinityResponse | None = None
    priority: int | None = None
    preemptible: bool | None = None


class _AutoStopResponse(ResponseModel):
    time_unit: str | None = None
    duration: int | None = None


class _MetricsExecResponse(ResponseModel):
    command: list[str] | None = None


class _MetricsHttpGetResponse(ResponseModel):
    path: str | None = None
    port: int | None = None


class _CustomMetricResponse(ResponseModel):
    exec: _MetricsExecResponse | None = None
    http_get: _MetricsHttpGetResponse | None = None


class _ObsModelResponse(ResponseModel):
    obs_path: str | None = None
    local_path: str | None = None


class _OutputModelResponse(ResponseModel):
    obs: _ObsModelResponse | None = None


class _AssetModelResponse(ResponseModel):
    id: str | None = None
    name: str | None = None
    code: str | None = None
    version: str | None = None
    location: str | None = None
    desc: str | None = None
    series: str | None = None
    type: str | None = None


class _LogExportConfigResponse(ResponseModel):
    version: str | None = None
    rotation_enabled: bool | None = None


class _NotificationResponse(ResponseModel):
    topic_urn: str | None = None
    events: list[str] | None = None


class SpecResponse(ResponseModel):
    """``spec`` as returned (``runtime_type`` comes back as ``production`` when it was not set)."""

    resource: ResourceResponse | None = None
    volumes: Annotated[list[_VolumeResponse], BeforeValidator(_none_as_empty_list)] = Field(
        default_factory=list
    )
    log_export_path: LogExportPathResponse | None = None
    schedule_policy: _SchedulePolicyResponse | None = None
    auto_stop: _AutoStopResponse | None = None
    runtime_type: str | None = None
    log_export_config: _LogExportConfigResponse | None = None
    notification: _NotificationResponse | None = None
    custom_metrics: list[_CustomMetricResponse] | None = None
    output_model: _OutputModelResponse | None = None
    asset_model: _AssetModelResponse | None = None
    asset_id: str | None = None


class _TaskAlgorithmResponse(ResponseModel):
    code_dir: str | None = None
    boot_file: str | None = None
    # Documented as a single object in one table and as arrays in others: both are accepted.
    inputs: list[InputResponse] | InputResponse | None = None
    outputs: list[OutputResponse] | OutputResponse | None = None
    engine: EngineResponse | None = None
    local_code_dir: str | None = None
    working_dir: str | None = None
    environments: dict[str, str] | None = None


class _TaskLogExportPathResponse(ResponseModel):
    obs_url: Annotated[str | None, BeforeValidator(_empty_mapping_as_none)] = None


class _TaskResponse(ResponseModel):
    role: str | None = None
    algorithm: _TaskAlgorithmResponse | None = None
    task_resource: FlavorDetail | None = None
    log_export_path: _TaskLogExportPathResponse | None = None


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


class _FtEnvResponse(ResponseModel):
    label: str | None = None
    des: str | None = None
    env_name: str | None = None
    env_type: str | None = None
    value: str | None = None
    modifiable: bool | None = None
    displayable: bool | None = None
    used_steps: list[str] | None = None


class _FtTaskEnvResponse(ResponseModel):
    envs: list[_FtEnvResponse] | None = None


class _CheckpointConfigResponse(ResponseModel):
    checkpoint_id: str | None = None
    save_checkpoints_max: int | None = None
    skipped_steps: int | None = None
    restore_training: int | None = None


class FtJobConfigResponse(ResponseModel):
    """``ftjob_config`` as returned (fine-tuning jobs)."""

    ft_job_uuid: str | None = None
    ft_train_type: str | None = None
    model_type: str | None = None
    train_output_path: str | None = None
    train_process: float | None = None
    checkpoint_id: str | None = None
    task_env: _FtTaskEnvResponse | None = None
    checkpoint_config: _CheckpointConfigResponse | None = None


class TrainingJob(ResponseModel):
    """A training job as the service returns it (create, get, terminate and search answers)."""

    kind: str | None = None
    metadata: MetadataResponse = Field(default_factory=MetadataResponse)
    status: JobStatus = Field(default_factory=JobStatus)
    algorithm: AlgorithmResponse | None = None
    tasks: Annotated[list[_TaskResponse], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)
    spec: SpecResponse | None = None
    endpoints: Endpoints | None = None
    ftjob_config: FtJobConfigResponse | None = None

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
    train_type: str | None = None
    items: Annotated[list[TrainingJob], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)


class LogPreview(ResponseModel):
    """A task's log as the preview returns it: the latest ``content`` (at most 5 MB), sizes in bytes."""

    content: str | None = None
    current_size: int | None = None
    full_size: int | None = None


class JobEvent(ResponseModel):
    """One event of a job: ``level`` Info, Warning or Error; ``source`` Job, Task or K8S; ``time`` as text."""

    message: str | None = None
    level: str | None = None
    time: str | None = None
    source: str | None = None


class JobEvents(ResponseModel):
    """One page of a job's events, newest first unless ``order`` says otherwise."""

    total: int | None = None
    limit: int | None = None
    offset: int | None = None
    order: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    events: Annotated[list[JobEvent], BeforeValidator(_none_as_empty_list)] = Field(default_factory=list)


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


def wire_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """A model's fields by their names on the wire (the alias where one is set)."""
    return {field.alias or name: field for name, field in model.model_fields.items()}


def _model_at(root: type[BaseModel] | None, parts: Iterable[object]) -> type[BaseModel] | None:
    """The model class found by following a location from ``root`` (None when it leads elsewhere)."""
    current: Any = root
    for part in parts:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            # Error locations use wire names, which differ from attribute names where an alias is set.
            field = wire_fields(current).get(str(part))
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
                hint = _suggestion(loc[-1], wire_fields(parent))
                if hint is not None and hint != loc[-1]:
                    message = f"unknown field; did you mean '{hint}'?"
        pair = (_dotted(loc) or TOP_LEVEL, message)
        if pair not in found:
            found.append(pair)
    return found


def advice(request: RequestModel) -> list[tuple[str, str]]:
    """The warning rules a validated request breaks, as ``(dotted path, message)`` pairs in field order.

    The request is still valid (the service takes it as written); each message says what the API pages advise
    and what the service does instead, where that is known. Paths are spelled as in ``problems``.
    """
    found: list[tuple[str, str, str]] = []
    _collect_advice(request, [], found)
    return [(path, message) for path, message, _ in found]


def advice_rules(request: RequestModel) -> list[str]:
    """The keys (``INPUT_RULES``) of the warning rules a validated request breaks, each once."""
    found: list[tuple[str, str, str]] = []
    _collect_advice(request, [], found)
    return list(dict.fromkeys(key for _, _, key in found))


def _collect_advice(model: RequestModel, loc: list[object], found: list[tuple[str, str, str]]) -> None:
    for at, message, key in model.advice_notes:
        note = (_dotted([*loc, *at]) or TOP_LEVEL, message, key)
        if note not in found:
            found.append(note)
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        key = info.alias or name
        if isinstance(value, RequestModel):
            _collect_advice(value, [*loc, key], found)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, RequestModel):
                    _collect_advice(item, [*loc, key, index], found)


if _COLLECTING:
    gc.enable()

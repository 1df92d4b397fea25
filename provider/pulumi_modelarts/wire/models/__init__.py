"""Wire models for the ModelArts training-job API (``/v2/{project_id}/training-jobs``): the one import path.

Field names and nesting follow the API pages exactly (see the seed documents), and the official SDK's models
where the real service goes beyond them (tests/test_models_sdk_shape.py holds the SDK to that). Requests are
strict (unknown keys, wrong types and impossible values refused before anything is sent, with the path of the
offending field); responses are tolerant (every field optional, unknown fields kept). The request models, with
``ProviderSettings`` and ``ResourceOutputs``, are the one source of the ``TrainingJob`` resource's shape
(``scripts/generate``). Import them from here; each part lives in a module named for what it models:

* rules.py                 the rules between fields (``INPUT_RULES``, ``InputRule``) and the helpers rules use
* model_base.py            ``RequestModel``, ``ResponseModel``, the numbers of requests, ``to_wire``,
                           ``wire_fields``, ``build_validators``
* requests_job.py          ``CreateTrainingJobRequest``, its metadata, endpoints and fine-tuning settings,
                           ``validate_create_request``, ``JobActionRequest``
* requests_algorithm.py    ``algorithm``: engine, environment variables, code sources
* requests_parameters.py   the algorithm's parameters, auto-search and policies
* requests_data.py         the algorithm's inputs, outputs and summary
* requests_tasks.py        the tasks of a heterogeneous job
* requests_spec.py         ``spec``: resources, volumes, logs, metrics, produced models
* requests_scheduling.py   ``spec.schedule_policy``: node affinity
* requests_search.py       the job search's request
* tag_models.py            tag rules, tag bodies and answers
* responses.py             ``TrainingJob`` as returned, search answers, logs, events, error bodies
* responses_algorithm.py   the returned ``algorithm``
* responses_spec.py        the returned ``spec``
* responses_catalogue.py   the training catalogue: the flavors and engines an account may use
* messages.py              ``problems()`` and ``advice()``: (dotted path, plain message) pairs
* phases.py                the phase vocabulary, re-exported here

Only pydantic (with its annotated_types) is imported: the provider imports this module on every Pulumi run.
"""

from __future__ import annotations

import gc

# Building ~150 model classes sets off several full collections of the cyclic garbage collector (a third of
# the models' import time, measured); nothing built here is garbage: it waits until the end of this module.
_COLLECTING = gc.isenabled()
gc.disable()

# The phase vocabulary lives in phases.py; re-exported here for the models' users.
from ..phases import (  # noqa: E402, I001
    TERMINABLE_PHASES,
    TERMINAL_PHASES,
    TERMINAL_SECONDARY_PHASES,
    Phase,
    SecondaryPhase,
    is_failure,
    is_terminable,
    is_terminal,
    parse_phase as parse_phase,
)
from .rules import (  # noqa: E402
    AFFINITY_ONE as AFFINITY_ONE,
    ALGORITHM_OWN_CODE as ALGORITHM_OWN_CODE,
    ALGORITHM_REQUIRED as ALGORITHM_REQUIRED,
    ALGORITHM_SOURCE as ALGORITHM_SOURCE,
    CODE_PAIR as CODE_PAIR,
    COMMAND_CUSTOM_IMAGE as COMMAND_CUSTOM_IMAGE,
    CUSTOMIZED_FLAVOR_POOL as CUSTOMIZED_FLAVOR_POOL,
    DATASET_VERSION as DATASET_VERSION,
    ENGINE_CHOICE as ENGINE_CHOICE,
    ENGINE_FOR_CODE as ENGINE_FOR_CODE,
    ENGINE_ID_ALONE as ENGINE_ID_ALONE,
    ENGINE_NAME_VERSION as ENGINE_NAME_VERSION,
    ENGINE_VERSION_NAME as ENGINE_VERSION_NAME,
    ENV_NAME as ENV_NAME,
    ENV_NAME_SHAPE as ENV_NAME_SHAPE,
    EXPERIMENT_REFERENCE as EXPERIMENT_REFERENCE,
    FEDERATED_POOL_GROUP as FEDERATED_POOL_GROUP,
    INPUT_RULES,
    INPUT_SOURCE as INPUT_SOURCE,
    INPUT_SOURCE_BOTH as INPUT_SOURCE_BOTH,
    INSTALL_SYS_PACKAGES as INSTALL_SYS_PACKAGES,
    JOB_NAME as JOB_NAME,
    METRIC_SOURCE as METRIC_SOURCE,
    METRIC_SOURCE_ONE as METRIC_SOURCE_ONE,
    ONE_ALGORITHM as ONE_ALGORITHM,
    REQUIRE_NAME,
    RESOURCE_CHOICE as RESOURCE_CHOICE,
    SELECTOR_TERM as SELECTOR_TERM,
    SELECTOR_TERM_ONE as SELECTOR_TERM_ONE,
    SELECTOR_VALUES as SELECTOR_VALUES,
    SOMETHING_TO_START as SOMETHING_TO_START,
    SUBSCRIPTION_PAIR as SUBSCRIPTION_PAIR,
    TASKS_WITH_SPEC as TASKS_WITH_SPEC,
    TASK_CODE_PAIR as TASK_CODE_PAIR,
    VOLUME_KIND as VOLUME_KIND,
    VOLUME_KIND_ONE as VOLUME_KIND_ONE,
    VOLUME_PATH as VOLUME_PATH,
    InputRule,
    Severity as Severity,
)
from .model_base import (  # noqa: E402
    Number as Number, RequestModel, ResponseModel, WholeNumber as WholeNumber,
    build_validators, to_wire, wire_fields,
)
from .requests_job import (  # noqa: E402
    CheckpointConfig,
    CreateTrainingJobRequest,
    FtEnv,
    FtJobConfig,
    FtTaskEnv,
    JobActionRequest,
    JobEndpoints,
    JobKind as JobKind,
    JobMetadata,
    SshAccess,
    TrainingExperimentReference,
    require_name,
    validate_create_request,
)
from .requests_algorithm import (  # noqa: E402
    Algorithm,
    Engine,
    EnvName as EnvName,
    EnvValue as EnvValue,
    TaskEnvName as TaskEnvName,
)
from .requests_parameters import (  # noqa: E402
    AlgoConfig,
    AlgoConfigParam,
    AutoSearch,
    Constraint,
    I18nDescription,
    Parameter,
    Policies,
    RewardAttr,
    SearchParam,
)
from .requests_data import (  # noqa: E402
    AlgorithmSummary,
    Dataset,
    Input,
    InputRemote,
    ObsLocation,
    Output,
    OutputRemote,
    RemoteConstraint,
    SummaryDataSource,
    SummaryJob,
    SummaryLogDir,
    SummaryNfs,
    SummaryPfs,
)
from .requests_tasks import (  # noqa: E402
    JobConfig,
    Task,
    TaskAlgorithm,
    TaskEngine,
    TaskInput,
    TaskInputRemote,
    TaskLogExportPath,
    TaskOutput,
    TaskResource,
)
from .requests_spec import (  # noqa: E402
    AssetModel,
    AutoStop,
    CustomMetric,
    CustomizedFlavor,
    LogExportConfig,
    LogExportPath,
    MetricsExec,
    MetricsHttpGet,
    Nfs,
    Notification,
    ObsVolume,
    OutputModel,
    OutputModelObs,
    PfsVolume,
    ReservedTime,
    Resource,
    Retention,
    Spec,
    Volume,
)
from .requests_scheduling import (  # noqa: E402
    NodeAffinity,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredAffinity,
    PreferredSchedulingTerm,
    RequiredAffinity,
    SchedulePolicy,
)
from .requests_search import (  # noqa: E402
    SEARCH_FILTER_KEYS as SEARCH_FILTER_KEYS,
    SEARCH_FILTER_MAX_VALUES as SEARCH_FILTER_MAX_VALUES,
    SearchFilter,
    SearchRequest,
    SearchTag,
)
from .tag_models import (  # noqa: E402
    TAGS_MAX,
    TAG_KEY_MAX_LENGTH as TAG_KEY_MAX_LENGTH,
    TAG_KEY_PUNCTUATION as TAG_KEY_PUNCTUATION,
    TAG_RESERVED_PREFIX as TAG_RESERVED_PREFIX,
    TAG_VALUE_MAX_LENGTH as TAG_VALUE_MAX_LENGTH,
    TAG_VALUE_PUNCTUATION as TAG_VALUE_PUNCTUATION,
    TagAnswer,
    TagsAnswer,
    TagsBody,
    TmsTag,
    tag_problems,
    tags_body,
)
from .responses import (  # noqa: E402
    Endpoints,
    ErrorBody,
    FtJobConfigResponse,
    JobEvent,
    JobEvents,
    JobStatus,
    LogPreview,
    MetadataResponse,
    RecoverRecord,
    RunningRecord,
    SearchResponse,
    TaskIp,
    TaskStatus,
    TrainingExperimentResponse,
    TrainingJob,
)
from .responses_algorithm import (  # noqa: E402
    AlgorithmResponse,
    EngineResponse,
    Environments as Environments,
    InputResponse,
    OutputResponse,
    ParameterResponse,
    Summary,
    environments_map,
)
from .responses_spec import (  # noqa: E402
    BillingInfo,
    CpuInfo,
    DiskInfo,
    FlavorDetail,
    FlavorInfo,
    GpuInfo,
    LogExportPathResponse,
    MemoryInfo,
    NpuInfo,
    ResourceResponse,
    SpecResponse,
)
from .responses_catalogue import (  # noqa: E402
    EngineImages, EngineListing, FlavorListing, OfferedEngine, OfferedFlavor
)
from .messages import TOP_LEVEL as TOP_LEVEL, advice, advice_rules, problems  # noqa: E402

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
    "EngineImages",
    "EngineListing",
    "EngineResponse",
    "ErrorBody",
    "FlavorDetail",
    "FlavorInfo",
    "FlavorListing",
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
    "OfferedEngine",
    "OfferedFlavor",
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
    "RecoverRecord",
    "RemoteConstraint",
    "RequestModel",
    "RequiredAffinity",
    "ReservedTime",
    "Resource",
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

if _COLLECTING:
    gc.enable()

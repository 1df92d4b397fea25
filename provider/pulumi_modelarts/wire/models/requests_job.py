"""The create request's top (``CreateTrainingJobRequest``): its metadata, remote access, the fine-tuning
settings, ``validate_create_request`` and the terminate action's body.

The request models are the one source of the job's shape: scripts/generate writes the typed inputs, the
property lists, the typed part of resource.py, the package exports and the inputs table of
docs/training-job.md from them (the parts live in the other ``requests_*`` modules). Field descriptions are
user documentation (Markdown); a class docstring's first paragraph describes the object to users, the rest is
for maintainers. Fields marked ``service_set`` are accepted but not offered as typed inputs; ``secret`` fields
are kept encrypted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Final, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .model_base import Number, RequestModel, WholeNumber, build_validators, to_wire
from .requests_algorithm import Algorithm
from .requests_spec import Spec
from .requests_tasks import Task
from .rules import (
    ALGORITHM_REQUIRED,
    EXPERIMENT_REFERENCE,
    FEDERATED_POOL_GROUP,
    JOB_NAME,
    REQUIRE_NAME,
    TASKS_WITH_SPEC,
    is_given,
)

_NAME_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


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
        if not (is_given(self.id) or is_given(self.name)):
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
            if resource is None or not is_given(resource.pool_group_id):
                raise FEDERATED_POOL_GROUP.error(
                    "a federated_pool_job needs spec.resource.pool_group_id", at="spec.resource.pool_group_id"
                )
        return self


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

"""The job as the service returns it (``TrainingJob``), its metadata, status, tasks, endpoints and fine-tuning
settings; search answers, log previews, events and error bodies.

Responses are tolerant: every field is optional, numbers sent where text is documented are accepted as text,
and fields not known here are kept, because the service adds fields over time and differs between clouds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from ..phases import is_terminal
from .model_base import ResponseModel, empty_mapping_as_none, none_as_empty_dict, none_as_empty_list
from .responses_algorithm import AlgorithmResponse, EngineResponse, InputResponse, OutputResponse
from .responses_spec import FlavorDetail, SpecResponse

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
    annotations: Annotated[dict[str, str], BeforeValidator(none_as_empty_dict)] = Field(default_factory=dict)
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
    node_count_metrics: Annotated[list[list[int]], BeforeValidator(none_as_empty_list)] = Field(
        default_factory=list
    )
    tasks: Annotated[list[str], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)
    start_time: int | None = None
    task_statuses: Annotated[list[TaskStatus], BeforeValidator(none_as_empty_list)] = Field(
        default_factory=list
    )
    running_records: Annotated[list[RunningRecord], BeforeValidator(none_as_empty_list)] = Field(
        default_factory=list
    )
    # Added after the seeds (official SDK): how long the record is kept, and each task's addresses.
    retention_time: int | None = None
    task_ips: list[TaskIp] | None = None


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
    obs_url: Annotated[str | None, BeforeValidator(empty_mapping_as_none)] = None


class _TaskResponse(ResponseModel):
    role: str | None = None
    algorithm: _TaskAlgorithmResponse | None = None
    task_resource: FlavorDetail | None = None
    log_export_path: _TaskLogExportPathResponse | None = None


class _TaskUrl(ResponseModel):
    task: str | None = None
    url: str | None = None


class _SshEndpoint(ResponseModel):
    key_pair_names: Annotated[list[str], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)
    task_urls: Annotated[list[_TaskUrl], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)


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
    tasks: Annotated[list[_TaskResponse], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)
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
    items: Annotated[list[TrainingJob], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)


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
    events: Annotated[list[JobEvent], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)


class ErrorBody(ResponseModel):
    """An error answer: ``{"error_code", "error_msg", "error_solution"}``."""

    error_code: str | None = None
    error_msg: str | None = None
    error_solution: str | None = None

"""The tasks of a heterogeneous job (``tasks`` in the create request, instead of ``spec``)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from .model_base import RequestModel, WholeNumber
from .requests_algorithm import TaskEnvName, advise_env_names, check_pair
from .requests_data import Input, ObsLocation, Output, OutputRemote
from .requests_parameters import Parameter
from .rules import TASK_CODE_PAIR


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
        check_pair(self, TASK_CODE_PAIR, self.code_dir, "code_dir", self.boot_file, "boot_file")
        advise_env_names(self, self.environments)
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

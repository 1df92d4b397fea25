"""The create request's ``spec``: resources, volumes, log export, auto-stop, metrics, produced models."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from .model_base import Number, RequestModel, WholeNumber
from .requests_scheduling import SchedulePolicy
from .rules import (
    CUSTOMIZED_FLAVOR_POOL,
    METRIC_SOURCE,
    METRIC_SOURCE_ONE,
    RESOURCE_CHOICE,
    VOLUME_KIND,
    VOLUME_KIND_ONE,
    VOLUME_PATH,
    is_given,
)


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
        if not (is_given(self.flavor_id) or is_given(self.pool_id) or is_given(self.pool_group_id)):
            raise RESOURCE_CHOICE.error(
                "give flavor_id, or pool_id for a dedicated pool (pool_group_id for a pool federation)",
                at="flavor_id",
            )
        if self.main_container_customized_flavor is not None and not is_given(self.pool_id):
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
        if not (is_given(self.pfs_path) or is_given(self.local_path)):
            raise VOLUME_PATH.error("give pfs_path, local_path or both", at="pfs_path")
        return self


class ObsVolume(RequestModel):
    """An OBS bucket path mount."""

    obs_path: str | None = Field(default=None, description="The OBS path, for example `/bucket/path`.")
    local_path: str | None = Field(default=None, description="Mount point in the training container.")

    @model_validator(mode="after")
    def _a_path(self) -> ObsVolume:
        if not (is_given(self.obs_path) or is_given(self.local_path)):
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

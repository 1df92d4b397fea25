"""The ``spec`` of a job as returned: flavors, resources, volumes, log export, scheduling and metrics."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from .model_base import ResponseModel, empty_mapping_as_none, none_as_empty_dict, none_as_empty_list


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
    attributes: Annotated[dict[str, str], BeforeValidator(none_as_empty_dict)] = Field(default_factory=dict)


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

    obs_url: Annotated[str | None, BeforeValidator(empty_mapping_as_none)] = None
    host_path: Annotated[str | None, BeforeValidator(empty_mapping_as_none)] = None


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
    volumes: Annotated[list[_VolumeResponse], BeforeValidator(none_as_empty_list)] = Field(
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

"""The ``algorithm`` of a job as returned: parameters, inputs, outputs, engine and summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BeforeValidator, Field

from .model_base import ResponseModel, empty_mapping_as_none, none_as_empty_list


class _ConstraintResponse(ResponseModel):
    type: str | None = None
    editable: bool | None = None
    required: bool | None = None
    sensitive: bool | None = None
    valid_type: str | None = None
    valid_range: Annotated[list[str], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)


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
    obs_url: Annotated[str | None, BeforeValidator(empty_mapping_as_none)] = None


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
    remote_constraint: Annotated[list[_RemoteConstraintResponse], BeforeValidator(none_as_empty_list)] = (
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
    data_sources: Annotated[list[_DataSourceResponse], BeforeValidator(none_as_empty_list)] = Field(
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
    parameters: Annotated[list[ParameterResponse], BeforeValidator(none_as_empty_list)] = Field(
        default_factory=list
    )
    policies: _PolicyResponse | None = None
    inputs: Annotated[list[InputResponse], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)
    outputs: Annotated[list[OutputResponse], BeforeValidator(none_as_empty_list)] = Field(
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

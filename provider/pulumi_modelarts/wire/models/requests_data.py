"""The algorithm's data: inputs (OBS paths, datasets), outputs and the summary (TensorBoard) log directory."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from .model_base import RequestModel, WholeNumber
from .rules import DATASET_VERSION, INPUT_SOURCE, INPUT_SOURCE_BOTH, is_given


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
        if self.service_type != "V3" and not is_given(self.version_id):
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

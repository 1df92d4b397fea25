"""The account's training catalogue as returned: the public-pool flavors and the preset engines.

``GET /v2/{project_id}/training-job-flavors`` answers ``{total_count, flavors}`` (the official SDK's
``ShowTrainingJobFlavorsResponse``, items ``FlavorResponseWithSupport``: a job's ``flavor_detail`` plus what
the flavor supports); ``GET /v2/{project_id}/training-job-engines`` answers ``{total, items}``
(``ShowTrainingJobEnginesResponse``, items ``ListEnginesItems``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from .model_base import ResponseModel, none_as_empty_list
from .responses_spec import FlavorDetail


class OfferedFlavor(FlavorDetail):
    """A flavor the account may run training jobs on (``flavor_info.max_num``: the most nodes a job takes)."""

    support_engines: str | None = None
    support_groups: str | None = None


class FlavorListing(ResponseModel):
    total_count: int | None = None
    flavors: Annotated[list[OfferedFlavor], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)


class EngineImages(ResponseModel):
    """The images an engine runs: one for CPU flavors, one for GPU and NPU flavors (either may be empty)."""

    cpu_image_url: str | None = None
    gpu_image_url: str | None = None
    image_version: str | None = None


class OfferedEngine(ResponseModel):
    """A preset engine (``algorithm.engine`` takes its ``engine_id``, or its name with its version)."""

    engine_id: str | None = None
    engine_name: str | None = None
    engine_version: str | None = None
    v1_compatible: bool | None = None
    run_user: str | None = None
    image_info: EngineImages | None = None


class EngineListing(ResponseModel):
    total: int | None = None
    items: Annotated[list[OfferedEngine], BeforeValidator(none_as_empty_list)] = Field(default_factory=list)

"""The job search's request (``POST /v2/{project_id}/training-job-searches``): filters and tag conditions."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..phases import parse_phase
from .model_base import RequestModel, WholeNumber
from .rules import rule_error

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
            keys = ", ".join(SEARCH_FILTER_KEYS)
            raise rule_error(f"{where}: the service filters only by {keys}", at="key")
        if len(self.value) > SEARCH_FILTER_MAX_VALUES:
            raise rule_error(f"{where}: at most {SEARCH_FILTER_MAX_VALUES} values per filter", at="value")
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
            raise rule_error(f"search filter phase {info.data.get('operator')} {value}: {exc}") from None


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

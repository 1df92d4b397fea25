"""The scheduling part of ``spec``: node affinity, selector terms and the schedule policy."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from .model_base import RequestModel, WholeNumber
from .rules import AFFINITY_ONE, SELECTOR_TERM, SELECTOR_TERM_ONE, SELECTOR_VALUES


class NodeSelectorRequirement(RequestModel):
    """A condition on a node label or field."""

    key: str = Field(min_length=1, description="The label or field.")
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"] = Field(
        description=(
            "How the value relates to `values`: in the list, not in it, present, absent, greater or less "
            "than the one value."
        )
    )
    values: list[str] | None = Field(
        default=None,
        description=(
            "The values: at least one for `In` and `NotIn`, none for `Exists` and `DoesNotExist`, one whole "
            "number for `Gt` and `Lt`."
        ),
    )

    @model_validator(mode="after")
    def _values(self) -> NodeSelectorRequirement:
        values = self.values or []
        if self.operator in ("In", "NotIn") and not values:
            raise SELECTOR_VALUES.error(f"{self.operator} needs at least one value", at="values")
        if self.operator in ("Exists", "DoesNotExist") and values:
            raise SELECTOR_VALUES.error(f"leave values empty with {self.operator}", at="values")
        if self.operator in ("Gt", "Lt") and (len(values) != 1 or not re.fullmatch(r"-?\d+", values[0])):
            raise SELECTOR_VALUES.error(
                f"{self.operator} needs exactly one value, a whole number", at="values"
            )
        return self


class NodeSelectorTerm(RequestModel):
    """Conditions a node must meet: on its labels (`matchExpressions`) or its fields (`matchFields`)."""

    match_expressions: list[NodeSelectorRequirement] | None = Field(
        default=None, alias="matchExpressions", description="Conditions on node labels."
    )
    match_fields: list[NodeSelectorRequirement] | None = Field(
        default=None, alias="matchFields", description="Conditions on node fields."
    )

    @model_validator(mode="after")
    def _one_kind(self) -> NodeSelectorTerm:
        if self.match_expressions is None and self.match_fields is None:
            raise SELECTOR_TERM.error("give either matchExpressions or matchFields")
        if self.match_expressions is not None and self.match_fields is not None:
            SELECTOR_TERM_ONE.warn(
                self, "matchExpressions and matchFields both given: a node must meet both", at="matchFields"
            )
        return self


class NodeAffinity(RequestModel):
    """Nodes the job may run on."""

    node_selector_terms: list[NodeSelectorTerm] = Field(
        alias="nodeSelectorTerms",
        min_length=1,
        description="Node conditions; a node that meets any one of them will do.",
    )


class PreferredSchedulingTerm(RequestModel):
    """Nodes the scheduler prefers, with a weight."""

    weight: WholeNumber | None = Field(
        default=None, ge=1, le=100, description="Weight added to a node that meets `preference`."
    )
    preference: NodeSelectorTerm | None = Field(default=None, description="The node conditions.")


class PreferredAffinity(RequestModel):
    """Placement the scheduler tries for but may give up."""

    node_affinity: list[PreferredSchedulingTerm] | None = Field(
        default=None,
        description="Weighted node conditions; nodes with the highest sum of weights are preferred.",
    )


class RequiredAffinity(RequestModel):
    """Placement the scheduler must respect."""

    affinity_type: Literal["cabinet", "hyperinstance", "networkTopology"] | None = Field(
        default=None,
        description=(
            "`cabinet` (whole cabinets), `hyperinstance` (tasks grouped on supernodes) or `networkTopology` "
            "(tasks kept within a network level)."
        ),
    )
    job_level: Literal["cluster", "hyperinstanceGroup"] | None = Field(
        default=None,
        description="With `networkTopology`: the highest network level the whole job may span (`cluster`).",
    )
    affinity_group_size: WholeNumber | None = Field(
        default=None,
        ge=1,
        description="Tasks per group with `hyperinstance` or `networkTopology`; the service uses 1.",
    )
    affinity_group_level: str | None = Field(
        default=None,
        description=(
            "With `networkTopology`: the highest network level one group may span, such as `hyperinstance` "
            "or `slice`."
        ),
    )
    node_affinity: NodeAffinity | None = Field(default=None, description="Nodes the job may run on.")


class SchedulePolicy(RequestModel):
    """How the job is scheduled on a dedicated pool."""

    required_affinity: RequiredAffinity | None = Field(default=None, description="Placement rules.")
    preferred_affinity: PreferredAffinity | None = Field(default=None, description="Placement preferences.")
    priority: WholeNumber | None = Field(
        default=None,
        ge=0,
        le=3,
        description="Job priority on the pool; 3 is the highest (it needs a permission).",
    )
    preemptible: bool | None = Field(default=None, description="Whether other jobs may preempt this one.")

    @model_validator(mode="after")
    def _one_affinity(self) -> SchedulePolicy:
        if self.required_affinity is not None and self.preferred_affinity is not None:
            AFFINITY_ONE.warn(
                self,
                "required_affinity and preferred_affinity both given; the API pages show one at a time",
                at="preferred_affinity",
            )
        return self

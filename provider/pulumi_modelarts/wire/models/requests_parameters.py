"""The algorithm's run parameters (with their constraints), its auto-search settings and policies."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from .model_base import RequestModel


class Constraint(RequestModel):
    """Rules for a parameter's value, as algorithm management records them."""

    input_name: ClassVar[str] = "ParameterConstraint"

    type: str | None = Field(default=None, description="Value type, for example `String` or `Integer`.")
    editable: bool | None = Field(default=None, description="Whether the value may be changed.")
    required: bool | None = Field(default=None, description="Whether the parameter must be given.")
    sensitive: bool | None = Field(
        default=None, description="Whether the value is sensitive (not implemented by the service yet)."
    )
    valid_type: str | None = Field(
        default=None,
        description="How `valid_range` reads: `Choice` (allowed values), `Range` (bounds) or `None`.",
    )
    valid_range: list[str] | None = Field(default=None, description="The allowed values or the bounds.")


class I18nDescription(RequestModel):
    """A parameter's description in one language."""

    input_name: ClassVar[str] = "ParameterI18nDescription"

    language: str | None = Field(default=None, description="Language, `zh-cn` or `en-us`.")
    description: str | None = Field(default=None, description="The description in that language.")


class Parameter(RequestModel):
    """A running parameter (hyperparameter) passed to the training code.

    ``name`` is required: a nameless parameter cannot reach the job.
    """

    name: str = Field(min_length=1, description="Parameter name, as the training code reads it.")
    value: str | None = Field(default=None, description="Parameter value, as text.")
    description: str | None = Field(default=None, description="What the parameter means.")
    constraint: Constraint | None = Field(default=None, description="Rules for the value.")
    i18n_description: I18nDescription | None = Field(
        default=None, description="The description in another language."
    )


class RewardAttr(RequestModel):
    """A metric the hyperparameter search optimises."""

    input_name: ClassVar[str] = "AutoSearchRewardAttr"

    name: str | None = Field(default=None, description="Metric name.")
    mode: str | None = Field(default=None, description="`max` when larger is better, `min` when smaller is.")
    regex: str | None = Field(
        default=None, description="Regular expression that finds the metric in the logs."
    )


class SearchParam(RequestModel):
    """A hyperparameter the search varies."""

    input_name: ClassVar[str] = "AutoSearchParam"

    name: str | None = Field(default=None, description="Hyperparameter name.")
    param_type: str | None = Field(
        default=None, description="`continuous` (between the bounds) or `discrete` (from a list)."
    )
    lower_bound: str | None = Field(default=None, description="Lower bound of a continuous hyperparameter.")
    upper_bound: str | None = Field(default=None, description="Upper bound of a continuous hyperparameter.")
    discrete_points_num: str | None = Field(
        default=None, description="How many points of a continuous hyperparameter are tried."
    )
    discrete_values: list[str] | None = Field(
        default=None, description="The values of a discrete hyperparameter."
    )


class AlgoConfigParam(RequestModel):
    """A setting of a search algorithm."""

    input_name: ClassVar[str] = "AutoSearchAlgoConfigParam"

    key: str | None = Field(default=None, description="Setting name.")
    value: str | None = Field(default=None, description="Setting value.")
    type: str | None = Field(default=None, description="Setting type.")


class AlgoConfig(RequestModel):
    """A search algorithm and its settings."""

    input_name: ClassVar[str] = "AutoSearchAlgoConfig"

    name: str | None = Field(default=None, description="Search algorithm name.")
    params: list[AlgoConfigParam] | None = Field(default=None, description="Its settings.")


class AutoSearch(RequestModel):
    """Hyperparameter search (auto search jobs)."""

    skip_search_params: str | None = Field(
        default=None, description="Hyperparameter combinations to leave out."
    )
    reward_attrs: list[RewardAttr] | None = Field(default=None, description="The metrics to optimise.")
    search_params: list[SearchParam] | None = Field(default=None, description="The hyperparameters to vary.")
    algo_configs: list[AlgoConfig] | None = Field(default=None, description="The search algorithms.")


class Policies(RequestModel):
    """Policies of the algorithm."""

    auto_search: AutoSearch | None = Field(default=None, description="Hyperparameter search.")

"""Not wire fields, but part of the ``TrainingJob`` resource's shape: ``ProviderSettings`` (inputs beside
the create request) and ``ResourceOutputs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..wire.models.tag_models import tag_problems
from . import setting_values

# ----------------------------------------------------------------------------------------------------
# Provider settings and resource outputs: not wire fields, but part of the resource's shape.


class ProviderSettings(BaseModel):
    """Inputs beside the create request body: settings that steer the provider, and the job's tags (sent by
    the tag calls, not the create).

    The one place their defaults are written; generated into ``fields.SETTING_DEFAULTS``. ``check`` validates
    them (``setting_values`` parses ``wait_for`` and ``wait_timeout``); a change to ``triggers`` replaces the
    job.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    wait_for: Literal["none", "pending", "running", "completed"] = Field(
        default="pending",
        description=(
            "How far a new job must get before the deployment goes on (`pending`: past Creating). A job that "
            "fails or times out while waited on is terminated and reported."
        ),
    )
    wait_timeout: float | str = Field(
        default="30m",
        description=(
            'Longest wait for `wait_for`: seconds, or a duration such as `"90s"`, `"30m"` or `"1h30m"`.'
        ),
    )
    triggers: Any = Field(
        default=None,
        description="Any value; changing it replaces the job (like `keepers` in pulumi-random).",
        json_schema_extra={"replaces": True},
    )
    replace_when_failed: bool = Field(
        default=False,
        description=(
            "When the phase last stored (after create or refresh) is Failed, Abnormal or CreateFailed, the "
            "next `up` replaces the job."
        ),
    )
    name_prefix: str | None = Field(
        default=None,
        description="Prefix of the generated job name; the resource name when left out. Ignored once the job "
        "has a name.",
    )
    on_destroy: Literal["terminate", "delete"] = Field(
        default="terminate",
        description=(
            "What destroy (and the delete half of a replacement) does with the job: `terminate` stops it "
            "and keeps its record (logs stay readable, the name stays taken); `delete` stops it, waits for "
            "a final phase, then deletes the record (the name is free again). A job already gone counts as "
            "done. A change is an update of the state only, with no call to ModelArts. To leave a job "
            "running on destroy, use Pulumi's `retainOnDelete` option."
        ),
    )
    keep_record: bool = Field(
        default=True,
        description=(
            "The older spelling of `on_destroy`: `false` is `on_destroy: delete`. Both may be set only when "
            "they agree."
        ),
        json_schema_extra={"deprecated": "Use on_destroy: `keep_record: false` is `on_destroy: delete`."},
    )
    tags: dict[str, str] | None = Field(
        default=None,
        description=(
            "Tags of the job (key to value), for cost allocation and ownership on a shared account. They "
            "change in place (only the keys added, changed or removed are sent) and are read back on "
            "refresh and import. Left out, the job's tags are not managed (neither set nor read). The "
            "service's rules (TMS tags, as the official SDK's `TmsTag` documents them): at most 20 tags; a "
            "key has 1 to 128 characters (letters of any language, digits, spaces and `_ . : = + - @`), "
            "neither starts nor ends with a space and does not start with `_sys_`; a value has at most 255 "
            "characters (letters of any language, digits, spaces and `_ . : / = + - @`)."
        ),
    )
    show_logs: bool = Field(
        default=True,
        description=(
            "While a create waits for the job to complete (`wait_for: completed`), show the newest line of "
            "its log on its row (read at most every 30 s; credentials and environment values hidden). "
            "`false` turns it off."
        ),
    )
    name_scope: str | None = Field(
        default=None,
        description=(
            "The Pulumi project and stack (`project/stack`) the job belongs to, part of the generated name's "
            "hash so two stacks never share names. Set by the resource itself, not by users."
        ),
        json_schema_extra={"hidden": True},
    )

    # The rules the provider applies to its settings (setting_values' parsers), so check reports what create
    # and the wait would refuse; the values stay as declared.
    @field_validator("wait_for", mode="before")
    @classmethod
    def _wait_for_choice(cls, value: object) -> str:
        return setting_values.parse_wait_for(value)

    @field_validator("wait_timeout", mode="before")
    @classmethod
    def _wait_timeout_duration(cls, value: object) -> object:
        setting_values.parse_duration(value)
        return value

    @field_validator("on_destroy", mode="before")
    @classmethod
    def _on_destroy_choice(cls, value: object) -> str:
        return setting_values.parse_on_destroy(value)

    @model_validator(mode="after")
    def _one_answer_for_destroy(self) -> ProviderSettings:
        both = {"on_destroy", "keep_record"} <= self.model_fields_set
        if both and (self.on_destroy == "delete") == self.keep_record:
            raise ValueError(
                f"on_destroy {self.on_destroy!r} and keep_record {str(self.keep_record).lower()} disagree; "
                "keep_record is the older spelling of on_destroy: set on_destroy alone"
            )
        return self

    @field_validator("tags", mode="before")
    @classmethod
    def _service_tags(cls, value: object) -> object:
        if value is None:
            return value
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise ValueError("must be a map of text keys to text values")
        problems_found = tag_problems(value)
        if problems_found:
            raise ValueError("; ".join(problems_found))
        return value

    @field_validator("replace_when_failed", "show_logs", "keep_record", mode="before")
    @classmethod
    def _replace_when_failed_flag(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value


class ResourceOutputs(BaseModel):
    """What a ``TrainingJob`` reports after create, update and refresh (``provider.job_outputs``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    kind: str = Field(description="Job type.")
    metadata: dict[str, Any] = Field(
        description=(
            "Metadata as the service returns it: id, name (also a generated one), description, create_time..."
        )
    )
    name: str = Field(description="The job's name.")
    status: dict[str, Any] = Field(
        description=(
            "phase, secondary_phase, duration (ms), start_time, tasks, task_statuses, running_records."
        )
    )
    phase: str = Field(
        description=(
            "Level-1 phase as last seen (Creating, Pending, Running, Completed, Failed, Terminated, ...)."
        )
    )
    secondary_phase: str = Field(description="Level-2 phase as last seen.")
    algorithm: dict[str, Any] = Field(
        description="The algorithm as the service returns it, without environment variables."
    )
    spec: dict[str, Any] = Field(
        description="The spec as the service returns it (flavor details, log path, volumes...)."
    )
    tasks: list[dict[str, Any]] = Field(description="Tasks of a heterogeneous job, as returned.")
    endpoints: dict[str, Any] = Field(
        description="Remote access endpoints (SSH, JupyterLab, TensorBoard), with tokens.",
        json_schema_extra={"secret": True},
    )
    environments: dict[str, str] = Field(
        description="Environment variables of the job.", json_schema_extra={"secret": True}
    )
    tags: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "The job's tags as the service last reported them (read only when `tags` is declared, and on "
            "import)."
        ),
    )
    declared_inputs: dict[str, Any] = Field(
        description="The inputs as declared (normalised); what changes are judged against.",
        json_schema_extra={"secret": True, "holds_inputs": True},
    )

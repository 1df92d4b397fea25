"""The create request's ``algorithm``: its engine, environment variables and where its code comes from."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Final

import annotated_types
from pydantic import AfterValidator, Field, model_validator

from .model_base import RequestModel
from .requests_data import AlgorithmSummary, Input, Output
from .requests_parameters import Parameter, Policies
from .rules import (
    ALGORITHM_OWN_CODE,
    ALGORITHM_SOURCE,
    CODE_PAIR,
    COMMAND_CUSTOM_IMAGE,
    ENGINE_CHOICE,
    ENGINE_FOR_CODE,
    ENGINE_ID_ALONE,
    ENGINE_NAME_VERSION,
    ENGINE_VERSION_NAME,
    ENV_NAME,
    ENV_NAME_SHAPE,
    INSTALL_SYS_PACKAGES,
    ONE_ALGORITHM,
    SOMETHING_TO_START,
    SUBSCRIPTION_PAIR,
    InputRule,
    is_given,
)


class Engine(RequestModel):
    """The engine (framework image) the job runs on: `engine_id`; or `engine_name` with `engine_version`; or a
    custom `image_url`, alone or on top of a preset `engine_name` (and `engine_version`).

    With ``engine_id`` the API pages say the other three stay blank; the service accepts them (Huawei's
    Terraform acceptance tests send engine_name and engine_version beside it), so that is a warning
    (``INPUT_RULES``), as is every other pairing advice here. An engine naming none of them is an error.
    """

    engine_id: str | None = Field(default=None, description="Preset engine id; leave the other fields blank.")
    engine_name: str | None = Field(default=None, description="Preset engine name, with `engine_version`.")
    engine_version: str | None = Field(default=None, description="Version of the preset engine.")
    image_url: str | None = Field(
        default=None, description="Custom image from SWR, for example `org/image:tag`."
    )

    install_sys_packages: bool | None = Field(
        default=None,
        description=(
            "Whether to install the MoXing version the training platform chooses; only for a custom image on "
            "a preset engine (`engine_name`, `engine_version` and `image_url`)."
        ),
    )
    image_repo_id: str | None = Field(
        default=None, description="Instance id of the SWR enterprise repository the image comes from."
    )

    @model_validator(mode="after")
    def _one_engine(self) -> Engine:
        _check_engine(self, self.engine_id, self.engine_name, self.engine_version, self.image_url)
        if self.install_sys_packages and not (
            is_given(self.engine_name) and is_given(self.engine_version) and is_given(self.image_url)
        ):
            INSTALL_SYS_PACKAGES.warn(
                self,
                "the official SDK supports install_sys_packages only with engine_name, engine_version and "
                "image_url; the service may ignore it here",
                at="install_sys_packages",
            )
        return self

    @property
    def is_custom_image(self) -> bool:
        """True when the job runs the user's own image (``image_url``)."""
        return is_given(self.image_url)


def _check_engine(
    engine: RequestModel,
    engine_id: str | None,
    engine_name: str | None,
    engine_version: str | None,
    image_url: str | None,
) -> None:
    if is_given(engine_id):
        for field, value in (
            ("engine_name", engine_name),
            ("engine_version", engine_version),
            ("image_url", image_url),
        ):
            if is_given(value):
                ENGINE_ID_ALONE.warn(
                    engine,
                    f"{field} is not needed when engine_id is set: engine_id chooses the engine (the API "
                    f"pages say to leave it blank); it is sent as written",
                    at=field,
                )
        return
    if is_given(engine_version) and not is_given(engine_name):
        ENGINE_VERSION_NAME.warn(
            engine,
            "the API pages choose a preset engine by engine_name with engine_version",
            at="engine_name",
        )
    if is_given(engine_name) and not (is_given(engine_version) or is_given(image_url)):
        ENGINE_NAME_VERSION.warn(
            engine,
            "the API pages choose a preset engine by engine_name with engine_version (or run a custom "
            "image_url on it)",
            at="engine_version",
        )
    if not (is_given(engine_name) or is_given(engine_version) or is_given(image_url)):
        raise ENGINE_CHOICE.error("give engine_id, engine_name with engine_version, or image_url")


def _env_name(name: str) -> str:
    # What no process could receive as written (ENV_NAME); reported on the key, as the user wrote it.
    if not name:
        raise ENV_NAME.error("must not be empty: an environment variable needs a name")
    if "=" in name:
        raise ENV_NAME.error("must not contain '=': a process reads a variable's name up to the first '='")
    if "\x00" in name:
        raise ENV_NAME.error(
            "must not contain the NUL character, which ends a variable in a process's environment"
        )
    return name


_ADVISED_ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def advise_env_names(model: RequestModel, environments: Mapping[str, str] | None) -> None:
    for name in environments or {}:
        if not _ADVISED_ENV_NAME.fullmatch(name):
            ENV_NAME_SHAPE.warn(
                model,
                "the official SDK advises names of letters, digits and _ that do not start with a digit (a "
                "shell cannot refer to this one); it is sent as written",
                at=("environments", name),
            )


# Environment variable names and values (the official SDK's limits for the job's algorithm; a task's
# environments have none stated).
EnvName = Annotated[str, annotated_types.MaxLen(8192), AfterValidator(_env_name)]
EnvValue = Annotated[str, annotated_types.MaxLen(4096)]
TaskEnvName = Annotated[str, AfterValidator(_env_name)]


class Algorithm(RequestModel):
    """What the job runs. Exactly one source: an algorithm `id`; a subscribed algorithm (`subscription_id`
    with `item_version_id`); or your own code or image: an `engine` with `code_dir` and `boot_file`, and/or
    a `command` (custom images only).

    With the first two sources the API pages say ``code_dir``, ``boot_file``, ``engine`` and ``command`` stay
    blank; the service accepts them (Huawei's Terraform acceptance tests send an id with code_dir and
    boot_file), so that is a warning (``INPUT_RULES``). ``environments`` is a map of variable name to text
    value.
    """

    id: str | None = Field(default=None, description="Algorithm id from algorithm management.")
    name: str | None = Field(
        default=None,
        description="Algorithm name; the API pages say to leave it blank.",
        json_schema_extra={"service_set": True},
    )
    subscription_id: str | None = Field(
        default=None, description="Subscription id of a subscribed algorithm, with `item_version_id`."
    )
    item_version_id: str | None = Field(
        default=None, description="Version of the subscribed algorithm, with `subscription_id`."
    )
    code_dir: str | None = Field(
        default=None, description="Code directory (an OBS path such as `/bucket/app/`), with `boot_file`."
    )
    boot_file: str | None = Field(
        default=None, description="Boot file inside `code_dir`, for example `/bucket/app/train.py`."
    )
    autosearch_config_path: str | None = Field(
        default=None, description="OBS path of the YAML configuration of an auto search job."
    )
    autosearch_framework_path: str | None = Field(
        default=None, description="OBS path of the framework code of an auto search job."
    )
    command: str | None = Field(
        default=None,
        description="Start command of a custom image's container, for example `python train.py`.",
    )
    parameters: list[Parameter] | None = Field(
        default=None, description="Running parameters (hyperparameters)."
    )
    policies: Policies | None = Field(default=None, description="Policies: hyperparameter search.")
    inputs: list[Input] | None = Field(default=None, description="Data input channels.")
    outputs: list[Output] | None = Field(default=None, description="Data output channels.")
    engine: Engine | None = Field(default=None, description="Engine or custom image to run your own code on.")
    local_code_dir: str | None = Field(
        default=None,
        description=(
            "Container directory the code is downloaded to; must be under `/home` (not `/home/ma-user` "
            "itself, nor `/home/ma-user/modelarts`, `/home/ma-user/modelarts-dev` or `/home/ma-user/infer`)."
        ),
    )
    working_dir: str | None = Field(default=None, description="Directory the algorithm runs in.")
    environments: dict[EnvName, EnvValue] | None = Field(
        default=None,
        max_length=100,
        description=(
            "Environment variables of the job, name to text value (names of letters, digits and `_`, not "
            "starting with a digit; `$` does not refer to other variables). Stored as a secret; shown only "
            "in the secret `environments` output."
        ),
        json_schema_extra={"secret": True},
    )
    summary: AlgorithmSummary | None = Field(default=None, description="Visualisation logs.")

    @model_validator(mode="after")
    def _env_names(self) -> Algorithm:
        advise_env_names(self, self.environments)
        return self

    @model_validator(mode="after")
    def _one_source(self) -> Algorithm:
        check_pair(
            self,
            SUBSCRIPTION_PAIR,
            self.subscription_id,
            "subscription_id",
            self.item_version_id,
            "item_version_id",
        )
        # code_dir with a command and no boot_file is a real, accepted request (a custom image's job).
        if is_given(self.code_dir) and not is_given(self.boot_file) and not is_given(self.command):
            CODE_PAIR.warn(self, "the API pages use boot_file together with code_dir", at="boot_file")
        if is_given(self.boot_file) and not is_given(self.code_dir):
            CODE_PAIR.warn(self, "the API pages use code_dir together with boot_file", at="code_dir")
        by_id = is_given(self.id)
        by_subscription = is_given(self.subscription_id) or is_given(self.item_version_id)
        if by_id and by_subscription:
            ONE_ALGORITHM.warn(
                self,
                "the API pages take either id or subscription_id with item_version_id, not both; which one "
                "the service runs is not documented",
                at="subscription_id",
            )
        if by_id or by_subscription:
            source = "id" if by_id else "subscription_id"
            for field, value in (
                ("code_dir", self.code_dir),
                ("boot_file", self.boot_file),
                ("command", self.command),
                ("engine", self.engine),
            ):
                if is_given(value):
                    ALGORITHM_OWN_CODE.warn(
                        self,
                        f"{field} is not needed when the algorithm is given by {source}: the algorithm "
                        f"brings its own (the API pages say to leave it blank); it is sent as written",
                        at=field,
                    )
            return self
        has_code = is_given(self.code_dir) or is_given(self.boot_file)
        has_command = is_given(self.command)
        if self.engine is None:
            if has_code or has_command:
                raise ENGINE_FOR_CODE.error(
                    "an engine is required to run your own code or command", at="engine"
                )
            raise ALGORITHM_SOURCE.error(
                "choose an algorithm: id, subscription_id with item_version_id, "
                "or an engine with code_dir and boot_file (or a command)"
            )
        if has_command and not self.engine.is_custom_image:
            COMMAND_CUSTOM_IMAGE.warn(
                self,
                "the API pages use command to start a custom image (engine.image_url); on a preset engine "
                "the service may ignore it",
                at="command",
            )
        if not (has_code or has_command):
            if self.engine.is_custom_image:
                SOMETHING_TO_START.warn(
                    self,
                    "the API pages start a custom image with a command (or code_dir with boot_file); without "
                    "one what runs is up to the service",
                    at="command",
                )
            else:
                SOMETHING_TO_START.warn(
                    self,
                    "the API pages run code_dir with boot_file on a preset engine; without them what runs is "
                    "up to the service",
                    at="code_dir",
                )
        return self


def check_pair(
    model: RequestModel, rule: InputRule, first: object, first_name: str, second: object, second_name: str
) -> None:
    if is_given(first) and not is_given(second):
        rule.warn(model, f"the API pages use {second_name} together with {first_name}", at=second_name)
    if is_given(second) and not is_given(first):
        rule.warn(model, f"the API pages use {first_name} together with {second_name}", at=first_name)

"""Typed inputs of ``TrainingJob``, in the style of generated Pulumi SDKs.

Every nested object has an ``...Args`` class (keyword-only constructor) and an ``...ArgsDict`` TypedDict, so
plain dicts type-check too. Field names are the ModelArts create-request names. Generated once from a field
table and kept in step with ``models.py`` by tests/test_inputs.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import pulumi
from typing_extensions import NotRequired, TypedDict

# ruff: noqa: UP007, UP045  (Optional/Union spelled out, as generated SDKs do, for older type checkers)


class TrainingJobMetadataArgsDict(TypedDict):
    """``metadata``: the job's name, description and annotations."""

    name: NotRequired[pulumi.Input[str]]
    """
    Job name: 1-64 letters, digits, '_' or '-'. Leave it out to get ``<name_prefix>-<6 random characters>``;
    the chosen name is kept across updates. Changing it replaces the job.
    """
    description: NotRequired[pulumi.Input[str]]
    """Description (at most 256 characters). The only field changed in place on an existing job."""
    workspace_id: NotRequired[pulumi.Input[str]]
    """Workspace of the job (the service defaults to "0")."""
    annotations: NotRequired[pulumi.Input[Mapping[str, str]]]
    """
    Advanced settings as key/value text (for example ``job_template``); keys starting ``emulator/`` steer the
    embedded emulator.
    """


@pulumi.input_type
class TrainingJobMetadataArgs:
    """``metadata``: the job's name, description and annotations."""

    def __init__(
        __self__,
        *,
        name: Optional[pulumi.Input[str]] = None,
        description: Optional[pulumi.Input[str]] = None,
        workspace_id: Optional[pulumi.Input[str]] = None,
        annotations: Optional[pulumi.Input[Mapping[str, str]]] = None,
    ) -> None:
        if name is not None:
            pulumi.set(__self__, "name", name)
        if description is not None:
            pulumi.set(__self__, "description", description)
        if workspace_id is not None:
            pulumi.set(__self__, "workspace_id", workspace_id)
        if annotations is not None:
            pulumi.set(__self__, "annotations", annotations)

    @property
    @pulumi.getter
    def name(self) -> Optional[pulumi.Input[str]]:
        """
        Job name: 1-64 letters, digits, '_' or '-'. Leave it out to get ``<name_prefix>-<6 random
        characters>``; the chosen name is kept across updates. Changing it replaces the job.
        """
        return pulumi.get(self, "name")  # type: ignore[no-any-return]

    @name.setter
    def name(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "name", value)

    @property
    @pulumi.getter
    def description(self) -> Optional[pulumi.Input[str]]:
        """Description (at most 256 characters). The only field changed in place on an existing job."""
        return pulumi.get(self, "description")  # type: ignore[no-any-return]

    @description.setter
    def description(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "description", value)

    @property
    @pulumi.getter
    def workspace_id(self) -> Optional[pulumi.Input[str]]:
        """Workspace of the job (the service defaults to "0")."""
        return pulumi.get(self, "workspace_id")  # type: ignore[no-any-return]

    @workspace_id.setter
    def workspace_id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "workspace_id", value)

    @property
    @pulumi.getter
    def annotations(self) -> Optional[pulumi.Input[Mapping[str, str]]]:
        """
        Advanced settings as key/value text (for example ``job_template``); keys starting ``emulator/`` steer
        the embedded emulator.
        """
        return pulumi.get(self, "annotations")  # type: ignore[no-any-return]

    @annotations.setter
    def annotations(self, value: Optional[pulumi.Input[Mapping[str, str]]]) -> None:
        pulumi.set(self, "annotations", value)


class TrainingJobEngineArgsDict(TypedDict):
    """``algorithm.engine``: engine_id; or engine_name with engine_version; or a custom image_url."""

    engine_id: NotRequired[pulumi.Input[str]]
    """Preset engine id (leave the other fields blank)."""
    engine_name: NotRequired[pulumi.Input[str]]
    """Preset engine name, with engine_version."""
    engine_version: NotRequired[pulumi.Input[str]]
    """Preset engine version."""
    image_url: NotRequired[pulumi.Input[str]]
    """Custom image (SWR path such as ``org/image:tag``)."""


@pulumi.input_type
class TrainingJobEngineArgs:
    """``algorithm.engine``: engine_id; or engine_name with engine_version; or a custom image_url."""

    def __init__(
        __self__,
        *,
        engine_id: Optional[pulumi.Input[str]] = None,
        engine_name: Optional[pulumi.Input[str]] = None,
        engine_version: Optional[pulumi.Input[str]] = None,
        image_url: Optional[pulumi.Input[str]] = None,
    ) -> None:
        if engine_id is not None:
            pulumi.set(__self__, "engine_id", engine_id)
        if engine_name is not None:
            pulumi.set(__self__, "engine_name", engine_name)
        if engine_version is not None:
            pulumi.set(__self__, "engine_version", engine_version)
        if image_url is not None:
            pulumi.set(__self__, "image_url", image_url)

    @property
    @pulumi.getter
    def engine_id(self) -> Optional[pulumi.Input[str]]:
        """Preset engine id (leave the other fields blank)."""
        return pulumi.get(self, "engine_id")  # type: ignore[no-any-return]

    @engine_id.setter
    def engine_id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "engine_id", value)

    @property
    @pulumi.getter
    def engine_name(self) -> Optional[pulumi.Input[str]]:
        """Preset engine name, with engine_version."""
        return pulumi.get(self, "engine_name")  # type: ignore[no-any-return]

    @engine_name.setter
    def engine_name(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "engine_name", value)

    @property
    @pulumi.getter
    def engine_version(self) -> Optional[pulumi.Input[str]]:
        """Preset engine version."""
        return pulumi.get(self, "engine_version")  # type: ignore[no-any-return]

    @engine_version.setter
    def engine_version(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "engine_version", value)

    @property
    @pulumi.getter
    def image_url(self) -> Optional[pulumi.Input[str]]:
        """Custom image (SWR path such as ``org/image:tag``)."""
        return pulumi.get(self, "image_url")  # type: ignore[no-any-return]

    @image_url.setter
    def image_url(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "image_url", value)


class TrainingJobParameterArgsDict(TypedDict):
    """``algorithm.parameters[]``: a running parameter passed to the training code."""

    name: pulumi.Input[str]
    """Parameter name."""
    value: NotRequired[pulumi.Input[str]]
    """Parameter value (text)."""
    description: NotRequired[pulumi.Input[str]]
    """Parameter description."""
    constraint: NotRequired[pulumi.Input[Mapping[str, Any]]]
    """Constraint (type, editable, required, sensitive, valid_type, valid_range)."""
    i18n_description: NotRequired[pulumi.Input[Mapping[str, Any]]]
    """Internationalised description (language, description)."""


@pulumi.input_type
class TrainingJobParameterArgs:
    """``algorithm.parameters[]``: a running parameter passed to the training code."""

    def __init__(
        __self__,
        *,
        name: pulumi.Input[str],
        value: Optional[pulumi.Input[str]] = None,
        description: Optional[pulumi.Input[str]] = None,
        constraint: Optional[pulumi.Input[Mapping[str, Any]]] = None,
        i18n_description: Optional[pulumi.Input[Mapping[str, Any]]] = None,
    ) -> None:
        pulumi.set(__self__, "name", name)
        if value is not None:
            pulumi.set(__self__, "value", value)
        if description is not None:
            pulumi.set(__self__, "description", description)
        if constraint is not None:
            pulumi.set(__self__, "constraint", constraint)
        if i18n_description is not None:
            pulumi.set(__self__, "i18n_description", i18n_description)

    @property
    @pulumi.getter
    def name(self) -> pulumi.Input[str]:
        """Parameter name."""
        return pulumi.get(self, "name")  # type: ignore[no-any-return]

    @name.setter
    def name(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "name", value)

    @property
    @pulumi.getter
    def value(self) -> Optional[pulumi.Input[str]]:
        """Parameter value (text)."""
        return pulumi.get(self, "value")  # type: ignore[no-any-return]

    @value.setter
    def value(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "value", value)

    @property
    @pulumi.getter
    def description(self) -> Optional[pulumi.Input[str]]:
        """Parameter description."""
        return pulumi.get(self, "description")  # type: ignore[no-any-return]

    @description.setter
    def description(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "description", value)

    @property
    @pulumi.getter
    def constraint(self) -> Optional[pulumi.Input[Mapping[str, Any]]]:
        """Constraint (type, editable, required, sensitive, valid_type, valid_range)."""
        return pulumi.get(self, "constraint")  # type: ignore[no-any-return]

    @constraint.setter
    def constraint(self, value: Optional[pulumi.Input[Mapping[str, Any]]]) -> None:
        pulumi.set(self, "constraint", value)

    @property
    @pulumi.getter
    def i18n_description(self) -> Optional[pulumi.Input[Mapping[str, Any]]]:
        """Internationalised description (language, description)."""
        return pulumi.get(self, "i18n_description")  # type: ignore[no-any-return]

    @i18n_description.setter
    def i18n_description(self, value: Optional[pulumi.Input[Mapping[str, Any]]]) -> None:
        pulumi.set(self, "i18n_description", value)


class TrainingJobDatasetArgsDict(TypedDict):
    """A dataset version used as input data."""

    id: pulumi.Input[str]
    """Dataset id."""
    version_id: pulumi.Input[str]
    """Dataset version id."""


@pulumi.input_type
class TrainingJobDatasetArgs:
    """A dataset version used as input data."""

    def __init__(
        __self__,
        *,
        id: pulumi.Input[str],
        version_id: pulumi.Input[str],
    ) -> None:
        pulumi.set(__self__, "id", id)
        pulumi.set(__self__, "version_id", version_id)

    @property
    @pulumi.getter
    def id(self) -> pulumi.Input[str]:
        """Dataset id."""
        return pulumi.get(self, "id")  # type: ignore[no-any-return]

    @id.setter
    def id(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "id", value)

    @property
    @pulumi.getter
    def version_id(self) -> pulumi.Input[str]:
        """Dataset version id."""
        return pulumi.get(self, "version_id")  # type: ignore[no-any-return]

    @version_id.setter
    def version_id(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "version_id", value)


class TrainingJobObsArgsDict(TypedDict):
    """An OBS location."""

    obs_url: pulumi.Input[str]
    """OBS path, for example ``/bucket/data/``."""


@pulumi.input_type
class TrainingJobObsArgs:
    """An OBS location."""

    def __init__(
        __self__,
        *,
        obs_url: pulumi.Input[str],
    ) -> None:
        pulumi.set(__self__, "obs_url", obs_url)

    @property
    @pulumi.getter
    def obs_url(self) -> pulumi.Input[str]:
        """OBS path, for example ``/bucket/data/``."""
        return pulumi.get(self, "obs_url")  # type: ignore[no-any-return]

    @obs_url.setter
    def obs_url(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "obs_url", value)


class TrainingJobInputRemoteArgsDict(TypedDict):
    """Where an input's data comes from: exactly one of dataset or obs."""

    dataset: NotRequired[pulumi.Input[Union[TrainingJobDatasetArgs, TrainingJobDatasetArgsDict]]]
    """A dataset version."""
    obs: NotRequired[pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]]
    """An OBS path."""


@pulumi.input_type
class TrainingJobInputRemoteArgs:
    """Where an input's data comes from: exactly one of dataset or obs."""

    def __init__(
        __self__,
        *,
        dataset: Optional[pulumi.Input[Union[TrainingJobDatasetArgs, TrainingJobDatasetArgsDict]]] = None,
        obs: Optional[pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]] = None,
    ) -> None:
        if dataset is not None:
            pulumi.set(__self__, "dataset", dataset)
        if obs is not None:
            pulumi.set(__self__, "obs", obs)

    @property
    @pulumi.getter
    def dataset(self) -> Optional[pulumi.Input[Union[TrainingJobDatasetArgs, TrainingJobDatasetArgsDict]]]:
        """A dataset version."""
        return pulumi.get(self, "dataset")  # type: ignore[no-any-return]

    @dataset.setter
    def dataset(
        self, value: Optional[pulumi.Input[Union[TrainingJobDatasetArgs, TrainingJobDatasetArgsDict]]]
    ) -> None:
        pulumi.set(self, "dataset", value)

    @property
    @pulumi.getter
    def obs(self) -> Optional[pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]]:
        """An OBS path."""
        return pulumi.get(self, "obs")  # type: ignore[no-any-return]

    @obs.setter
    def obs(self, value: Optional[pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]]) -> None:
        pulumi.set(self, "obs", value)


class TrainingJobInputArgsDict(TypedDict):
    """``algorithm.inputs[]``: a data input channel."""

    name: pulumi.Input[str]
    """Channel name."""
    remote: pulumi.Input[Union[TrainingJobInputRemoteArgs, TrainingJobInputRemoteArgsDict]]
    """Where the data comes from."""
    description: NotRequired[pulumi.Input[str]]
    """Channel description."""
    local_dir: NotRequired[pulumi.Input[str]]
    """Directory in the container the data is mapped to."""
    remote_constraint: NotRequired[pulumi.Input[Sequence[Mapping[str, str]]]]
    """Data constraints (data_type, attributes)."""


@pulumi.input_type
class TrainingJobInputArgs:
    """``algorithm.inputs[]``: a data input channel."""

    def __init__(
        __self__,
        *,
        name: pulumi.Input[str],
        remote: pulumi.Input[Union[TrainingJobInputRemoteArgs, TrainingJobInputRemoteArgsDict]],
        description: Optional[pulumi.Input[str]] = None,
        local_dir: Optional[pulumi.Input[str]] = None,
        remote_constraint: Optional[pulumi.Input[Sequence[Mapping[str, str]]]] = None,
    ) -> None:
        pulumi.set(__self__, "name", name)
        pulumi.set(__self__, "remote", remote)
        if description is not None:
            pulumi.set(__self__, "description", description)
        if local_dir is not None:
            pulumi.set(__self__, "local_dir", local_dir)
        if remote_constraint is not None:
            pulumi.set(__self__, "remote_constraint", remote_constraint)

    @property
    @pulumi.getter
    def name(self) -> pulumi.Input[str]:
        """Channel name."""
        return pulumi.get(self, "name")  # type: ignore[no-any-return]

    @name.setter
    def name(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "name", value)

    @property
    @pulumi.getter
    def remote(self) -> pulumi.Input[Union[TrainingJobInputRemoteArgs, TrainingJobInputRemoteArgsDict]]:
        """Where the data comes from."""
        return pulumi.get(self, "remote")  # type: ignore[no-any-return]

    @remote.setter
    def remote(
        self, value: pulumi.Input[Union[TrainingJobInputRemoteArgs, TrainingJobInputRemoteArgsDict]]
    ) -> None:
        pulumi.set(self, "remote", value)

    @property
    @pulumi.getter
    def description(self) -> Optional[pulumi.Input[str]]:
        """Channel description."""
        return pulumi.get(self, "description")  # type: ignore[no-any-return]

    @description.setter
    def description(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "description", value)

    @property
    @pulumi.getter
    def local_dir(self) -> Optional[pulumi.Input[str]]:
        """Directory in the container the data is mapped to."""
        return pulumi.get(self, "local_dir")  # type: ignore[no-any-return]

    @local_dir.setter
    def local_dir(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "local_dir", value)

    @property
    @pulumi.getter
    def remote_constraint(self) -> Optional[pulumi.Input[Sequence[Mapping[str, str]]]]:
        """Data constraints (data_type, attributes)."""
        return pulumi.get(self, "remote_constraint")  # type: ignore[no-any-return]

    @remote_constraint.setter
    def remote_constraint(self, value: Optional[pulumi.Input[Sequence[Mapping[str, str]]]]) -> None:
        pulumi.set(self, "remote_constraint", value)


class TrainingJobOutputRemoteArgsDict(TypedDict):
    """Where an output channel's data goes."""

    obs: pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]
    """The OBS path data is exported to."""


@pulumi.input_type
class TrainingJobOutputRemoteArgs:
    """Where an output channel's data goes."""

    def __init__(
        __self__,
        *,
        obs: pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]],
    ) -> None:
        pulumi.set(__self__, "obs", obs)

    @property
    @pulumi.getter
    def obs(self) -> pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]:
        """The OBS path data is exported to."""
        return pulumi.get(self, "obs")  # type: ignore[no-any-return]

    @obs.setter
    def obs(self, value: pulumi.Input[Union[TrainingJobObsArgs, TrainingJobObsArgsDict]]) -> None:
        pulumi.set(self, "obs", value)


class TrainingJobOutputArgsDict(TypedDict):
    """``algorithm.outputs[]``: a data output channel."""

    name: pulumi.Input[str]
    """Channel name."""
    remote: pulumi.Input[Union[TrainingJobOutputRemoteArgs, TrainingJobOutputRemoteArgsDict]]
    """Where the data goes."""
    description: NotRequired[pulumi.Input[str]]
    """Channel description."""
    local_dir: NotRequired[pulumi.Input[str]]
    """Directory in the container the channel is mapped to."""
    mode: NotRequired[pulumi.Input[str]]
    """Upload mode (for example ``upload_periodically``)."""
    period: NotRequired[pulumi.Input[str]]
    """Upload period (for example ``30s``)."""


@pulumi.input_type
class TrainingJobOutputArgs:
    """``algorithm.outputs[]``: a data output channel."""

    def __init__(
        __self__,
        *,
        name: pulumi.Input[str],
        remote: pulumi.Input[Union[TrainingJobOutputRemoteArgs, TrainingJobOutputRemoteArgsDict]],
        description: Optional[pulumi.Input[str]] = None,
        local_dir: Optional[pulumi.Input[str]] = None,
        mode: Optional[pulumi.Input[str]] = None,
        period: Optional[pulumi.Input[str]] = None,
    ) -> None:
        pulumi.set(__self__, "name", name)
        pulumi.set(__self__, "remote", remote)
        if description is not None:
            pulumi.set(__self__, "description", description)
        if local_dir is not None:
            pulumi.set(__self__, "local_dir", local_dir)
        if mode is not None:
            pulumi.set(__self__, "mode", mode)
        if period is not None:
            pulumi.set(__self__, "period", period)

    @property
    @pulumi.getter
    def name(self) -> pulumi.Input[str]:
        """Channel name."""
        return pulumi.get(self, "name")  # type: ignore[no-any-return]

    @name.setter
    def name(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "name", value)

    @property
    @pulumi.getter
    def remote(self) -> pulumi.Input[Union[TrainingJobOutputRemoteArgs, TrainingJobOutputRemoteArgsDict]]:
        """Where the data goes."""
        return pulumi.get(self, "remote")  # type: ignore[no-any-return]

    @remote.setter
    def remote(
        self, value: pulumi.Input[Union[TrainingJobOutputRemoteArgs, TrainingJobOutputRemoteArgsDict]]
    ) -> None:
        pulumi.set(self, "remote", value)

    @property
    @pulumi.getter
    def description(self) -> Optional[pulumi.Input[str]]:
        """Channel description."""
        return pulumi.get(self, "description")  # type: ignore[no-any-return]

    @description.setter
    def description(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "description", value)

    @property
    @pulumi.getter
    def local_dir(self) -> Optional[pulumi.Input[str]]:
        """Directory in the container the channel is mapped to."""
        return pulumi.get(self, "local_dir")  # type: ignore[no-any-return]

    @local_dir.setter
    def local_dir(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "local_dir", value)

    @property
    @pulumi.getter
    def mode(self) -> Optional[pulumi.Input[str]]:
        """Upload mode (for example ``upload_periodically``)."""
        return pulumi.get(self, "mode")  # type: ignore[no-any-return]

    @mode.setter
    def mode(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "mode", value)

    @property
    @pulumi.getter
    def period(self) -> Optional[pulumi.Input[str]]:
        """Upload period (for example ``30s``)."""
        return pulumi.get(self, "period")  # type: ignore[no-any-return]

    @period.setter
    def period(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "period", value)


class TrainingJobAlgorithmArgsDict(TypedDict):
    """
    ``algorithm``: one source - ``id``; ``subscription_id`` with ``item_version_id``; or an ``engine`` with
    ``code_dir`` + ``boot_file`` and/or a ``command`` (custom image).
    """

    id: NotRequired[pulumi.Input[str]]
    """Algorithm id from algorithm management."""
    subscription_id: NotRequired[pulumi.Input[str]]
    """Subscribed algorithm, with item_version_id."""
    item_version_id: NotRequired[pulumi.Input[str]]
    """Version of the subscribed algorithm."""
    code_dir: NotRequired[pulumi.Input[str]]
    """Code directory (OBS), with boot_file."""
    boot_file: NotRequired[pulumi.Input[str]]
    """Boot file inside code_dir."""
    autosearch_config_path: NotRequired[pulumi.Input[str]]
    """YAML configuration of an auto-search job (OBS URL)."""
    autosearch_framework_path: NotRequired[pulumi.Input[str]]
    """Framework code directory of an auto-search job (OBS URL)."""
    command: NotRequired[pulumi.Input[str]]
    """Container start command (custom images), for example ``python train.py``."""
    parameters: NotRequired[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobParameterArgs, TrainingJobParameterArgsDict]]]]
    ]
    """Running parameters."""
    policies: NotRequired[pulumi.Input[Mapping[str, Any]]]
    """Policies (``auto_search`` hyperparameter search)."""
    inputs: NotRequired[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobInputArgs, TrainingJobInputArgsDict]]]]
    ]
    """Data inputs."""
    outputs: NotRequired[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobOutputArgs, TrainingJobOutputArgsDict]]]]
    ]
    """Data outputs."""
    engine: NotRequired[pulumi.Input[Union[TrainingJobEngineArgs, TrainingJobEngineArgsDict]]]
    """Engine or custom image."""
    local_code_dir: NotRequired[pulumi.Input[str]]
    """Container directory the code is downloaded to."""
    working_dir: NotRequired[pulumi.Input[str]]
    """Working directory of the algorithm."""
    environments: NotRequired[pulumi.Input[Mapping[str, str]]]
    """
    Environment variables. Always stored as secrets; exposed only in the secret ``environments`` output.
    """


@pulumi.input_type
class TrainingJobAlgorithmArgs:
    """
    ``algorithm``: one source - ``id``; ``subscription_id`` with ``item_version_id``; or an ``engine`` with
    ``code_dir`` + ``boot_file`` and/or a ``command`` (custom image).
    """

    def __init__(
        __self__,
        *,
        id: Optional[pulumi.Input[str]] = None,
        subscription_id: Optional[pulumi.Input[str]] = None,
        item_version_id: Optional[pulumi.Input[str]] = None,
        code_dir: Optional[pulumi.Input[str]] = None,
        boot_file: Optional[pulumi.Input[str]] = None,
        autosearch_config_path: Optional[pulumi.Input[str]] = None,
        autosearch_framework_path: Optional[pulumi.Input[str]] = None,
        command: Optional[pulumi.Input[str]] = None,
        parameters: Optional[
            pulumi.Input[
                Sequence[pulumi.Input[Union[TrainingJobParameterArgs, TrainingJobParameterArgsDict]]]
            ]
        ] = None,
        policies: Optional[pulumi.Input[Mapping[str, Any]]] = None,
        inputs: Optional[
            pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobInputArgs, TrainingJobInputArgsDict]]]]
        ] = None,
        outputs: Optional[
            pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobOutputArgs, TrainingJobOutputArgsDict]]]]
        ] = None,
        engine: Optional[pulumi.Input[Union[TrainingJobEngineArgs, TrainingJobEngineArgsDict]]] = None,
        local_code_dir: Optional[pulumi.Input[str]] = None,
        working_dir: Optional[pulumi.Input[str]] = None,
        environments: Optional[pulumi.Input[Mapping[str, str]]] = None,
    ) -> None:
        if id is not None:
            pulumi.set(__self__, "id", id)
        if subscription_id is not None:
            pulumi.set(__self__, "subscription_id", subscription_id)
        if item_version_id is not None:
            pulumi.set(__self__, "item_version_id", item_version_id)
        if code_dir is not None:
            pulumi.set(__self__, "code_dir", code_dir)
        if boot_file is not None:
            pulumi.set(__self__, "boot_file", boot_file)
        if autosearch_config_path is not None:
            pulumi.set(__self__, "autosearch_config_path", autosearch_config_path)
        if autosearch_framework_path is not None:
            pulumi.set(__self__, "autosearch_framework_path", autosearch_framework_path)
        if command is not None:
            pulumi.set(__self__, "command", command)
        if parameters is not None:
            pulumi.set(__self__, "parameters", parameters)
        if policies is not None:
            pulumi.set(__self__, "policies", policies)
        if inputs is not None:
            pulumi.set(__self__, "inputs", inputs)
        if outputs is not None:
            pulumi.set(__self__, "outputs", outputs)
        if engine is not None:
            pulumi.set(__self__, "engine", engine)
        if local_code_dir is not None:
            pulumi.set(__self__, "local_code_dir", local_code_dir)
        if working_dir is not None:
            pulumi.set(__self__, "working_dir", working_dir)
        if environments is not None:
            pulumi.set(__self__, "environments", environments)

    @property
    @pulumi.getter
    def id(self) -> Optional[pulumi.Input[str]]:
        """Algorithm id from algorithm management."""
        return pulumi.get(self, "id")  # type: ignore[no-any-return]

    @id.setter
    def id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "id", value)

    @property
    @pulumi.getter
    def subscription_id(self) -> Optional[pulumi.Input[str]]:
        """Subscribed algorithm, with item_version_id."""
        return pulumi.get(self, "subscription_id")  # type: ignore[no-any-return]

    @subscription_id.setter
    def subscription_id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "subscription_id", value)

    @property
    @pulumi.getter
    def item_version_id(self) -> Optional[pulumi.Input[str]]:
        """Version of the subscribed algorithm."""
        return pulumi.get(self, "item_version_id")  # type: ignore[no-any-return]

    @item_version_id.setter
    def item_version_id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "item_version_id", value)

    @property
    @pulumi.getter
    def code_dir(self) -> Optional[pulumi.Input[str]]:
        """Code directory (OBS), with boot_file."""
        return pulumi.get(self, "code_dir")  # type: ignore[no-any-return]

    @code_dir.setter
    def code_dir(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "code_dir", value)

    @property
    @pulumi.getter
    def boot_file(self) -> Optional[pulumi.Input[str]]:
        """Boot file inside code_dir."""
        return pulumi.get(self, "boot_file")  # type: ignore[no-any-return]

    @boot_file.setter
    def boot_file(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "boot_file", value)

    @property
    @pulumi.getter
    def autosearch_config_path(self) -> Optional[pulumi.Input[str]]:
        """YAML configuration of an auto-search job (OBS URL)."""
        return pulumi.get(self, "autosearch_config_path")  # type: ignore[no-any-return]

    @autosearch_config_path.setter
    def autosearch_config_path(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "autosearch_config_path", value)

    @property
    @pulumi.getter
    def autosearch_framework_path(self) -> Optional[pulumi.Input[str]]:
        """Framework code directory of an auto-search job (OBS URL)."""
        return pulumi.get(self, "autosearch_framework_path")  # type: ignore[no-any-return]

    @autosearch_framework_path.setter
    def autosearch_framework_path(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "autosearch_framework_path", value)

    @property
    @pulumi.getter
    def command(self) -> Optional[pulumi.Input[str]]:
        """Container start command (custom images), for example ``python train.py``."""
        return pulumi.get(self, "command")  # type: ignore[no-any-return]

    @command.setter
    def command(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "command", value)

    @property
    @pulumi.getter
    def parameters(
        self,
    ) -> Optional[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobParameterArgs, TrainingJobParameterArgsDict]]]]
    ]:
        """Running parameters."""
        return pulumi.get(self, "parameters")  # type: ignore[no-any-return]

    @parameters.setter
    def parameters(
        self,
        value: Optional[
            pulumi.Input[
                Sequence[pulumi.Input[Union[TrainingJobParameterArgs, TrainingJobParameterArgsDict]]]
            ]
        ],
    ) -> None:
        pulumi.set(self, "parameters", value)

    @property
    @pulumi.getter
    def policies(self) -> Optional[pulumi.Input[Mapping[str, Any]]]:
        """Policies (``auto_search`` hyperparameter search)."""
        return pulumi.get(self, "policies")  # type: ignore[no-any-return]

    @policies.setter
    def policies(self, value: Optional[pulumi.Input[Mapping[str, Any]]]) -> None:
        pulumi.set(self, "policies", value)

    @property
    @pulumi.getter
    def inputs(
        self,
    ) -> Optional[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobInputArgs, TrainingJobInputArgsDict]]]]
    ]:
        """Data inputs."""
        return pulumi.get(self, "inputs")  # type: ignore[no-any-return]

    @inputs.setter
    def inputs(
        self,
        value: Optional[
            pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobInputArgs, TrainingJobInputArgsDict]]]]
        ],
    ) -> None:
        pulumi.set(self, "inputs", value)

    @property
    @pulumi.getter
    def outputs(
        self,
    ) -> Optional[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobOutputArgs, TrainingJobOutputArgsDict]]]]
    ]:
        """Data outputs."""
        return pulumi.get(self, "outputs")  # type: ignore[no-any-return]

    @outputs.setter
    def outputs(
        self,
        value: Optional[
            pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobOutputArgs, TrainingJobOutputArgsDict]]]]
        ],
    ) -> None:
        pulumi.set(self, "outputs", value)

    @property
    @pulumi.getter
    def engine(self) -> Optional[pulumi.Input[Union[TrainingJobEngineArgs, TrainingJobEngineArgsDict]]]:
        """Engine or custom image."""
        return pulumi.get(self, "engine")  # type: ignore[no-any-return]

    @engine.setter
    def engine(
        self, value: Optional[pulumi.Input[Union[TrainingJobEngineArgs, TrainingJobEngineArgsDict]]]
    ) -> None:
        pulumi.set(self, "engine", value)

    @property
    @pulumi.getter
    def local_code_dir(self) -> Optional[pulumi.Input[str]]:
        """Container directory the code is downloaded to."""
        return pulumi.get(self, "local_code_dir")  # type: ignore[no-any-return]

    @local_code_dir.setter
    def local_code_dir(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "local_code_dir", value)

    @property
    @pulumi.getter
    def working_dir(self) -> Optional[pulumi.Input[str]]:
        """Working directory of the algorithm."""
        return pulumi.get(self, "working_dir")  # type: ignore[no-any-return]

    @working_dir.setter
    def working_dir(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "working_dir", value)

    @property
    @pulumi.getter
    def environments(self) -> Optional[pulumi.Input[Mapping[str, str]]]:
        """
        Environment variables. Always stored as secrets; exposed only in the secret ``environments`` output.
        """
        return pulumi.get(self, "environments")  # type: ignore[no-any-return]

    @environments.setter
    def environments(self, value: Optional[pulumi.Input[Mapping[str, str]]]) -> None:
        pulumi.set(self, "environments", value)


class TrainingJobResourceArgsDict(TypedDict):
    """``spec.resource``: a public flavor, or a dedicated pool."""

    flavor_id: NotRequired[pulumi.Input[str]]
    """Resource flavor id."""
    node_count: NotRequired[pulumi.Input[int]]
    """Number of nodes (the service defaults to 1)."""
    pool_id: NotRequired[pulumi.Input[str]]
    """Dedicated resource pool id."""


@pulumi.input_type
class TrainingJobResourceArgs:
    """``spec.resource``: a public flavor, or a dedicated pool."""

    def __init__(
        __self__,
        *,
        flavor_id: Optional[pulumi.Input[str]] = None,
        node_count: Optional[pulumi.Input[int]] = None,
        pool_id: Optional[pulumi.Input[str]] = None,
    ) -> None:
        if flavor_id is not None:
            pulumi.set(__self__, "flavor_id", flavor_id)
        if node_count is not None:
            pulumi.set(__self__, "node_count", node_count)
        if pool_id is not None:
            pulumi.set(__self__, "pool_id", pool_id)

    @property
    @pulumi.getter
    def flavor_id(self) -> Optional[pulumi.Input[str]]:
        """Resource flavor id."""
        return pulumi.get(self, "flavor_id")  # type: ignore[no-any-return]

    @flavor_id.setter
    def flavor_id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "flavor_id", value)

    @property
    @pulumi.getter
    def node_count(self) -> Optional[pulumi.Input[int]]:
        """Number of nodes (the service defaults to 1)."""
        return pulumi.get(self, "node_count")  # type: ignore[no-any-return]

    @node_count.setter
    def node_count(self, value: Optional[pulumi.Input[int]]) -> None:
        pulumi.set(self, "node_count", value)

    @property
    @pulumi.getter
    def pool_id(self) -> Optional[pulumi.Input[str]]:
        """Dedicated resource pool id."""
        return pulumi.get(self, "pool_id")  # type: ignore[no-any-return]

    @pool_id.setter
    def pool_id(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "pool_id", value)


class TrainingJobNfsArgsDict(TypedDict):
    """An NFS mount."""

    nfs_server_path: pulumi.Input[str]
    """NFS server export."""
    local_path: pulumi.Input[str]
    """Mount point in the container."""
    read_only: NotRequired[pulumi.Input[bool]]
    """Mount read-only."""


@pulumi.input_type
class TrainingJobNfsArgs:
    """An NFS mount."""

    def __init__(
        __self__,
        *,
        nfs_server_path: pulumi.Input[str],
        local_path: pulumi.Input[str],
        read_only: Optional[pulumi.Input[bool]] = None,
    ) -> None:
        pulumi.set(__self__, "nfs_server_path", nfs_server_path)
        pulumi.set(__self__, "local_path", local_path)
        if read_only is not None:
            pulumi.set(__self__, "read_only", read_only)

    @property
    @pulumi.getter
    def nfs_server_path(self) -> pulumi.Input[str]:
        """NFS server export."""
        return pulumi.get(self, "nfs_server_path")  # type: ignore[no-any-return]

    @nfs_server_path.setter
    def nfs_server_path(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "nfs_server_path", value)

    @property
    @pulumi.getter
    def local_path(self) -> pulumi.Input[str]:
        """Mount point in the container."""
        return pulumi.get(self, "local_path")  # type: ignore[no-any-return]

    @local_path.setter
    def local_path(self, value: pulumi.Input[str]) -> None:
        pulumi.set(self, "local_path", value)

    @property
    @pulumi.getter
    def read_only(self) -> Optional[pulumi.Input[bool]]:
        """Mount read-only."""
        return pulumi.get(self, "read_only")  # type: ignore[no-any-return]

    @read_only.setter
    def read_only(self, value: Optional[pulumi.Input[bool]]) -> None:
        pulumi.set(self, "read_only", value)


class TrainingJobVolumeArgsDict(TypedDict):
    """``spec.volumes[]``."""

    nfs: pulumi.Input[Union[TrainingJobNfsArgs, TrainingJobNfsArgsDict]]
    """The NFS mount."""


@pulumi.input_type
class TrainingJobVolumeArgs:
    """``spec.volumes[]``."""

    def __init__(
        __self__,
        *,
        nfs: pulumi.Input[Union[TrainingJobNfsArgs, TrainingJobNfsArgsDict]],
    ) -> None:
        pulumi.set(__self__, "nfs", nfs)

    @property
    @pulumi.getter
    def nfs(self) -> pulumi.Input[Union[TrainingJobNfsArgs, TrainingJobNfsArgsDict]]:
        """The NFS mount."""
        return pulumi.get(self, "nfs")  # type: ignore[no-any-return]

    @nfs.setter
    def nfs(self, value: pulumi.Input[Union[TrainingJobNfsArgs, TrainingJobNfsArgsDict]]) -> None:
        pulumi.set(self, "nfs", value)


class TrainingJobLogExportPathArgsDict(TypedDict):
    """``spec.log_export_path``: where logs are kept."""

    obs_url: NotRequired[pulumi.Input[str]]
    """OBS path for logs."""
    host_path: NotRequired[pulumi.Input[str]]
    """Host path for logs (dedicated pools)."""


@pulumi.input_type
class TrainingJobLogExportPathArgs:
    """``spec.log_export_path``: where logs are kept."""

    def __init__(
        __self__,
        *,
        obs_url: Optional[pulumi.Input[str]] = None,
        host_path: Optional[pulumi.Input[str]] = None,
    ) -> None:
        if obs_url is not None:
            pulumi.set(__self__, "obs_url", obs_url)
        if host_path is not None:
            pulumi.set(__self__, "host_path", host_path)

    @property
    @pulumi.getter
    def obs_url(self) -> Optional[pulumi.Input[str]]:
        """OBS path for logs."""
        return pulumi.get(self, "obs_url")  # type: ignore[no-any-return]

    @obs_url.setter
    def obs_url(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "obs_url", value)

    @property
    @pulumi.getter
    def host_path(self) -> Optional[pulumi.Input[str]]:
        """Host path for logs (dedicated pools)."""
        return pulumi.get(self, "host_path")  # type: ignore[no-any-return]

    @host_path.setter
    def host_path(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "host_path", value)


class TrainingJobAutoStopArgsDict(TypedDict):
    """``spec.auto_stop``: stop the job after a time."""

    time_unit: NotRequired[pulumi.Input[str]]
    """Unit, for example ``HOURS``."""
    duration: NotRequired[pulumi.Input[int]]
    """How many units."""


@pulumi.input_type
class TrainingJobAutoStopArgs:
    """``spec.auto_stop``: stop the job after a time."""

    def __init__(
        __self__,
        *,
        time_unit: Optional[pulumi.Input[str]] = None,
        duration: Optional[pulumi.Input[int]] = None,
    ) -> None:
        if time_unit is not None:
            pulumi.set(__self__, "time_unit", time_unit)
        if duration is not None:
            pulumi.set(__self__, "duration", duration)

    @property
    @pulumi.getter
    def time_unit(self) -> Optional[pulumi.Input[str]]:
        """Unit, for example ``HOURS``."""
        return pulumi.get(self, "time_unit")  # type: ignore[no-any-return]

    @time_unit.setter
    def time_unit(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "time_unit", value)

    @property
    @pulumi.getter
    def duration(self) -> Optional[pulumi.Input[int]]:
        """How many units."""
        return pulumi.get(self, "duration")  # type: ignore[no-any-return]

    @duration.setter
    def duration(self, value: Optional[pulumi.Input[int]]) -> None:
        pulumi.set(self, "duration", value)


class TrainingJobSpecArgsDict(TypedDict):
    """``spec``: resources, volumes and logs of the job."""

    resource: NotRequired[pulumi.Input[Union[TrainingJobResourceArgs, TrainingJobResourceArgsDict]]]
    """Flavor, node count or pool."""
    volumes: NotRequired[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobVolumeArgs, TrainingJobVolumeArgsDict]]]]
    ]
    """Volumes to attach."""
    log_export_path: NotRequired[
        pulumi.Input[Union[TrainingJobLogExportPathArgs, TrainingJobLogExportPathArgsDict]]
    ]
    """Where logs are exported."""
    auto_stop: NotRequired[pulumi.Input[Union[TrainingJobAutoStopArgs, TrainingJobAutoStopArgsDict]]]
    """Automatic stop."""
    schedule_policy: NotRequired[pulumi.Input[Mapping[str, Any]]]
    """Scheduling policy (required_affinity, priority, preemptible)."""


@pulumi.input_type
class TrainingJobSpecArgs:
    """``spec``: resources, volumes and logs of the job."""

    def __init__(
        __self__,
        *,
        resource: Optional[pulumi.Input[Union[TrainingJobResourceArgs, TrainingJobResourceArgsDict]]] = None,
        volumes: Optional[
            pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobVolumeArgs, TrainingJobVolumeArgsDict]]]]
        ] = None,
        log_export_path: Optional[
            pulumi.Input[Union[TrainingJobLogExportPathArgs, TrainingJobLogExportPathArgsDict]]
        ] = None,
        auto_stop: Optional[pulumi.Input[Union[TrainingJobAutoStopArgs, TrainingJobAutoStopArgsDict]]] = None,
        schedule_policy: Optional[pulumi.Input[Mapping[str, Any]]] = None,
    ) -> None:
        if resource is not None:
            pulumi.set(__self__, "resource", resource)
        if volumes is not None:
            pulumi.set(__self__, "volumes", volumes)
        if log_export_path is not None:
            pulumi.set(__self__, "log_export_path", log_export_path)
        if auto_stop is not None:
            pulumi.set(__self__, "auto_stop", auto_stop)
        if schedule_policy is not None:
            pulumi.set(__self__, "schedule_policy", schedule_policy)

    @property
    @pulumi.getter
    def resource(self) -> Optional[pulumi.Input[Union[TrainingJobResourceArgs, TrainingJobResourceArgsDict]]]:
        """Flavor, node count or pool."""
        return pulumi.get(self, "resource")  # type: ignore[no-any-return]

    @resource.setter
    def resource(
        self, value: Optional[pulumi.Input[Union[TrainingJobResourceArgs, TrainingJobResourceArgsDict]]]
    ) -> None:
        pulumi.set(self, "resource", value)

    @property
    @pulumi.getter
    def volumes(
        self,
    ) -> Optional[
        pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobVolumeArgs, TrainingJobVolumeArgsDict]]]]
    ]:
        """Volumes to attach."""
        return pulumi.get(self, "volumes")  # type: ignore[no-any-return]

    @volumes.setter
    def volumes(
        self,
        value: Optional[
            pulumi.Input[Sequence[pulumi.Input[Union[TrainingJobVolumeArgs, TrainingJobVolumeArgsDict]]]]
        ],
    ) -> None:
        pulumi.set(self, "volumes", value)

    @property
    @pulumi.getter
    def log_export_path(
        self,
    ) -> Optional[pulumi.Input[Union[TrainingJobLogExportPathArgs, TrainingJobLogExportPathArgsDict]]]:
        """Where logs are exported."""
        return pulumi.get(self, "log_export_path")  # type: ignore[no-any-return]

    @log_export_path.setter
    def log_export_path(
        self,
        value: Optional[pulumi.Input[Union[TrainingJobLogExportPathArgs, TrainingJobLogExportPathArgsDict]]],
    ) -> None:
        pulumi.set(self, "log_export_path", value)

    @property
    @pulumi.getter
    def auto_stop(
        self,
    ) -> Optional[pulumi.Input[Union[TrainingJobAutoStopArgs, TrainingJobAutoStopArgsDict]]]:
        """Automatic stop."""
        return pulumi.get(self, "auto_stop")  # type: ignore[no-any-return]

    @auto_stop.setter
    def auto_stop(
        self, value: Optional[pulumi.Input[Union[TrainingJobAutoStopArgs, TrainingJobAutoStopArgsDict]]]
    ) -> None:
        pulumi.set(self, "auto_stop", value)

    @property
    @pulumi.getter
    def schedule_policy(self) -> Optional[pulumi.Input[Mapping[str, Any]]]:
        """Scheduling policy (required_affinity, priority, preemptible)."""
        return pulumi.get(self, "schedule_policy")  # type: ignore[no-any-return]

    @schedule_policy.setter
    def schedule_policy(self, value: Optional[pulumi.Input[Mapping[str, Any]]]) -> None:
        pulumi.set(self, "schedule_policy", value)


class TrainingJobArgsDict(TypedDict):
    """
    Arguments of a ``TrainingJob``: the create request body (``kind``, ``metadata``, ``algorithm``, ``tasks``,
    ``spec``) plus provider settings.
    """

    metadata: NotRequired[pulumi.Input[Union[TrainingJobMetadataArgs, TrainingJobMetadataArgsDict]]]
    """Name (optional: auto-named), description and annotations."""
    algorithm: NotRequired[pulumi.Input[Union[TrainingJobAlgorithmArgs, TrainingJobAlgorithmArgsDict]]]
    """What runs: algorithm id, subscription, or engine/image with code or command."""
    spec: NotRequired[pulumi.Input[Union[TrainingJobSpecArgs, TrainingJobSpecArgsDict]]]
    """Resources, volumes and log export path."""
    tasks: NotRequired[pulumi.Input[Sequence[Mapping[str, Any]]]]
    """Tasks of a heterogeneous job (not used together with spec)."""
    kind: NotRequired[pulumi.Input[str]]
    """Job type; defaults to ``job``."""
    wait_for: NotRequired[pulumi.Input[str]]
    """
    How far a new job must get before the deployment goes on: ``none``, ``pending`` (past Creating; the
    default), ``running`` or ``completed``. A job that fails or times out while waited on is terminated and
    reported.
    """
    wait_timeout: NotRequired[pulumi.Input[Union[float, str]]]
    """
    Longest wait for ``wait_for``: seconds, or a duration such as ``"90s"``, ``"30m"``, ``"1h30m"`` (default
    30m).
    """
    triggers: NotRequired[pulumi.Input[Any]]
    """Any value; changing it replaces the job (like ``keepers`` in pulumi-random)."""
    replace_when_failed: NotRequired[pulumi.Input[bool]]
    """
    When the phase last stored (after create or refresh) is Failed, Abnormal or CreateFailed, the next
    ``up`` replaces the job.
    """
    name_prefix: NotRequired[pulumi.Input[str]]
    """
    Prefix of the generated job name; defaults to the resource name. Ignored once the job has a name.
    """


@pulumi.input_type
class TrainingJobArgs:
    """
    Arguments of a ``TrainingJob``: the create request body (``kind``, ``metadata``, ``algorithm``, ``tasks``,
    ``spec``) plus provider settings.
    """

    def __init__(
        __self__,
        *,
        metadata: Optional[pulumi.Input[Union[TrainingJobMetadataArgs, TrainingJobMetadataArgsDict]]] = None,
        algorithm: Optional[
            pulumi.Input[Union[TrainingJobAlgorithmArgs, TrainingJobAlgorithmArgsDict]]
        ] = None,
        spec: Optional[pulumi.Input[Union[TrainingJobSpecArgs, TrainingJobSpecArgsDict]]] = None,
        tasks: Optional[pulumi.Input[Sequence[Mapping[str, Any]]]] = None,
        kind: Optional[pulumi.Input[str]] = None,
        wait_for: Optional[pulumi.Input[str]] = None,
        wait_timeout: Optional[pulumi.Input[Union[float, str]]] = None,
        triggers: Optional[pulumi.Input[Any]] = None,
        replace_when_failed: Optional[pulumi.Input[bool]] = None,
        name_prefix: Optional[pulumi.Input[str]] = None,
    ) -> None:
        if metadata is not None:
            pulumi.set(__self__, "metadata", metadata)
        if algorithm is not None:
            pulumi.set(__self__, "algorithm", algorithm)
        if spec is not None:
            pulumi.set(__self__, "spec", spec)
        if tasks is not None:
            pulumi.set(__self__, "tasks", tasks)
        if kind is not None:
            pulumi.set(__self__, "kind", kind)
        if wait_for is not None:
            pulumi.set(__self__, "wait_for", wait_for)
        if wait_timeout is not None:
            pulumi.set(__self__, "wait_timeout", wait_timeout)
        if triggers is not None:
            pulumi.set(__self__, "triggers", triggers)
        if replace_when_failed is not None:
            pulumi.set(__self__, "replace_when_failed", replace_when_failed)
        if name_prefix is not None:
            pulumi.set(__self__, "name_prefix", name_prefix)

    @property
    @pulumi.getter
    def metadata(self) -> Optional[pulumi.Input[Union[TrainingJobMetadataArgs, TrainingJobMetadataArgsDict]]]:
        """Name (optional: auto-named), description and annotations."""
        return pulumi.get(self, "metadata")  # type: ignore[no-any-return]

    @metadata.setter
    def metadata(
        self, value: Optional[pulumi.Input[Union[TrainingJobMetadataArgs, TrainingJobMetadataArgsDict]]]
    ) -> None:
        pulumi.set(self, "metadata", value)

    @property
    @pulumi.getter
    def algorithm(
        self,
    ) -> Optional[pulumi.Input[Union[TrainingJobAlgorithmArgs, TrainingJobAlgorithmArgsDict]]]:
        """What runs: algorithm id, subscription, or engine/image with code or command."""
        return pulumi.get(self, "algorithm")  # type: ignore[no-any-return]

    @algorithm.setter
    def algorithm(
        self, value: Optional[pulumi.Input[Union[TrainingJobAlgorithmArgs, TrainingJobAlgorithmArgsDict]]]
    ) -> None:
        pulumi.set(self, "algorithm", value)

    @property
    @pulumi.getter
    def spec(self) -> Optional[pulumi.Input[Union[TrainingJobSpecArgs, TrainingJobSpecArgsDict]]]:
        """Resources, volumes and log export path."""
        return pulumi.get(self, "spec")  # type: ignore[no-any-return]

    @spec.setter
    def spec(
        self, value: Optional[pulumi.Input[Union[TrainingJobSpecArgs, TrainingJobSpecArgsDict]]]
    ) -> None:
        pulumi.set(self, "spec", value)

    @property
    @pulumi.getter
    def tasks(self) -> Optional[pulumi.Input[Sequence[Mapping[str, Any]]]]:
        """Tasks of a heterogeneous job (not used together with spec)."""
        return pulumi.get(self, "tasks")  # type: ignore[no-any-return]

    @tasks.setter
    def tasks(self, value: Optional[pulumi.Input[Sequence[Mapping[str, Any]]]]) -> None:
        pulumi.set(self, "tasks", value)

    @property
    @pulumi.getter
    def kind(self) -> Optional[pulumi.Input[str]]:
        """Job type; defaults to ``job``."""
        return pulumi.get(self, "kind")  # type: ignore[no-any-return]

    @kind.setter
    def kind(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "kind", value)

    @property
    @pulumi.getter
    def wait_for(self) -> Optional[pulumi.Input[str]]:
        """
        How far a new job must get before the deployment goes on: ``none``, ``pending`` (past Creating; the
        default), ``running`` or ``completed``. A job that fails or times out while waited on is terminated
        and reported.
        """
        return pulumi.get(self, "wait_for")  # type: ignore[no-any-return]

    @wait_for.setter
    def wait_for(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "wait_for", value)

    @property
    @pulumi.getter
    def wait_timeout(self) -> Optional[pulumi.Input[Union[float, str]]]:
        """
        Longest wait for ``wait_for``: seconds, or a duration such as ``"90s"``, ``"30m"``, ``"1h30m"``
        (default 30m).
        """
        return pulumi.get(self, "wait_timeout")  # type: ignore[no-any-return]

    @wait_timeout.setter
    def wait_timeout(self, value: Optional[pulumi.Input[Union[float, str]]]) -> None:
        pulumi.set(self, "wait_timeout", value)

    @property
    @pulumi.getter
    def triggers(self) -> Optional[pulumi.Input[Any]]:
        """Any value; changing it replaces the job (like ``keepers`` in pulumi-random)."""
        return pulumi.get(self, "triggers")

    @triggers.setter
    def triggers(self, value: Optional[pulumi.Input[Any]]) -> None:
        pulumi.set(self, "triggers", value)

    @property
    @pulumi.getter
    def replace_when_failed(self) -> Optional[pulumi.Input[bool]]:
        """
        When the phase last stored (after create or refresh) is Failed, Abnormal or CreateFailed, the next
        ``up`` replaces the job.
        """
        return pulumi.get(self, "replace_when_failed")  # type: ignore[no-any-return]

    @replace_when_failed.setter
    def replace_when_failed(self, value: Optional[pulumi.Input[bool]]) -> None:
        pulumi.set(self, "replace_when_failed", value)

    @property
    @pulumi.getter
    def name_prefix(self) -> Optional[pulumi.Input[str]]:
        """
        Prefix of the generated job name; defaults to the resource name. Ignored once the job has a name.
        """
        return pulumi.get(self, "name_prefix")  # type: ignore[no-any-return]

    @name_prefix.setter
    def name_prefix(self, value: Optional[pulumi.Input[str]]) -> None:
        pulumi.set(self, "name_prefix", value)


__all__ = [
    "TrainingJobAlgorithmArgs",
    "TrainingJobAlgorithmArgsDict",
    "TrainingJobArgs",
    "TrainingJobArgsDict",
    "TrainingJobAutoStopArgs",
    "TrainingJobAutoStopArgsDict",
    "TrainingJobDatasetArgs",
    "TrainingJobDatasetArgsDict",
    "TrainingJobEngineArgs",
    "TrainingJobEngineArgsDict",
    "TrainingJobInputArgs",
    "TrainingJobInputArgsDict",
    "TrainingJobInputRemoteArgs",
    "TrainingJobInputRemoteArgsDict",
    "TrainingJobLogExportPathArgs",
    "TrainingJobLogExportPathArgsDict",
    "TrainingJobMetadataArgs",
    "TrainingJobMetadataArgsDict",
    "TrainingJobNfsArgs",
    "TrainingJobNfsArgsDict",
    "TrainingJobObsArgs",
    "TrainingJobObsArgsDict",
    "TrainingJobOutputArgs",
    "TrainingJobOutputArgsDict",
    "TrainingJobOutputRemoteArgs",
    "TrainingJobOutputRemoteArgsDict",
    "TrainingJobParameterArgs",
    "TrainingJobParameterArgsDict",
    "TrainingJobResourceArgs",
    "TrainingJobResourceArgsDict",
    "TrainingJobSpecArgs",
    "TrainingJobSpecArgsDict",
    "TrainingJobVolumeArgs",
    "TrainingJobVolumeArgsDict",
]

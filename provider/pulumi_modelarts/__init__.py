"""Huawei Cloud ModelArts training jobs as Pulumi resources.

    from pulumi_modelarts import TrainingJob, get_training_jobs

Importing the package is cheap: the resource, provider, inputs and client load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .inputs import (
        TrainingJobAlgorithmArgs,
        TrainingJobAlgorithmArgsDict,
        TrainingJobArgs,
        TrainingJobArgsDict,
        TrainingJobAutoStopArgs,
        TrainingJobAutoStopArgsDict,
        TrainingJobDatasetArgs,
        TrainingJobDatasetArgsDict,
        TrainingJobEngineArgs,
        TrainingJobEngineArgsDict,
        TrainingJobInputArgs,
        TrainingJobInputArgsDict,
        TrainingJobInputRemoteArgs,
        TrainingJobInputRemoteArgsDict,
        TrainingJobLogExportPathArgs,
        TrainingJobLogExportPathArgsDict,
        TrainingJobMetadataArgs,
        TrainingJobMetadataArgsDict,
        TrainingJobNfsArgs,
        TrainingJobNfsArgsDict,
        TrainingJobObsArgs,
        TrainingJobObsArgsDict,
        TrainingJobOutputArgs,
        TrainingJobOutputArgsDict,
        TrainingJobOutputRemoteArgs,
        TrainingJobOutputRemoteArgsDict,
        TrainingJobParameterArgs,
        TrainingJobParameterArgsDict,
        TrainingJobResourceArgs,
        TrainingJobResourceArgsDict,
        TrainingJobSpecArgs,
        TrainingJobSpecArgsDict,
        TrainingJobVolumeArgs,
        TrainingJobVolumeArgsDict,
    )
    from .provider import ProvisioningError, TrainingJobProvider
    from .resource import TrainingJob, get_training_jobs

__all__ = [
    "ProvisioningError",
    "TrainingJob",
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
    "TrainingJobProvider",
    "TrainingJobResourceArgs",
    "TrainingJobResourceArgsDict",
    "TrainingJobSpecArgs",
    "TrainingJobSpecArgsDict",
    "TrainingJobVolumeArgs",
    "TrainingJobVolumeArgsDict",
    "get_training_jobs",
]

_LAZY: dict[str, str] = {
    "TrainingJob": "resource",
    "get_training_jobs": "resource",
    "TrainingJobProvider": "provider",
    "ProvisioningError": "provider",
}
_LAZY.update({name: "inputs" for name in __all__ if name.endswith(("Args", "ArgsDict"))})


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

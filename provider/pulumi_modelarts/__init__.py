"""Huawei Cloud ModelArts training jobs as Pulumi resources.

    from pulumi_modelarts import TrainingJob, get_training_jobs

Importing the package is cheap: the resource, provider, inputs and client load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .provider import ProvisioningError, TrainingJobProvider
    from .resource import TrainingJob, get_training_jobs
# BEGIN GENERATED input imports (scripts/generate; do not edit)
if TYPE_CHECKING:
    from .inputs import (
        TrainingJobAlgorithmArgs,
        TrainingJobAlgorithmArgsDict,
        TrainingJobArgs,
        TrainingJobArgsDict,
        TrainingJobAutoSearchAlgoConfigArgs,
        TrainingJobAutoSearchAlgoConfigArgsDict,
        TrainingJobAutoSearchAlgoConfigParamArgs,
        TrainingJobAutoSearchAlgoConfigParamArgsDict,
        TrainingJobAutoSearchArgs,
        TrainingJobAutoSearchArgsDict,
        TrainingJobAutoSearchParamArgs,
        TrainingJobAutoSearchParamArgsDict,
        TrainingJobAutoSearchRewardAttrArgs,
        TrainingJobAutoSearchRewardAttrArgsDict,
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
        TrainingJobInputRemoteConstraintArgs,
        TrainingJobInputRemoteConstraintArgsDict,
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
        TrainingJobParameterConstraintArgs,
        TrainingJobParameterConstraintArgsDict,
        TrainingJobParameterI18nDescriptionArgs,
        TrainingJobParameterI18nDescriptionArgsDict,
        TrainingJobPoliciesArgs,
        TrainingJobPoliciesArgsDict,
        TrainingJobRequiredAffinityArgs,
        TrainingJobRequiredAffinityArgsDict,
        TrainingJobResourceArgs,
        TrainingJobResourceArgsDict,
        TrainingJobSchedulePolicyArgs,
        TrainingJobSchedulePolicyArgsDict,
        TrainingJobSpecArgs,
        TrainingJobSpecArgsDict,
        TrainingJobTaskAlgorithmArgs,
        TrainingJobTaskAlgorithmArgsDict,
        TrainingJobTaskArgs,
        TrainingJobTaskArgsDict,
        TrainingJobTaskEngineArgs,
        TrainingJobTaskEngineArgsDict,
        TrainingJobTaskInputArgs,
        TrainingJobTaskInputArgsDict,
        TrainingJobTaskInputRemoteArgs,
        TrainingJobTaskInputRemoteArgsDict,
        TrainingJobTaskJobConfigArgs,
        TrainingJobTaskJobConfigArgsDict,
        TrainingJobTaskOutputArgs,
        TrainingJobTaskOutputArgsDict,
        TrainingJobTaskResourceArgs,
        TrainingJobTaskResourceArgsDict,
        TrainingJobVolumeArgs,
        TrainingJobVolumeArgsDict,
    )
# END GENERATED input imports

__all__ = [
    "ProvisioningError",
    "TrainingJob",
    "TrainingJobProvider",
    "get_training_jobs",
]
# The typed inputs (...Args classes and ...ArgsDict TypedDicts), one per input object.
# BEGIN GENERATED input exports (scripts/generate; do not edit)
__all__ += [
    "TrainingJobAlgorithmArgs",
    "TrainingJobAlgorithmArgsDict",
    "TrainingJobArgs",
    "TrainingJobArgsDict",
    "TrainingJobAutoSearchAlgoConfigArgs",
    "TrainingJobAutoSearchAlgoConfigArgsDict",
    "TrainingJobAutoSearchAlgoConfigParamArgs",
    "TrainingJobAutoSearchAlgoConfigParamArgsDict",
    "TrainingJobAutoSearchArgs",
    "TrainingJobAutoSearchArgsDict",
    "TrainingJobAutoSearchParamArgs",
    "TrainingJobAutoSearchParamArgsDict",
    "TrainingJobAutoSearchRewardAttrArgs",
    "TrainingJobAutoSearchRewardAttrArgsDict",
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
    "TrainingJobInputRemoteConstraintArgs",
    "TrainingJobInputRemoteConstraintArgsDict",
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
    "TrainingJobParameterConstraintArgs",
    "TrainingJobParameterConstraintArgsDict",
    "TrainingJobParameterI18nDescriptionArgs",
    "TrainingJobParameterI18nDescriptionArgsDict",
    "TrainingJobPoliciesArgs",
    "TrainingJobPoliciesArgsDict",
    "TrainingJobRequiredAffinityArgs",
    "TrainingJobRequiredAffinityArgsDict",
    "TrainingJobResourceArgs",
    "TrainingJobResourceArgsDict",
    "TrainingJobSchedulePolicyArgs",
    "TrainingJobSchedulePolicyArgsDict",
    "TrainingJobSpecArgs",
    "TrainingJobSpecArgsDict",
    "TrainingJobTaskAlgorithmArgs",
    "TrainingJobTaskAlgorithmArgsDict",
    "TrainingJobTaskArgs",
    "TrainingJobTaskArgsDict",
    "TrainingJobTaskEngineArgs",
    "TrainingJobTaskEngineArgsDict",
    "TrainingJobTaskInputArgs",
    "TrainingJobTaskInputArgsDict",
    "TrainingJobTaskInputRemoteArgs",
    "TrainingJobTaskInputRemoteArgsDict",
    "TrainingJobTaskJobConfigArgs",
    "TrainingJobTaskJobConfigArgsDict",
    "TrainingJobTaskOutputArgs",
    "TrainingJobTaskOutputArgsDict",
    "TrainingJobTaskResourceArgs",
    "TrainingJobTaskResourceArgsDict",
    "TrainingJobVolumeArgs",
    "TrainingJobVolumeArgsDict",
]
# END GENERATED input exports

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

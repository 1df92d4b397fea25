"""The typed inputs (``...Args`` classes and ``...ArgsDict`` TypedDicts) stay in step with the wire models."""

from __future__ import annotations

import inspect

import pytest
from pydantic import BaseModel

from pulumi_modelarts import diffing, inputs, models

# Args class -> the request model whose fields it must offer, exactly.
PAIRS: list[tuple[type, type[BaseModel]]] = [
    (inputs.TrainingJobMetadataArgs, models.JobMetadata),
    (inputs.TrainingJobEngineArgs, models.Engine),
    (inputs.TrainingJobParameterArgs, models.Parameter),
    (inputs.TrainingJobDatasetArgs, models.Dataset),
    (inputs.TrainingJobObsArgs, models.ObsLocation),
    (inputs.TrainingJobInputRemoteArgs, models.InputRemote),
    (inputs.TrainingJobInputArgs, models.Input),
    (inputs.TrainingJobOutputRemoteArgs, models.OutputRemote),
    (inputs.TrainingJobOutputArgs, models.Output),
    (inputs.TrainingJobAlgorithmArgs, models.Algorithm),
    (inputs.TrainingJobResourceArgs, models.Resource),
    (inputs.TrainingJobNfsArgs, models.Nfs),
    (inputs.TrainingJobVolumeArgs, models.Volume),
    (inputs.TrainingJobLogExportPathArgs, models.LogExportPath),
    (inputs.TrainingJobAutoStopArgs, models.AutoStop),
    (inputs.TrainingJobSpecArgs, models.Spec),
]


# Request fields the pages say the service sets or wants left blank: the typed inputs omit them on purpose.
SERVER_SET: dict[type[BaseModel], set[str]] = {
    models.JobMetadata: {"id", "create_time", "user_name"},
    models.Dataset: {"obs_url"},
    models.Algorithm: {"name"},
}


def _params(cls: type) -> set[str]:
    return {name for name in inspect.signature(cls.__init__).parameters if name != "__self__"}  # type: ignore[misc]


def _wire_fields(model: type[BaseModel]) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


@pytest.mark.parametrize(("args_cls", "model"), PAIRS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_args_class_offers_exactly_the_model_fields(args_cls: type, model: type[BaseModel]) -> None:
    assert _params(args_cls) == _wire_fields(model) - SERVER_SET.get(model, set())


@pytest.mark.parametrize(("args_cls", "model"), PAIRS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_args_dict_has_the_same_keys(args_cls: type, model: type[BaseModel]) -> None:
    typed_dict = getattr(inputs, args_cls.__name__ + "Dict")
    assert set(typed_dict.__required_keys__ | typed_dict.__optional_keys__) == _params(args_cls)


def test_top_level_args_are_the_request_plus_provider_settings() -> None:
    request_fields = _wire_fields(models.CreateTrainingJobRequest)
    assert _params(inputs.TrainingJobArgs) == set(diffing.INPUT_FIELDS)
    assert request_fields <= set(diffing.INPUT_FIELDS)


def test_every_typed_input_is_exported_from_the_package() -> None:
    import pulumi_modelarts

    assert set(inputs.__all__) <= set(pulumi_modelarts.__all__)
    for name in pulumi_modelarts.__all__:
        assert getattr(pulumi_modelarts, name) is not None, name

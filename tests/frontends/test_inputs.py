"""The typed inputs (``...Args`` classes and ``...ArgsDict`` TypedDicts) stay in step with the wire models."""

from __future__ import annotations

import ast
import inspect
import itertools
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, Union, get_args, get_origin

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

# Args class -> the request model whose fields it must offer, exactly.
from pulumi_modelarts.frontends import resource

# Args class -> the request model whose fields it must offer, exactly.
from pulumi_modelarts.generated import inputs
from pulumi_modelarts.generated.fields import INPUT_FIELDS
from pulumi_modelarts.job.resource_schema import ProviderSettings, ResourceOutputs

# Args class -> the request model whose fields it must offer, exactly.
from pulumi_modelarts.wire import models

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
    assert _params(inputs.TrainingJobArgs) == set(INPUT_FIELDS)
    assert request_fields <= set(INPUT_FIELDS)


def test_every_typed_input_is_exported_from_the_package() -> None:
    import pulumi_modelarts

    assert set(inputs.__all__) <= set(pulumi_modelarts.__all__)
    for name in pulumi_modelarts.__all__:
        assert getattr(pulumi_modelarts, name) is not None, name


# ---------------------------------------------------------------------------------------------------------
# The generated documentation is the models' documentation

INPUTS_SOURCE = Path(inputs.__file__)
RESOURCE_SOURCE = Path(resource.__file__)


def _squash(text: str | None) -> str:
    return " ".join((text or "").split())


def _documented(source: Path) -> dict[str, dict[str, str]]:
    """class name -> {attribute or property name: its docstring}, read from the source file."""
    found: dict[str, dict[str, str]] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ClassDef):
            continue
        docs = found.setdefault(node.name, {})
        # Attributes declared under `if TYPE_CHECKING:` (TrainingJob's typed outputs) count as well.
        body = [
            s
            for item in node.body
            for s in ([*item.body, *item.orelse] if isinstance(item, ast.If) else [item])
        ]
        for previous, item in itertools.pairwise(body):
            if (
                isinstance(previous, ast.AnnAssign)
                and isinstance(previous.target, ast.Name)
                and isinstance(item, ast.Expr)
                and isinstance(item.value, ast.Constant)
            ):
                docs[previous.target.id] = _squash(item.value.value)
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and any(
                isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list
            ):
                docs[item.name] = _squash(ast.get_docstring(item))
    return found


def _models_in(annotation: object) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)


def _input_models() -> dict[str, type[BaseModel]]:
    """Typed input class name -> the request model it is generated from (every model in the create body)."""
    found: dict[str, type[BaseModel]] = {}
    todo: list[type[BaseModel]] = [models.CreateTrainingJobRequest]
    while todo:
        model = todo.pop()
        name = f"TrainingJob{vars(model).get('input_name', model.__name__)}Args"
        if found.setdefault(name, model) is not model:
            raise AssertionError(f"{name} would come from two models")
        for field in model.model_fields.values():
            todo += [m for m in _models_in(field.annotation) if m not in found.values()]
    return found


def _expected_fragments(field: FieldInfo) -> list[str]:
    """What the documentation of a field must say besides its description: its choices and its bounds."""
    fragments: list[str] = []
    annotation = field.annotation
    while get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is Literal:
        fragments += [f"`{choice}`" for choice in get_args(annotation)]
    for constraint in field.metadata:
        for attribute in ("ge", "gt", "le", "lt", "max_length"):
            if hasattr(constraint, attribute):
                fragments.append(str(getattr(constraint, attribute)))
    return fragments


def _check_doc(where: str, doc: str | None, field: FieldInfo) -> None:
    description = _squash(field.description)
    assert description, f"{where}: the model gives no description"
    assert doc is not None and doc.startswith(description), f"{where}: {doc!r} is not {description!r}"
    for fragment in _expected_fragments(field):
        assert fragment in doc[len(description) :], f"{where}: the docs do not state {fragment}"


def test_typed_input_docs_are_the_model_descriptions() -> None:
    documented = _documented(INPUTS_SOURCE)
    by_class = _input_models()
    checked = 0
    for args_name, model in by_class.items():
        if args_name == "TrainingJobArgs":
            continue  # the top-level class is checked below
        assert args_name in documented, f"{args_name} missing from inputs.py"
        for dict_or_class in (args_name, args_name + "Dict"):
            docs = documented[dict_or_class]
            for name, field in model.model_fields.items():
                if (field.json_schema_extra or {}).get("service_set"):  # type: ignore[union-attr]
                    assert name not in docs
                    continue
                # Both spell the field as Python does (node_selector_terms), as the native SDK's do.
                key = name
                _check_doc(f"{dict_or_class}.{key}", docs.get(key), field)
                checked += 1
    assert checked > 100


def test_top_level_docs_are_the_model_descriptions() -> None:
    fields = {**models.CreateTrainingJobRequest.model_fields, **ProviderSettings.model_fields}
    # Hidden settings are filled in by the resource itself: no argument, no docs.
    hidden = {n for n, f in fields.items() if (f.json_schema_extra or {}).get("hidden")}  # type: ignore[union-attr]
    assert hidden == {"name_scope"}
    fields = {n: f for n, f in fields.items() if n not in hidden}
    documented = _documented(INPUTS_SOURCE)
    for cls in ("TrainingJobArgs", "TrainingJobArgsDict"):
        assert set(documented[cls]) == set(fields)
        for name, field in fields.items():
            _check_doc(f"{cls}.{name}", documented[cls][name], field)
    # TrainingJob's keyword arguments and outputs, in resource.py.
    init_doc = _squash(inspect.getdoc(resource.TrainingJob.__init__))
    for name, field in fields.items():
        param = re.search(rf":param {name}: (.*?)(?= :param |$)", init_doc)
        assert param is not None, name
        _check_doc(f"TrainingJob({name}=...)", param.group(1), field)
    outputs = _documented(RESOURCE_SOURCE)["TrainingJob"]
    for name, field in ResourceOutputs.model_fields.items():
        _check_doc(f"TrainingJob.{name}", outputs.get(name), field)


def test_every_request_field_is_documented() -> None:
    for cls in _input_models().values():
        for name, field in cls.model_fields.items():
            assert field.description and field.description.strip(), f"{cls.__name__}.{name}"
        assert (cls.__doc__ or "").strip(), cls.__name__

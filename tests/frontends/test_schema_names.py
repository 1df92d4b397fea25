"""Schema names (camelCase) and wire names: the generated table translates every type both ways without loss,
agrees with schema.json, and the native plugin renames at its edge only what the schema names (never map keys
or values of any type), in inputs, outputs, check failures, diffs and the function."""

from __future__ import annotations

import inspect
import json
import keyword
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import CheckRequest, DiffRequest, PropertyDiffKind

from pulumi_modelarts.frontends import plugin, renaming
from pulumi_modelarts.frontends.native_values import outputs_map, property_map, to_plain
from pulumi_modelarts.generated import schema_names

from ..plugin_support import URN, diff, diff_kinds, engine_log, run

# The one the plugin serves.
SCHEMA_FILE = Path(plugin.__file__).parents[1] / "generated" / "schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
USER_KEY = "user_key.with-dots"


def sample(shape: str, depth: int = 0) -> Any:
    """A value of this shape with every property set (nested objects to a few levels), in wire names."""
    if shape.startswith("[]"):
        return [sample(shape[2:], depth), sample(shape[2:], depth)]
    if shape.startswith("{}"):
        return {USER_KEY: sample(shape[2:], depth), "snake_case_key": sample(shape[2:], depth)}
    if not shape or depth > 4:
        return {"any_value": ["kept_as_is"]}  # values of no object type keep their keys
    return {wire: sample(inner, depth + 1) for wire, (_schema, inner) in schema_names.TYPES[shape].items()}


def keys_at(value: Any, shape: str, depth: int = 0) -> set[str]:
    """The property names a value of this shape holds (in whichever names it has)."""
    if shape.startswith(("[]", "{}")):
        items = value if shape.startswith("[]") else list(value.values())
        return {k for item in items for k in keys_at(item, shape[2:], depth)}
    if not shape or depth > 4:
        return set()
    found = set(value)
    for wire, (schema, inner) in schema_names.TYPES[shape].items():
        for name in (wire, schema):
            if name in value:
                found |= keys_at(value[name], inner, depth + 1)
    return found


@pytest.mark.parametrize("type_name", sorted(schema_names.TYPES))
def test_every_type_round_trips_wire_to_schema_to_wire(type_name: str) -> None:
    wire = sample(type_name)
    schema = renaming.to_schema(wire, type_name)
    assert renaming.to_wire(schema, type_name) == wire
    # Every property renamed: no wire name with an underscore survives in the schema form.
    props = schema_names.TYPES[type_name]
    assert set(schema) == {s for s, _ in props.values()}
    assert not {k for k in keys_at(schema, type_name) if "_" in k} - {"snake_case_key", "user_key.with-dots"}


def test_no_two_wire_names_of_a_type_share_a_schema_name_or_take_another_ones_name() -> None:
    for type_name, props in schema_names.TYPES.items():
        schema = [s for s, _ in props.values()]
        assert len(set(schema)) == len(schema), type_name
        for wire, (name, _) in props.items():
            assert name == wire or name not in props, (type_name, wire)
            assert "_" not in name and name[:1].islower(), (type_name, name)


def test_the_table_names_what_the_schema_names() -> None:
    table = schema_names.TYPES
    for token, spec in SCHEMA["types"].items():
        name = token.rpartition(":")[2]
        assert set(spec["properties"]) <= {s for s, _ in table[name].values()}, name
    resource = SCHEMA["resources"]["modelarts:index:TrainingJob"]
    assert set(resource["inputProperties"]) <= {s for s, _ in table[schema_names.INPUTS].values()}
    assert set(resource["properties"]) == {s for s, _ in table[schema_names.OUTPUTS].values()}
    function = SCHEMA["functions"]["modelarts:index:getTrainingJobs"]
    assert set(function["inputs"]["properties"]) == {s for s, _ in table[schema_names.FUNCTION_ARGS].values()}
    assert "createdAfter" in function["inputs"]["properties"]
    assert resource["inputProperties"]["waitFor"] and resource["properties"]["secondaryPhase"]
    engine = SCHEMA["types"]["modelarts:index:TrainingJobEngine"]["properties"]
    assert "imageUrl" in engine and "image_url" not in engine


def test_inputs_nested_lists_of_objects_and_user_keys() -> None:
    given = {
        "metadata": {"name": "j", "annotations": {"job_template": "Template DL", "a.b/c_d": "x"}},
        "algorithm": {
            "engine": {"imageUrl": "org/img:1"},
            "inputs": [{"name": "data", "remote": {"obs": {"obsUrl": "/b/d/"}}}],
            "environments": {"MY_VAR": "1", "lower_case": "2"},
        },
        "spec": {"resource": {"flavorId": "f", "nodeCount": 2}, "logExportPath": {"obsUrl": "/b/l/"}},
        "triggers": {"some_key": [{"inner_key": 1}]},
        "waitFor": "running",
        "namePrefix": "p",
    }
    wire = renaming.to_wire(given, schema_names.INPUTS)
    assert wire == {
        "metadata": {"name": "j", "annotations": {"job_template": "Template DL", "a.b/c_d": "x"}},
        "algorithm": {
            "engine": {"image_url": "org/img:1"},
            "inputs": [{"name": "data", "remote": {"obs": {"obs_url": "/b/d/"}}}],
            "environments": {"MY_VAR": "1", "lower_case": "2"},
        },
        "spec": {"resource": {"flavor_id": "f", "node_count": 2}, "log_export_path": {"obs_url": "/b/l/"}},
        "triggers": {"some_key": [{"inner_key": 1}]},
        "wait_for": "running",
        "name_prefix": "p",
    }
    assert renaming.to_schema(wire, schema_names.INPUTS) == given


def test_a_name_the_schema_does_not_know_passes_and_a_known_one_wins() -> None:
    # Old (wire-named) state still reads: a wire name is not a schema name of its type and passes unchanged.
    old = {"spec": {"resource": {"flavor_id": "f", "node_count": 1}}, "wait_for": "none"}
    assert renaming.to_wire(old, schema_names.INPUTS) == old
    # Any mapping is renamed, not only a dict.
    assert renaming.to_wire(MappingProxyType({"waitFor": "none"}), schema_names.INPUTS) == {
        "wait_for": "none"
    }
    for both in ({"node_count": 1, "nodeCount": 2}, {"nodeCount": 2, "node_count": 1}):
        wire = renaming.to_wire({"spec": {"resource": both}}, schema_names.INPUTS)
        assert wire == {"spec": {"resource": {"node_count": 2}}}


def test_paths_in_schema_names() -> None:
    path = renaming.schema_path
    assert path("spec.resource.node_count") == "spec.resource.nodeCount"
    assert path("tasks[1].task_resource.flavor_id") == "tasks[1].taskResource.flavorId"
    assert path("algorithm.environments.MY_VAR") == "algorithm.environments.MY_VAR"
    assert path("metadata.annotations.a.b_c") == "metadata.annotations.a.b_c"
    assert path("metadata.annotations['x y_z']") == "metadata.annotations['x y_z']"
    assert path("wait_timeout") == "waitTimeout" and path("") == "" and path("(top level)") == "(top level)"
    assert path("algorithm.engine.image_urll") == "algorithm.engine.image_urll"  # unknown: as written
    assert path("secondary_phase", schema_names.OUTPUTS) == "secondaryPhase"


def test_check_failures_name_the_paths_the_user_wrote() -> None:
    news = {
        "metadata": {"description": "n"},
        "algorithm": {
            "engine": {"imageUrll": "org/img:1"},
            "command": "python train.py",
            "inputs": [{"name": "d", "remote": {"obs": {"obsUrl": 5}}}],
            "environments": {"A_B": 1},
        },
        "spec": {"resource": {"flavorId": "f", "nodeCount": 0}},
        "waitFr": "x",
        "waitTimeout": "abc",
    }
    answer = run(plugin.ModelArtsProvider().check(CheckRequest(URN, {}, property_map(news), b"")))
    failures = {(f.property, f.reason.partition(":")[0]): f.reason for f in answer.failures}
    assert failures[("", "spec.resource.nodeCount")] == "spec.resource.nodeCount: must be at least 1"
    assert failures[("", "algorithm.inputs[0].remote.obs.obsUrl")].endswith(": must be text")
    assert failures[("", "algorithm.environments.A_B")].endswith(": must be text")  # the user's key
    assert failures[("", "algorithm.engine.imageUrll")].endswith("unknown field; did you mean 'imageUrl'?")
    assert ("waitTimeout", "'abc' is not a duration") in failures
    [unknown] = [f.reason for f in answer.failures if f.property == "waitFr"]
    assert "waitFor, waitTimeout, triggers, replaceWhenFailed, namePrefix, onDestroy, keepRecord" in unknown
    assert "_" not in unknown


@pytest.mark.parametrize(
    ("algorithm", "warning"),
    [
        (
            {"engine": {"engineVersion": "2.1"}, "codeDir": "/b/c/", "bootFile": "/b/c/t.py"},
            "algorithm.engine.engineName: the API pages choose a preset engine by engineName with "
            "engineVersion",
        ),
        (
            {"subscriptionId": "s"},
            "algorithm.itemVersionId: the API pages use itemVersionId together with subscriptionId",
        ),
        (
            {"engine": {"engineName": "PyTorch", "engineVersion": "x"}, "command": "run"},
            "algorithm.command: the API pages use command to start a custom image (engine.imageUrl); on a "
            "preset engine the service may ignore it",
        ),
    ],
)
def test_rules_name_the_fields_as_the_user_wrote_them(
    algorithm: dict[str, Any], warning: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # These rules are the API pages' advice (docs/input-rules.md): a warning on the job's row, not a failure.
    provider = plugin.ModelArtsProvider()
    logged = engine_log(monkeypatch)
    news = {"algorithm": algorithm, "spec": {"resource": {"flavorId": "f", "nodeCount": 1}}}
    answer = run(provider.check(CheckRequest(URN, {}, property_map(news), b"")))
    assert [f.reason for f in answer.failures] == []
    assert logged == [(URN, warning, True)]


def test_a_reason_keeps_words_that_are_not_names_of_its_object() -> None:
    # Values and user keys in a reason stay as they are; only names of the failing object's type change.
    path, reason = renaming.schema_failure("algorithm.environments.MY_VAR", "my_value is not image_url")
    assert (path, reason) == ("algorithm.environments.MY_VAR", "my_value is not image_url")
    path, reason = renaming.schema_failure("spec.resource", "'/b/node_count/' is not flavor_id, nor pool_x")
    assert (path, reason) == ("spec.resource", "'/b/node_count/' is not flavorId, nor pool_x")


def test_detailed_diff_keys_and_replace_reasons_are_schema_names() -> None:
    base = {
        "metadata": {"name": "train-abc123", "description": "nightly"},
        "algorithm": {"engine": {"imageUrl": "org/img:1"}, "command": "python train.py"},
        "spec": {"resource": {"flavorId": "f", "nodeCount": 1}},
    }
    old = {**base, "waitTimeout": "10m"}
    new = {**base, "trainType": "SFT", "waitTimeout": "20m", "replaceWhenFailed": True}
    answer = diff(old, new)
    assert answer.replaces == ["trainType"]
    assert diff_kinds(answer) == {
        "trainType": PropertyDiffKind.ADD_REPLACE,
        "waitTimeout": PropertyDiffKind.UPDATE,
        "replaceWhenFailed": PropertyDiffKind.ADD,
    }


def test_a_state_written_with_wire_names_shows_no_diff() -> None:
    declared = {
        "metadata": {"name": "train-abc123", "description": "nightly"},
        "algorithm": {"engine": {"image_url": "org/img:1"}, "command": "python train.py"},
        "spec": {"resource": {"flavor_id": "f", "node_count": 1}},
        "wait_for": "running",
    }
    state = property_map({"phase": "Running", "metadata": {"id": "j"}, "declared_inputs": declared})
    news = renaming.to_schema(declared, schema_names.INPUTS)
    assert news["waitFor"] == "running"
    answer = run(plugin.ModelArtsProvider().diff(DiffRequest(URN, "j", state, property_map(news), [])))
    assert answer.changes is False and answer.detailed_diff == {}


def test_outputs_in_schema_names_with_lists_of_objects_and_secrets() -> None:
    wire = {
        "phase": "Running",
        "secondary_phase": "Running",
        "status": {"secondary_phase": "Running", "task_statuses": [{"task": "worker-0", "exit_code": 0}]},
        "algorithm": {"engine": {"image_url": "org/img:1"}, "environments": {"K_1": "v"}},
        "environments": {"K_1": "v"},
        "declared_inputs": {"spec": {"resource": {"node_count": 1}}, "wait_for": "none"},
    }
    outs = outputs_map(wire, {})
    plain = to_plain(PropertyValue(outs))
    assert plain["secondaryPhase"] == "Running"
    assert plain["status"]["taskStatuses"] == [{"task": "worker-0", "exitCode": 0}]
    assert plain["algorithm"]["engine"] == {"imageUrl": "org/img:1"}
    assert plain["environments"] == {"K_1": "v"}
    assert plain["declaredInputs"] == {"spec": {"resource": {"nodeCount": 1}}, "waitFor": "none"}
    assert outs["environments"].is_secret and outs["declaredInputs"].is_secret
    assert not outs["secondaryPhase"].is_secret


def _snake(wire: str) -> str:
    """A wire name as Python names it: itself, or snake_case where the API spells it in camelCase already
    (``matchExpressions``; the SDK named those ``match_expressions`` before the schema was camelCase too)."""
    snake = re.sub(r"(?<!^)([A-Z])", r"_\1", wire).lower()
    return f"{snake}_" if keyword.iskeyword(snake) or snake == "exec" else snake  # as Pulumi escapes them


def _python_names(cls: type) -> set[str]:
    return {n for n in inspect.signature(cls.__init__).parameters if n not in ("self", "__self__")}


def test_the_native_python_sdk_keeps_the_wire_names() -> None:
    # Python programs are the same for both front-ends: the generated SDK maps the schema's camelCase back
    # to snake_case, which must be the wire name of every property of every type.
    import pulumi_modelarts_native as native
    from pulumi import _types
    from pulumi_modelarts_native import outputs

    assert _types.input_type_py_to_pulumi_names(native.TrainingJobEngineArgs)["image_url"] == "imageUrl"
    for token, spec in SCHEMA["types"].items():
        name = token.rpartition(":")[2]
        wire = {w for w, (s, _) in schema_names.TYPES[name].items() if s in spec["properties"]}
        if name.startswith("TrainingJob") and name != "TrainingJobDetails":
            args = getattr(native, f"{name}Args")
            assert _python_names(args) == {_snake(w) for w in wire}, name
            assert _types.input_type_py_to_pulumi_names(args) == {
                _snake(w): schema_names.TYPES[name][w][0] for w in wire
            }, name
        else:
            assert _python_names(getattr(outputs, name)) == {_snake(w) for w in wire}, name
    inputs = {w for w, (s, _) in schema_names.TYPES[schema_names.INPUTS].items() if s != "nameScope"}
    assert _python_names(native.TrainingJobArgs) == inputs
    assert {"wait_for", "name_prefix", "ftjob_config"} <= inputs
    args = set(inspect.signature(native.get_training_jobs).parameters) - {"opts"}
    assert args == set(schema_names.TYPES[schema_names.FUNCTION_ARGS])

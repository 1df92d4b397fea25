"""Pure rules for declared inputs: normalising, naming, update versus replace."""

from __future__ import annotations

import json
import re
import types
from typing import Any

import pytest
from pulumi.runtime import rpc

from pulumi_modelarts.job import diffing as d
from pulumi_modelarts.job import naming, normalising
from pulumi_modelarts.job.normalising import NOT_KNOWN


def declared(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "job",
        "metadata": {"name": "train-abc123", "description": "nightly"},
        "algorithm": {
            "engine": {"image_url": "org/img:1"},
            "command": "python train.py",
            "parameters": [{"name": "lr", "value": "0.1"}],
            "environments": {"A": "1"},
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 2}},
        "wait_for": "pending",
    }
    base.update(overrides)
    return base


def test_normalise_defaults_kind_drops_provider_and_none_and_fixes_floats() -> None:
    out = normalising.normalise_inputs(
        {
            "__provider": "x",
            "metadata": {"name": "n", "description": None},
            "spec": {"resource": {"node_count": 2.0}},
            "wait_timeout": 1.5,
        }
    )
    assert out == {
        "kind": "job",
        "metadata": {"name": "n"},
        "spec": {"resource": {"node_count": 2}},
        "wait_timeout": 1.5,
    }
    assert isinstance(out["spec"]["resource"]["node_count"], int)
    assert normalising.normalise_inputs({"kind": "job"})["kind"] == "job"


def test_normalise_unwraps_rpc_secrets_and_keeps_unknowns() -> None:
    unknown = NOT_KNOWN
    out = normalising.normalise_inputs(
        {"algorithm": rpc.wrap_rpc_secret({"environments": {"K": "v"}}), "spec": unknown}
    )
    assert out["algorithm"] == {"environments": {"K": "v"}}
    assert out["spec"] is unknown


def test_normalise_is_unwrap_then_clean_for_every_kind_of_value() -> None:
    # normalise_inputs walks once, testing exact types first; its answer is the two-walk one's.
    unknown = NOT_KNOWN
    props: dict[str, Any] = {
        "a": rpc.wrap_rpc_secret(None),
        "b": rpc.wrap_rpc_secret([1.0, rpc.wrap_rpc_secret({"x": 2.0, "y": None})]),
        "c": ({"d": 3.0}, None, 4.5, True, float("inf")),
        "e": types.MappingProxyType({"f": None, 1: "one"}),
        "g": {"h": unknown, "i": NOT_KNOWN, "j": 0, "k": False},
        "kind": "job",
    }
    assert normalising.normalise_inputs(props) == normalising.clean(normalising.unwrap_secrets(props))
    out = normalising.normalise_inputs(props)
    assert out["b"] == [1, {"x": 2}] and isinstance(out["b"][0], int)
    assert "a" not in out and out["e"] == {"1": "one"} and out["g"]["h"] is unknown


def test_no_change() -> None:
    decision = d.decide(declared(), declared())
    assert not decision.changes
    assert decision.replaces == []


def test_key_order_service_fields_and_empty_collections_do_not_matter() -> None:
    old = declared()
    new = declared(
        spec={"resource": {"node_count": 2.0, "flavor_id": "modelarts.vm.cpu.2u"}, "volumes": []},
        kind=None,
        tasks=None,
    )
    assert not d.decide(old, new).changes


def test_description_change_is_an_update() -> None:
    new = declared(metadata={"name": "train-abc123", "description": "weekly"})
    decision = d.decide(declared(), new)
    assert decision.changes
    assert decision.description_changed
    assert decision.replaces == []


def test_removing_description_is_an_update() -> None:
    decision = d.decide(declared(), declared(metadata={"name": "train-abc123"}))
    assert decision.description_changed and not decision.replaces


@pytest.mark.parametrize(
    "setting", ["wait_for", "wait_timeout", "replace_when_failed", "name_prefix", "on_destroy", "keep_record"]
)
def test_provider_settings_update_without_replace(setting: str) -> None:
    value = {
        "wait_for": "running",
        "wait_timeout": "5m",
        "replace_when_failed": True,
        "name_prefix": "other",
        "on_destroy": "delete",
        "keep_record": False,
    }[setting]
    decision = d.decide(declared(), declared(**{setting: value}))
    assert decision.changes
    assert decision.settings_changed == [setting]
    assert decision.replaces == []
    assert not decision.description_changed


@pytest.mark.parametrize(
    ("overrides", "replaces"),
    [
        ({"spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 3}}}, ["spec"]),
        ({"algorithm": {"engine": {"image_url": "org/img:2"}, "command": "python train.py"}}, ["algorithm"]),
        ({"metadata": {"name": "other", "description": "nightly"}}, ["metadata"]),
        (
            {"metadata": {"name": "train-abc123", "description": "nightly", "annotations": {"a": "b"}}},
            ["metadata"],
        ),
        ({"triggers": ["v2"]}, ["triggers"]),
        ({"kind": "other"}, ["kind"]),
        ({"tasks": [{"role": "x"}]}, ["tasks"]),
    ],
)
def test_replacing_changes_name_the_property(overrides: dict[str, Any], replaces: list[str]) -> None:
    decision = d.decide(declared(), declared(**overrides))
    assert decision.replaces == replaces
    assert decision.changes


def test_environment_change_replaces_algorithm() -> None:
    algorithm = dict(declared()["algorithm"], environments={"A": "2"})
    assert d.decide(declared(), declared(algorithm=algorithm)).replaces == ["algorithm"]


def test_several_changes_are_all_listed() -> None:
    new = declared(
        spec={"resource": {"node_count": 1}},
        triggers=[1],
        metadata={"name": "train-abc123", "description": "x"},
    )
    decision = d.decide(declared(), new)
    assert decision.replaces == ["spec", "triggers"]
    assert decision.description_changed


def test_unknowns_in_replacing_fields_mean_replace() -> None:
    new = declared(spec={"resource": {"flavor_id": NOT_KNOWN, "node_count": 2}})
    assert d.decide(declared(), new).replaces == ["spec"]
    assert d.decide(declared(), declared(triggers=NOT_KNOWN)).replaces == ["triggers"]
    assert d.decide(declared(), declared(metadata=NOT_KNOWN)).replaces == ["metadata"]
    # An unknown description is still only an in-place update.
    meta = {"name": "train-abc123", "description": NOT_KNOWN}
    decision = d.decide(declared(), declared(metadata=meta))
    assert decision.description_changed and decision.replaces == []
    # An unknown provider setting is an update, never a replace.
    decision = d.decide(declared(), declared(wait_for=NOT_KNOWN))
    assert decision.settings_changed == ["wait_for"] and decision.replaces == []


@pytest.mark.parametrize(
    ("phase", "secondary"), [("Failed", "Failed"), ("Abnormal", None), ("Abnormal", "CreateFailed")]
)
def test_replace_when_failed(phase: str, secondary: str | None) -> None:
    new = declared(replace_when_failed=True)
    old = declared(replace_when_failed=True)
    decision = d.decide(old, new, last_phase=phase, last_secondary_phase=secondary)
    assert decision.replaces == ["status"]
    assert phase in decision.reasons[0]
    assert not d.decide(
        old, declared(replace_when_failed=False), last_phase=phase, last_secondary_phase=secondary
    ).replaces
    assert not d.decide(old, new, last_phase="Running").replaces
    assert not d.decide(old, new, last_phase="Completed").replaces


def test_missing_declared_inputs_replaces_everything_declared() -> None:
    decision = d.decide(None, declared())
    assert set(decision.replaces) == {"metadata", "algorithm", "spec"}


def test_sanitise_and_generate_names() -> None:
    assert naming.sanitise_prefix("my train.job!") == "my-train-job"
    assert naming.sanitise_prefix("__ok_-") == "__ok_"
    assert naming.sanitise_prefix("!!!") == "job"
    assert naming.sanitise_prefix(None) == "job"
    long = naming.generate_name("x" * 200)
    assert len(long) == 64
    assert re.fullmatch(r"x{57}-[a-z0-9]{6}", long)
    name = naming.generate_name("train")
    assert re.fullmatch(r"train-[a-z0-9]{6}", name)
    assert naming.generate_name("a", lambda: "zzzzzz") == "a-zzzzzz"


def test_with_job_name_generates_reuses_and_respects_explicit() -> None:
    news: dict[str, Any] = {"metadata": {"description": "x"}, "name_prefix": "train"}
    named = naming.with_job_name(news, None, suffix=lambda: "abc123")
    assert named["metadata"] == {"description": "x", "name": "train-abc123"}
    assert "name" not in news["metadata"]  # input not mutated
    again = naming.with_job_name(news, named)
    assert again["metadata"]["name"] == "train-abc123"
    # A new prefix does not rename a job that already has a name.
    renamed = naming.with_job_name({**news, "name_prefix": "other"}, named)
    assert renamed["metadata"]["name"] == "train-abc123"
    explicit = naming.with_job_name({"metadata": {"name": "mine"}}, named)
    assert explicit["metadata"]["name"] == "mine"
    no_meta = naming.with_job_name({}, None, default_prefix="res", suffix=lambda: "qqqqqq")
    assert no_meta["metadata"] == {"name": "res-qqqqqq"}
    assert naming.with_job_name({"metadata": "junk"}, None) == {"metadata": "junk"}
    unknown_meta = NOT_KNOWN
    assert naming.with_job_name({"metadata": unknown_meta}, None)["metadata"] is unknown_meta
    pending = naming.with_job_name({"name_prefix": NOT_KNOWN}, None)
    assert normalising.is_unknown(pending["metadata"]["name"])


def test_contains_unknown() -> None:
    assert normalising.contains_unknown({"a": [1, {"b": NOT_KNOWN}]})
    assert normalising.contains_unknown([NOT_KNOWN])
    assert not normalising.contains_unknown({"a": [1, {"b": "c"}]})


def test_leaves_name_each_changed_value_by_key_and_index() -> None:
    algorithm = dict(declared()["algorithm"])
    algorithm["parameters"] = [{"name": "lr", "value": "0.2"}, {"name": "epochs", "value": "3"}]
    new = declared(
        algorithm=algorithm, spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 4}}
    )
    decision = d.decide(declared(), new)
    assert decision.replaces == ["algorithm", "spec"]
    assert decision.leaves == [
        d.Leaf("algorithm.parameters[0].value", d.UPDATE, True),
        d.Leaf("algorithm.parameters[1]", d.ADD, True),
        d.Leaf("spec.resource.node_count", d.UPDATE, True),
    ]
    assert decision.forcing() == [leaf.path for leaf in decision.leaves]
    assert decision.reasons == [
        "algorithm.parameters[0].value, algorithm.parameters[1] changed",
        "spec.resource.node_count changed",
    ]


def test_leaves_of_removed_and_unset_values_and_quoted_keys() -> None:
    old = declared(metadata={"name": "n", "annotations": {"team/owner": "a", "x": "1"}})
    new = declared(metadata={"name": "n", "annotations": {"x": "1", "y": None}, "description": "new"})
    decision = d.decide(old, new)
    assert decision.leaves == [
        d.Leaf('metadata.annotations["team/owner"]', d.DELETE, True),
        d.Leaf("metadata.description", d.ADD, False),  # in place, but the whole job is new anyway
    ]
    assert not decision.description_changed  # the new job is created with it
    # A map left with nothing set is gone as a whole.
    gone = d.decide(old, declared(metadata={"name": "n", "annotations": {"x": None}}))
    assert gone.leaves == [d.Leaf("metadata.annotations", d.DELETE, True)]
    # An empty map or list is as good as none.
    assert d.leaves({"a": {}, "b": [1]}, {"b": [1], "c": []}, "x") == []


def test_leaves_of_secret_maps_name_keys_never_values() -> None:
    algorithm = dict(declared()["algorithm"], environments={"A": "s3cr3t-new", "B.C": "other"})
    decision = d.decide(declared(), declared(algorithm=algorithm))
    assert decision.leaves == [
        d.Leaf("algorithm.environments.A", d.UPDATE, True),
        d.Leaf('algorithm.environments["B.C"]', d.ADD, True),
    ]
    text = repr(decision)
    assert "s3cr3t" not in text and "other" not in text


def test_leaves_of_unknowns_settings_description_and_status() -> None:
    new = declared(spec={"resource": {"flavor_id": NOT_KNOWN, "node_count": 2}}, wait_for="running")
    decision = d.decide(declared(), new)
    assert decision.leaves == [
        d.Leaf("spec.resource.flavor_id", d.UPDATE, True),
        d.Leaf("wait_for", d.UPDATE, False),
    ]
    decision = d.decide(declared(), declared(metadata={"name": "train-abc123", "description": "weekly"}))
    assert decision.leaves == [d.Leaf("metadata.description", d.UPDATE, False)] and not decision.forcing()
    assert d.decide(declared(), declared(tasks=NOT_KNOWN)).leaves == [d.Leaf("tasks", d.ADD, True)]
    failed = d.decide(
        declared(replace_when_failed=True), declared(replace_when_failed=True), last_phase="Failed"
    )
    assert failed.leaves == [d.Leaf("status", d.UPDATE, True)]


def test_leaf_paths_follow_pulumis_property_path_syntax() -> None:
    assert d.leaf_path("", "spec") == "spec"
    assert d.leaf_path("a", 3) == "a[3]"
    assert d.leaf_path("a", "_ok9") == "a._ok9"
    for key in ("with.dot", "slash/ed", "9lives", 'quote"d', "wide é"):
        path = d.leaf_path("env", key)
        assert path.startswith("env[") and path.endswith("]")
        assert json.loads(path[4:-1]) == key

"""The dynamic provider takes a Python program's plain dicts in Python's spelling at every level, as the
native Python SDK does: ``node_selector_terms`` where the wire spells ``nodeSelectorTerms``; the wire's
spelling keeps working, and each problem is named in the spelling the program used."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pulumi_modelarts.frontends import renaming
from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

from ..support import minimal_job

AFFINITY = "spec.schedule_policy.required_affinity.node_affinity"

# Terraform's TestAccTrainingJob_debug_job affinity, as a Python program writes it.
PYTHON_AFFINITY = {
    "required_affinity": {
        "node_affinity": {
            "node_selector_terms": [
                {"match_expressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                {"match_fields": [{"key": "gpus", "operator": "Gt", "values": ["3"]}]},
            ]
        }
    }
}
WIRE_AFFINITY = {
    "required_affinity": {
        "node_affinity": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                {"matchFields": [{"key": "gpus", "operator": "Gt", "values": ["3"]}]},
            ]
        }
    }
}


def job_with(policy: Any) -> dict[str, Any]:
    job = minimal_job()
    job["spec"]["schedule_policy"] = copy.deepcopy(policy)
    return {**job, "wait_for": "none", "name_prefix": "affinity", "name_scope": "proj/dev"}


def checked(news: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """What the dynamic provider's check answers: the inputs it stores and its failures (path, reason)."""
    result = TrainingJobProvider().check({}, news)
    return result.inputs, [(f.property or "", f.reason) for f in result.failures or []]


def test_python_names_are_the_native_python_sdks() -> None:
    # Pulumi's code generator named every property of the native SDK; renaming derives the same names from
    # the schema's, and the wire models' field names are those names too.
    import pulumi_modelarts_native as native
    from pulumi import _types

    from pulumi_modelarts.wire import models

    schema = json.loads((Path(renaming.__file__).parents[1] / "generated" / "schema.json").read_text())
    compared = 0
    for token, spec in schema["types"].items():
        type_name = token.rpartition(":")[2]
        args = getattr(native, f"{type_name}Args", None)
        if args is None:
            continue
        py_to_schema = _types.input_type_py_to_pulumi_names(args)
        for name in spec["properties"]:
            python = renaming.python_name(name)
            # A Python keyword gets a trailing underscore in the SDK (exec_), as Pulumi escapes them.
            assert py_to_schema.get(python, py_to_schema.get(f"{python}_")) == name, (type_name, name)
            compared += 1
    assert compared > 200
    model_fields = models.NodeAffinity.model_fields
    assert "node_selector_terms" in model_fields
    assert model_fields["node_selector_terms"].alias == "nodeSelectorTerms"


def test_either_spelling_reaches_the_wire_alike() -> None:
    assert renaming.from_python(job_with(PYTHON_AFFINITY)) == job_with(WIRE_AFFINITY)
    assert renaming.from_python(job_with(WIRE_AFFINITY)) == job_with(WIRE_AFFINITY)
    # Map keys are the user's: never renamed.
    job = job_with(PYTHON_AFFINITY)
    job["algorithm"]["environments"] = {"node_selector_terms": "x", "matchFields": "y"}
    assert renaming.from_python(job)["algorithm"]["environments"] == {
        "node_selector_terms": "x",
        "matchFields": "y",
    }


def test_the_dynamic_check_stores_the_wires_spelling_whichever_was_written() -> None:
    python_inputs, python_failures = checked(job_with(PYTHON_AFFINITY))
    wire_inputs, wire_failures = checked(job_with(WIRE_AFFINITY))
    assert python_failures == wire_failures == []
    assert python_inputs == wire_inputs
    affinity = python_inputs["spec"]["schedule_policy"]["required_affinity"]["node_affinity"]
    assert affinity == WIRE_AFFINITY["required_affinity"]["node_affinity"]


@pytest.mark.parametrize(
    ("policy", "path", "reason"),
    [
        pytest.param(
            {"required_affinity": {"node_affinity": {"node_selector_terms": [
                {"match_expressions": [{"key": "zone", "operator": "In", "values": []}]}]}}},
            f"{AFFINITY}.node_selector_terms[0].match_expressions[0].values",
            "In needs at least one value",
            id="python",
        ),
        pytest.param(
            {"required_affinity": {"node_affinity": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": []}]}]}}},
            f"{AFFINITY}.nodeSelectorTerms[0].matchExpressions[0].values",
            "In needs at least one value",
            id="wire",
        ),
        pytest.param(
            {"required_affinity": {"node_affinity": {"node_selector_terms": [{}]}}},
            f"{AFFINITY}.node_selector_terms[0]",
            "give either match_expressions or match_fields",
            id="python-rule-names-its-fields",
        ),
        pytest.param(
            {"required_affinity": {"node_affinity": {"nodeSelectorTerms": [{}]}}},
            f"{AFFINITY}.nodeSelectorTerms[0]",
            "give either matchExpressions or matchFields",
            id="wire-rule-names-its-fields",
        ),
    ],
)  # fmt: skip
def test_a_problem_is_named_as_the_program_wrote_it(policy: Any, path: str, reason: str) -> None:
    _inputs, failures = checked(job_with(policy))
    assert failures == [("", f"{path}: {reason}")]


def test_a_key_matching_no_field_names_the_one_probably_meant_in_the_programs_spelling() -> None:
    def failures_of(affinity: dict[str, Any]) -> list[tuple[str, str]]:
        return checked(job_with({"required_affinity": {"node_affinity": affinity}}))[1]

    failures = failures_of({"node_selector_term": []})
    assert ("", f"{AFFINITY}.node_selector_term: unknown field; did you mean 'node_selector_terms'?") in (
        failures
    )
    assert ("", f"{AFFINITY}.node_selector_terms: is required") in failures
    failures = failures_of({"nodeSelectorTerm": []})
    assert ("", f"{AFFINITY}.nodeSelectorTerm: unknown field; did you mean 'nodeSelectorTerms'?") in failures


def test_both_spellings_of_one_property_are_refused() -> None:
    both = {
        **PYTHON_AFFINITY["required_affinity"]["node_affinity"],
        **WIRE_AFFINITY["required_affinity"]["node_affinity"],
    }
    _inputs, failures = checked(job_with({"required_affinity": {"node_affinity": both}}))
    reason = "also given as 'node_selector_terms'; give one of the two spellings"
    assert failures == [("", f"{AFFINITY}.nodeSelectorTerms: {reason}")]

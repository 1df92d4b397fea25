"""The one walker of the secret inputs' paths (``secret_paths``), in each representation it is given:
plain data (removed, collected, rpc-wrapped as the dynamic provider does), ``PropertyValue``s (the native
plugin), response models (read through attributes) and a representation of its own, through lists of tasks,
absent parts and values not known yet. The program side's (``pulumi.Output``s, typed Args) is test_resource's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.runtime import rpc

from pulumi_modelarts.frontends.native_values import property_map, with_secret_inputs
from pulumi_modelarts.generated import fields
from pulumi_modelarts.job import secret_paths
from pulumi_modelarts.job.secret_paths import (
    ATTRIBUTES,
    ENVIRONMENTS,
    ITEMS,
    JOB_ENVIRONMENTS,
    PLAIN,
    SECRET_PATHS,
    Steps,
    found,
    mark,
    parse,
    renamed,
    rewrite,
    without,
)

TASK_ENV = ("tasks", ITEMS, "algorithm", "environments")


def job(**fields_: Any) -> dict[str, Any]:
    """Plain inputs: the job's environment, one task with its own and one without."""
    base: dict[str, Any] = {
        "kind": "job",
        "algorithm": {"command": "run", "environments": {"TOKEN": "top-secret"}},
        "tasks": [
            {"role": "worker", "algorithm": {"code_dir": "/c", "environments": {"KEY": "task-secret"}}},
            {"role": "ps"},
        ],
    }
    return {**base, **fields_}


def test_paths_are_parsed_once_from_the_generated_list() -> None:
    assert parse("tasks[].algorithm.environments") == TASK_ENV
    assert parse("algorithm.environments") == ("algorithm", "environments")
    assert parse("a[].b[]") == ("a", ITEMS, "b", ITEMS)
    assert tuple(parse(path) for path in fields.SECRET_INPUTS) == SECRET_PATHS
    # The environments' location, which recorded, waiting and reports use: derived, not written again.
    assert ENVIRONMENTS == (("algorithm", "environments"), TASK_ENV)
    assert JOB_ENVIRONMENTS == ("algorithm", "environments")


def test_paths_renamed_as_renaming_spells_a_path() -> None:
    seen: list[str] = []

    def upper(path: str) -> str:
        seen.append(path)
        return path.upper()

    assert renamed(upper, SECRET_PATHS) == (
        ("ALGORITHM", "ENVIRONMENTS"),
        ("TASKS", ITEMS, "ALGORITHM", "ENVIRONMENTS"),
    )
    assert seen == ["algorithm.environments", "tasks[0].algorithm.environments"]


def test_without_removes_every_secret_input_and_leaves_the_callers_value_alone() -> None:
    given = job()
    before = copy.deepcopy(given)
    public = without(given)
    assert public == {
        "kind": "job",
        "algorithm": {"command": "run"},
        "tasks": [{"role": "worker", "algorithm": {"code_dir": "/c"}}, {"role": "ps"}],
    }
    assert given == before
    assert public["tasks"][1] is given["tasks"][1]  # only what held a secret is copied


def test_without_leaves_absent_unknown_and_other_shapes_as_they_are() -> None:
    nothing = {"kind": "job", "metadata": {"name": "x"}}
    assert without(nothing) is nothing
    unknown = {"algorithm": rpc.UNKNOWN, "tasks": rpc.UNKNOWN}
    assert without(unknown) is unknown
    odd = {"algorithm": ["not", "a", "map"], "tasks": {"not": "a list"}}
    assert without(odd) is odd
    assert without(None) is None
    tuples = {"tasks": ({"algorithm": {"environments": {"K": "v"}, "code_dir": "/c"}},)}
    assert without(tuples) == {"tasks": [{"algorithm": {"code_dir": "/c"}}]}


def test_found_collects_in_the_order_of_the_paths_and_skips_what_is_unset() -> None:
    assert found(job()) == [{"TOKEN": "top-secret"}, {"KEY": "task-secret"}]
    assert found(job(), (JOB_ENVIRONMENTS,)) == [{"TOKEN": "top-secret"}]
    assert found({"algorithm": {"environments": None}, "tasks": [rpc.UNKNOWN, {}]}) == []
    assert found({"tasks": [{"algorithm": {"environments": rpc.UNKNOWN}}]}) == [rpc.UNKNOWN]
    assert found({}) == []


def test_found_reads_a_response_model_through_its_attributes() -> None:
    from pulumi_modelarts.wire.models import TrainingJob

    sent = TrainingJob.model_validate(
        {
            "metadata": {"id": "j-1", "name": "hetero"},
            "algorithm": {"command": "run", "environments": [{"TOKEN": "top-secret"}]},
            "tasks": [
                {"role": "worker", "algorithm": {"environments": {"KEY": "task-secret"}}},
                {"role": "ps"},
            ],
        }
    )
    assert found(sent, ENVIRONMENTS, ATTRIBUTES) == [[{"TOKEN": "top-secret"}], {"KEY": "task-secret"}]
    assert found(TrainingJob.model_validate({"metadata": {"id": "j-2"}}), ENVIRONMENTS, ATTRIBUTES) == []


def test_plain_marking_wraps_each_secret_as_rpc_does() -> None:
    # The dynamic provider hands inputs back to the engine so.
    marked = mark(job(), PLAIN, rpc.wrap_rpc_secret)
    environments = marked["algorithm"]["environments"]
    assert rpc.is_rpc_secret(environments) and rpc.unwrap_rpc_secret(environments) == {"TOKEN": "top-secret"}
    task_env = marked["tasks"][0]["algorithm"]["environments"]
    assert rpc.is_rpc_secret(task_env) and rpc.unwrap_rpc_secret(task_env) == {"KEY": "task-secret"}
    assert not rpc.is_rpc_secret(marked["algorithm"]) and not rpc.is_rpc_secret(marked["tasks"])
    assert marked["tasks"][1] == {"role": "ps"} and marked["kind"] == "job"
    assert job() == job()  # a fresh value each time: nothing above changed the caller's


def test_property_values_are_marked_through_lists_of_tasks_keeping_dependencies() -> None:
    # The native plugin's values, in schema names (the same spelling for these paths).
    news = property_map(job(spec={"resource": {"nodeCount": 1}}))
    news["tasks"] = PropertyValue(news["tasks"].value, dependencies=["urn:a"])
    marked = with_secret_inputs(news)
    assert marked["algorithm"].value["environments"].is_secret
    assert not marked["algorithm"].is_secret and not marked["algorithm"].value["command"].is_secret
    first, second = marked["tasks"].value
    assert first.value["algorithm"].value["environments"].is_secret
    assert not first.value["role"].is_secret and second == news["tasks"].value[1]
    assert marked["tasks"].dependencies == news["tasks"].dependencies
    assert marked["spec"] is news["spec"]


def test_property_values_not_known_yet_are_left_as_they_are() -> None:
    news = {"algorithm": PropertyValue(Computed()), "tasks": PropertyValue([PropertyValue(Computed())])}
    marked = with_secret_inputs(news)
    assert marked["algorithm"] is news["algorithm"]
    assert isinstance(marked["tasks"].value[0].value, Computed)
    assert with_secret_inputs({}) == {}


def test_any_representation_is_walked_by_its_steps() -> None:
    # A representation of its own: values boxed in a one-item list, fields in a dict inside.
    def into_field(value: list[Any], name: str, inner: Callable[[list[Any]], list[Any]]) -> list[Any]:
        fields_ = value[0]
        return (
            [{**fields_, name: inner(fields_[name])}]
            if isinstance(fields_, dict) and name in fields_
            else value
        )

    def into_items(value: list[Any], inner: Callable[[list[Any]], list[Any]]) -> list[Any]:
        return [[inner(item) for item in value[0]]] if isinstance(value[0], list) else value

    boxed: Steps[list[Any]] = Steps(into_field, into_items)
    tasks = [[[{"algorithm": [{"environments": ["s"]}]}], [{"role": ["ps"]}]]]
    given: dict[str, list[Any]] = {"tasks": tasks, "kind": ["job"]}
    marked = mark(given, boxed, lambda value: ["SECRET", *value])
    assert marked == {
        "tasks": [[[{"algorithm": [{"environments": ["SECRET", "s"]}]}], [{"role": ["ps"]}]]],
        "kind": ["job"],
    }
    assert rewrite(["leaf"], (), boxed, lambda value: ["marked"]) == ["marked"]
    assert secret_paths.rewrite([None], TASK_ENV, boxed, lambda value: ["never"]) == [None]

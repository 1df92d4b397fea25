"""Wire models: every API-page example parses, requests round-trip, rules give plain (path, message)."""

from __future__ import annotations

import copy
import json
import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from pulumi_modelarts.job import core
from pulumi_modelarts.job.resource_schema import ProviderSettings
from pulumi_modelarts.wire import models as m

from ..check_failures import path_and_reason
from ..support import REPO, SEEDS, poll, require

DATA = REPO / "tests" / "data" / "seed_examples"

# The JSON examples of each API page, in the order they appear there (copied to tests/data/seed_examples).
SEED_EXAMPLES: dict[str, list[str]] = {
    "000_11a2338cea74f368.txt": ["terminate_request_000", "terminate_response_000"],
    "001_63ab89c891148f33.txt": ["terminate_request_001", "terminate_response_001"],
    "002_268fe6fc14cf50e2.txt": ["get_response_002"],
    "003_126c216e710dc1ec.txt": [
        "create_request_free_flavor_003",
        "create_request_custom_image_003",
        "create_response_003",
        "error_400_003",
    ],
    "004_29e9fd000714b3b8.txt": ["search_request_004", "search_response_004"],
}
CREATE_REQUESTS = ["create_request_free_flavor_003", "create_request_custom_image_003"]
JOB_RESPONSES = [
    "terminate_response_000",
    "terminate_response_001",
    "get_response_002",
    "create_response_003",
]

# Words that betray Python/pydantic internals; user-facing messages must not contain them.
JARGON = re.compile(
    r"\b(int_parsing|extra_forbidden|string_type|dict_type|model_type|Input should|pydantic|instance of|"
    r"NoneType|str|int|bool|dict|float|list\[|Value error|type=)\b"
)


def load(name: str) -> Any:
    return json.loads((DATA / f"{name}.json").read_text())


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every non-empty JSON object embedded in a page of text, in order."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    index = text.find("{")
    while index >= 0:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict) and value:
            found.append(value)
        index = text.find("{", end)
    return found


def without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def problems_of(model: type[BaseModel], data: Any, **kwargs: Any) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data, **kwargs)
    return m.problems(caught.value, model)


# ---------------------------------------------------------------------------------------------------------
# The seed examples


@pytest.mark.parametrize("seed", sorted(SEED_EXAMPLES))
def test_data_files_are_the_seed_examples(seed: str) -> None:
    # Every example in every page is valid JSON as printed; the data files are exactly those examples.
    page = require(SEEDS / seed, "the API page")
    found = json_objects(page.read_text(encoding="utf-8"))
    assert found == [load(name) for name in SEED_EXAMPLES[seed]]


@pytest.mark.parametrize("name", CREATE_REQUESTS)
def test_create_examples_round_trip(name: str) -> None:
    original = load(name)
    request = m.validate_create_request(original)
    assert m.to_wire(request, keep_null=True) == original
    # By default an explicit null (the free-flavor example's "auto_search": null) is simply not sent.
    assert m.to_wire(request) == without_nulls(original)
    assert json.loads(json.dumps(m.to_wire(request))) == m.to_wire(request)


def test_create_example_fields() -> None:
    request = m.validate_create_request(load("create_request_custom_image_003"))
    assert request.algorithm is not None and request.algorithm.engine is not None
    assert request.algorithm.engine.image_url == "xxxxxxxx/fastseq:1.2"
    assert request.algorithm.environments == {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0"}
    assert request.spec is not None and request.spec.volumes is not None
    assert request.spec.volumes[0].nfs.read_only is False
    assert request.spec.resource is not None and request.spec.resource.pool_id == "poolfaf38d76"


def test_kind_defaults_to_job_and_is_sent() -> None:
    request = m.CreateTrainingJobRequest.model_validate({"metadata": {"name": "a"}, "algorithm": {"id": "x"}})
    assert m.to_wire(request) == {"kind": "job", "metadata": {"name": "a"}, "algorithm": {"id": "x"}}
    built = m.CreateTrainingJobRequest(metadata=m.JobMetadata(name="b"), algorithm=m.Algorithm(id="y"))
    assert m.to_wire(built)["kind"] == "job"


@pytest.mark.parametrize("name", JOB_RESPONSES)
def test_job_responses_parse_and_keep_everything(name: str) -> None:
    original = load(name)
    job = m.TrainingJob.model_validate(original)
    assert job.job_id == original["metadata"]["id"]
    assert job.phase == original["status"]["phase"]
    assert isinstance(job.metadata.create_time, int)
    wire = m.to_wire(job, keep_null=True)
    # Nothing the service sent is lost (periods sent as numbers come back as text, nulls as empty lists).
    assert _covers(wire, original)


def _covers(dumped: Any, original: Any) -> bool:
    if isinstance(original, dict):
        return isinstance(dumped, dict) and all(
            k in dumped and _covers(dumped[k], v) for k, v in original.items() if v not in (None, {})
        )
    if isinstance(original, list):
        return (
            isinstance(dumped, list) and len(dumped) == len(original) and all(map(_covers, dumped, original))
        )
    if isinstance(original, (int, float)) and isinstance(dumped, str):
        return dumped == str(original)
    return bool(dumped == original)


def test_response_quirks_of_the_other_cloud_edition() -> None:
    job = m.TrainingJob.model_validate(load("terminate_response_001"))
    assert job.metadata.ai_project == "default-ai-project"
    assert job.algorithm is not None
    # The table says period is a String; the example sends the number 30.
    assert job.algorithm.outputs[0].period == "30"
    assert job.algorithm.engine is not None and job.algorithm.engine.v1_compatible is False
    assert job.spec is not None and job.spec.resource is not None
    assert job.spec.resource.flavor_detail is not None
    assert job.spec.resource.flavor_detail.attributes["is_multi_nodes_supported"] == "true"
    # Not in any table: kept as an extra field.
    assert job.spec.model_extra == {"is_hosted_log": False}
    assert m.to_wire(job)["spec"]["is_hosted_log"] is False


def test_create_response_details() -> None:
    job = m.TrainingJob.model_validate(load("create_response_003"))
    assert job.status.node_count_metrics == []  # null in the example
    assert job.status.tasks == ["worker-0", "server-0"]
    assert job.algorithm is not None
    assert job.algorithm.parameters[2].constraint is not None
    assert job.algorithm.parameters[2].constraint.type == "Integer"
    assert job.algorithm.parameters[0].i18n_description is None
    assert job.spec is not None and job.spec.log_export_path is not None
    assert job.spec.log_export_path.obs_url is None  # sent as {}
    resource = job.spec.resource
    assert resource is not None and resource.policy == "regular"
    assert resource.flavor_detail is not None and resource.flavor_detail.flavor_info is not None
    assert resource.flavor_detail.flavor_info.gpu is not None
    assert resource.flavor_detail.flavor_info.gpu.product_name == "GP-Vnt1"


def test_get_response_records() -> None:
    job = m.TrainingJob.model_validate(load("get_response_002"))
    assert job.phase == m.Phase.ABNORMAL and job.secondary_phase == m.SecondaryPhase.CREATE_FAILED
    assert job.is_terminal
    assert job.status.node_count_metrics[0] == [1636447746000, 0]
    assert job.status.running_records[0].end_recover == "job_reschedule"
    assert job.status.running_records[1].end_recover is None
    assert job.algorithm is not None and job.algorithm.inputs[0].local_dir is not None


def test_search_examples() -> None:
    request = m.SearchRequest.model_validate(load("search_request_004"))
    assert m.to_wire(request) == load("search_request_004")
    assert request.filters is not None and request.filters[4].value == []
    response = m.SearchResponse.model_validate(load("search_response_004"))
    assert (response.total, response.count, response.limit, response.offset) == (5059, 1, 1, 0)
    assert response.items[0].metadata.user_name == "ei_modelarts_q00357245_01"
    assert response.ai_project == "default-ai-project"


def test_error_and_action_examples() -> None:
    error = m.ErrorBody.model_validate(load("error_400_003"))
    assert error.error_code == "ModelArts.2755" and error.error_msg == "algorithm not found."
    assert m.ErrorBody.model_validate({"error_code": "X", "request_id": "r"}).model_extra == {
        "request_id": "r"
    }
    assert m.ErrorBody.model_validate({}).error_msg is None
    for name in ("terminate_request_000", "terminate_request_001"):
        assert m.to_wire(m.JobActionRequest.model_validate(load(name))) == load(name)
    assert m.to_wire(m.JobActionRequest()) == {"action_type": "terminate"}
    assert problems_of(m.JobActionRequest, {"action_type": "stop"}) == [
        ("action_type", "must be 'terminate'")
    ]


# ---------------------------------------------------------------------------------------------------------
# Tolerant responses


def test_responses_keep_unknown_fields_at_every_level() -> None:
    raw = load("get_response_002")
    raw["brand_new"] = {"x": 1}
    raw["metadata"]["tenant"] = "t"
    raw["spec"]["resource"]["flavor_detail"]["flavor_info"]["cpu"]["threads"] = 16
    raw["algorithm"]["inputs"][0]["remote"]["obs"]["region"] = "r"
    job = m.TrainingJob.model_validate(raw)
    wire = m.to_wire(job)
    assert wire["brand_new"] == {"x": 1}
    assert wire["metadata"]["tenant"] == "t"
    assert wire["spec"]["resource"]["flavor_detail"]["flavor_info"]["cpu"]["threads"] == 16
    assert wire["algorithm"]["inputs"][0]["remote"]["obs"]["region"] == "r"


def test_responses_accept_missing_and_null_sections() -> None:
    job = m.TrainingJob.model_validate({})
    assert job.job_id is None and job.phase is None and not job.is_terminal
    job = m.TrainingJob.model_validate(
        {"metadata": None, "status": None, "tasks": None, "spec": {"volumes": None}}
    )
    assert job.status.tasks == [] and job.tasks == [] and job.spec is not None and job.spec.volumes == []
    assert m.SearchResponse.model_validate({"items": None}).items == []


def test_malformed_response_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        m.TrainingJob.model_validate({"metadata": "not an object"})
    with pytest.raises(ValidationError):
        m.TrainingJob.model_validate([1, 2])


@pytest.mark.parametrize(
    ("environments", "expected"),
    [
        ({"A": "1", "B": "2"}, {"A": "1", "B": "2"}),
        ([{"A": "1"}, {"B": "2"}], {"A": "1", "B": "2"}),
        ([{"A": "1"}, {"A": "3"}], {"A": "3"}),
        ([], {}),
        (None, {}),
        ({"N": 5}, {"N": "5"}),
    ],
)
def test_response_environments_map_or_array(environments: Any, expected: dict[str, str]) -> None:
    job = m.TrainingJob.model_validate({"algorithm": {"environments": environments}})
    assert job.algorithm is not None
    assert job.algorithm.env == expected
    assert m.environments_map(job.algorithm.environments) == expected


def test_request_environments_are_a_map_of_text() -> None:
    base = {"metadata": {"name": "a"}, "algorithm": {"id": "x"}}
    ok = m.CreateTrainingJobRequest.model_validate(
        {**base, "algorithm": {"id": "x", "environments": {"A": "1"}}}
    )
    assert ok.algorithm is not None and ok.algorithm.environments == {"A": "1"}
    assert problems_of(
        m.CreateTrainingJobRequest, {**base, "algorithm": {"id": "x", "environments": [{"A": "1"}]}}
    ) == [("algorithm.environments", "must be an object (a map of fields)")]


def test_endpoint_tokens_stay_out_of_reprs() -> None:
    job = m.TrainingJob.model_validate(
        {
            "endpoints": {
                "jupyter_lab": {"url": "https://j", "token": "s3cr3t-token"},
                "ssh": {"key_pair_names": ["k"]},
            }
        }
    )
    assert job.endpoints is not None and job.endpoints.jupyter_lab is not None
    assert job.endpoints.jupyter_lab.token == "s3cr3t-token"
    assert "s3cr3t-token" not in repr(job) and "s3cr3t-token" not in str(job)


# ---------------------------------------------------------------------------------------------------------
# Strict requests: invalid inputs -> (path, message)


def _changed(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of base with dotted-path changes ("__" separates keys, a digit one is a list index); the value
    ... deletes."""
    body: dict[str, Any] = copy.deepcopy(base)
    for path, value in changes.items():
        keys = [int(k) if k.isdigit() else k for k in path.split("__")]
        target: Any = body
        for key in keys[:-1]:
            target = target[key]
        if value is ...:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return body


def _request(**changes: Any) -> dict[str, Any]:
    """A valid create body (the custom-image example) with dotted-path changes (``_changed``)."""
    return _changed(load("create_request_custom_image_003"), changes)


INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    ("bad name chars", _request(metadata__name="my job!"), "metadata.name", "letters, digits"),
    ("name too long", _request(metadata__name="n" * 65), "metadata.name", "1 to 64 characters"),
    ("empty name", _request(metadata__name=""), "metadata.name", "must not be empty"),
    (
        "description too long",
        _request(metadata__description="d" * 257),
        "metadata.description",
        "at most 256",
    ),
    ("no metadata", _request(metadata=...), "metadata", "is required"),
    ("wrong kind", _request(kind="batch"), "kind", "must be 'job'"),
    ("node_count zero", _request(spec__resource__node_count=0), "spec.resource.node_count", "at least 1"),
    (
        "node_count text",
        _request(spec__resource__node_count="two"),
        "spec.resource.node_count",
        "whole number",
    ),
    (
        "node_count fraction",
        _request(spec__resource__node_count=1.5),
        "spec.resource.node_count",
        "whole number",
    ),
    (
        "typo in resource",
        _request(spec__resource__nodes_count=2),
        "spec.resource.nodes_count",
        "unknown field; did you mean 'node_count'?",
    ),
    (
        "camel case",
        _request(spec__logExportPath={"obs_url": "x"}),
        "spec.logExportPath",
        "did you mean 'log_export_path'?",
    ),
    ("unrelated unknown field", _request(algorithm__zebra=1), "algorithm.zebra", "unknown field"),
    ("no flavor or pool", _request(spec__resource={"node_count": 1}), "spec.resource.flavor_id", "pool_id"),
    (
        "env value not text",
        _request(algorithm__environments={"NCCL_DEBUG": 1}),
        "algorithm.environments.NCCL_DEBUG",
        "must be text",
    ),
    (
        "parameters not a list",
        _request(algorithm__parameters={"a": "b"}),
        "algorithm.parameters",
        "must be a list",
    ),
    (
        "parameter without name",
        _request(algorithm__parameters=[{"value": "1"}]),
        "algorithm.parameters[0].name",
        "is required",
    ),
    (
        "parameter value not text",
        _request(algorithm__parameters=[{"name": "lr", "value": 0.1}]),
        "algorithm.parameters[0].value",
        "must be text",
    ),
    (
        "input without remote",
        _request(algorithm__inputs=[{"name": "data_url"}]),
        "algorithm.inputs[0].remote",
        "is required",
    ),
    (
        "input without name",
        _request(algorithm__inputs=[{"remote": {"obs": {"obs_url": "/b/"}}}]),
        "algorithm.inputs[0].name",
        "is required",
    ),
    (
        "dataset without version",
        _request(algorithm__inputs=[{"name": "d", "remote": {"dataset": {"id": "1"}}}]),
        "algorithm.inputs[0].remote.dataset.version_id",
        "is required",
    ),
    (
        "output without obs_url",
        _request(algorithm__outputs=[{"name": "o", "remote": {"obs": {}}}]),
        "algorithm.outputs[0].remote.obs.obs_url",
        "is required",
    ),
    (
        "output without remote",
        _request(algorithm__outputs=[{"name": "o"}]),
        "algorithm.outputs[0].remote",
        "is required",
    ),
    ("no algorithm source", {"metadata": {"name": "a"}, "algorithm": {}}, "algorithm", "choose an algorithm"),
    ("no algorithm at all", {"metadata": {"name": "a"}}, "algorithm", "an algorithm is required"),
    (
        "code without engine",
        {"metadata": {"name": "a"}, "algorithm": {"code_dir": "/c/", "boot_file": "/c/b.py"}},
        "algorithm.engine",
        "engine is required",
    ),
    ("empty engine", _request(algorithm__engine={}), "algorithm.engine", "give engine_id"),
    (
        "nfs without local path",
        _request(spec__volumes=[{"nfs": {"nfs_server_path": "1.2.3.4:/"}}]),
        "spec.volumes[0].nfs.local_path",
        "is required",
    ),
    (
        "read_only not a bool",
        _request(spec__volumes__0__nfs__read_only="maybe"),
        "spec.volumes[0].nfs.read_only",
        "true or false",
    ),
    ("spec not an object", _request(spec=[1]), "spec", "must be an object"),
    (
        "annotation value not text",
        _request(metadata__annotations={"a": None}),
        "metadata.annotations.a",
        "must be text",
    ),
]


def assert_names_the_field(found: list[tuple[str, str]], path: str, fragment: str) -> None:
    """found (path, message) pairs hold path, with fragment in its message and no validator jargon."""
    assert path in [p for p, _ in found], found
    message = dict(found)[path]
    assert fragment in message, found
    assert not JARGON.search(message), message


def test_the_base_of_the_invalid_table_is_valid() -> None:
    assert len(INVALID) >= 15
    m.validate_create_request(_request())


def test_several_problems_are_all_reported() -> None:
    data = _request(metadata__name="bad name", spec__resource__node_count=0, algorithm__environments={"A": 1})
    found = problems_of(m.CreateTrainingJobRequest, data)
    assert {p for p, _ in found} == {"metadata.name", "spec.resource.node_count", "algorithm.environments.A"}


@pytest.mark.parametrize(
    "algorithm",
    [
        {"id": "3f5d6706"},
        {"subscription_id": "s", "item_version_id": "v"},
        {"code_dir": "/c/", "boot_file": "/c/b.py", "engine": {"engine_id": "pytorch"}},
        {
            "code_dir": "/c/",
            "boot_file": "/c/b.py",
            "engine": {"engine_name": "PyTorch", "engine_version": "1.8"},
        },
        {"command": "sh run.sh", "engine": {"image_url": "org/img:1"}},
        {
            "code_dir": "/c/",
            "boot_file": "/c/b.py",
            "engine": {"engine_name": "PyTorch", "image_url": "org/img:1"},
        },
        {
            "code_dir": "/c/",
            "boot_file": "/c/b.py",
            "command": "python b.py",
            "engine": {"image_url": "org/i:1"},
        },
        {"id": "x", "code_dir": "", "boot_file": ""},  # blank means "not given"
    ],
)
def test_valid_algorithm_sources(algorithm: dict[str, Any]) -> None:
    request = m.validate_create_request({"metadata": {"name": "j"}, "algorithm": algorithm})
    assert m.to_wire(request)["algorithm"] == algorithm


def test_name_is_optional_until_required() -> None:
    body = {"metadata": {"description": "d"}, "algorithm": {"id": "x"}}
    request = m.CreateTrainingJobRequest.model_validate(body)
    assert request.metadata.name is None
    assert problems_of(m.CreateTrainingJobRequest, body, context={m.REQUIRE_NAME: True}) == [
        ("metadata.name", "a job name is required")
    ]
    with pytest.raises(ValidationError) as caught:
        m.validate_create_request(body)
    assert m.problems(caught.value) == [("metadata.name", "a job name is required")]
    with pytest.raises(ValidationError):
        m.require_name(request)
    request.metadata.name = "auto-named-1"
    assert m.require_name(request).metadata.name == "auto-named-1"
    assert m.validate_create_request(body, require_name=False).metadata.name is None


def test_assignment_is_validated() -> None:
    request = m.validate_create_request({"metadata": {"name": "a"}, "algorithm": {"id": "x"}})
    with pytest.raises(ValidationError) as caught:
        request.metadata.name = "not valid!"
    assert m.problems(caught.value) == [
        ("name", "must be 1 to 64 characters, using only letters, digits, '_' and '-'")
    ]


def test_tasks_and_spec_are_exclusive() -> None:
    task = {"task_resource": {"node_count": 1}, "algorithm": {"code_dir": "/c/", "boot_file": "/c/b.py"}}
    ok = m.validate_create_request({"metadata": {"name": "a"}, "kind": "hetero_job", "tasks": [task]})
    assert ok.tasks is not None and ok.algorithm is None
    # The API pages' "leave tasks blank when spec is given" is advice the service is not known to enforce.
    both = m.validate_create_request(
        {"metadata": {"name": "a"}, "tasks": [task], "spec": {"resource": {"flavor_id": "f"}}}
    )
    found = m.advice(both)
    assert [path for path, _ in found] == ["tasks"]
    assert "leave tasks blank when spec is given" in found[0][1]
    found = problems_of(
        m.CreateTrainingJobRequest, {"metadata": {"name": "a"}, "tasks": [{"task_resource": {}}]}
    )
    assert found == [("tasks[0].task_resource.node_count", "is required")]


def test_top_level_problem_has_a_readable_path() -> None:
    assert problems_of(m.CreateTrainingJobRequest, "job") == [
        (m.TOP_LEVEL, "must be an object (a map of fields)")
    ]


# ---------------------------------------------------------------------------------------------------------
# Search requests


@pytest.mark.parametrize(("limit", "ok"), [(0, False), (1, True), (50, True), (51, False), (-3, False)])
def test_search_limit_range(limit: int, ok: bool) -> None:
    if ok:
        assert m.SearchRequest(limit=limit).limit == limit
    else:
        assert [p for p, _ in problems_of(m.SearchRequest, {"limit": limit})] == ["limit"]


def test_search_offset_is_a_page_index() -> None:
    assert m.to_wire(m.SearchRequest(offset=0, limit=50)) == {"offset": 0, "limit": 50}
    assert problems_of(m.SearchRequest, {"offset": -1}) == [("offset", "must be at least 0")]


@pytest.mark.parametrize("operator", ["between", "like", "in", "not"])
def test_search_operators(operator: str) -> None:
    flt = m.SearchFilter(key="name", operator=operator, value=["x"])
    assert m.to_wire(flt) == {"key": "name", "operator": operator, "value": ["x"]}


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        (
            {"filters": [{"key": "name", "operator": "eq", "value": ["x"]}]},
            "filters[0].operator",
            "'between'",
        ),
        (
            {"filters": [{"key": "name", "operator": "in", "value": "x"}]},
            "filters[0].value",
            "must be a list",
        ),
        ({"filters": [{"key": "name", "operator": "in"}]}, "filters[0].value", "is required"),
        ({"filters": [{"operator": "in", "value": []}]}, "filters[0].key", "is required"),
        (
            {"filters": [{"key": "name", "operator": "in", "value": [1]}]},
            "filters[0].value[0]",
            "must be text",
        ),
        ({"order": "up"}, "order", "must be 'asc' or 'desc'"),
        ({"sort": "create_time"}, "sort", "did you mean 'sort_by'?"),
    ],
)
def test_search_invalid(data: dict[str, Any], path: str, fragment: str) -> None:
    found = dict(problems_of(m.SearchRequest, data))
    assert fragment in found[path], found


# ---------------------------------------------------------------------------------------------------------
# Phases


def test_phase_helpers() -> None:
    assert {"Completed", "Failed", "Terminated", "Abnormal"} == m.TERMINAL_PHASES
    assert {"Creating", "Pending", "Running"} == m.TERMINABLE_PHASES
    assert m.is_terminal("Completed") and m.is_terminal("Abnormal")
    assert not m.is_terminal("Running") and not m.is_terminal(None)
    assert m.is_terminal("Creating", "CreateFailed")
    assert (
        m.is_terminable("Pending") and not m.is_terminable("Terminating") and not m.is_terminable("Completed")
    )
    assert m.is_failure("Failed") and m.is_failure("Abnormal") and not m.is_failure("Completed")
    assert m.TERMINAL_PHASES <= m.Phase.ALL and m.TERMINABLE_PHASES <= m.Phase.ALL


# ---------------------------------------------------------------------------------------------------------
# Property: arbitrary nested input never escapes as anything but a ValidationError

FIELD_NAMES = sorted(
    {
        name
        for model in vars(m).values()
        if isinstance(model, type) and issubclass(model, BaseModel)
        for name in model.model_fields
    }
)
KEYS = st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8))
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=25,
)
BODIES = st.dictionaries(
    st.one_of(st.sampled_from(["kind", "metadata", "algorithm", "tasks", "spec"]), KEYS), VALUES, max_size=6
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=BODIES, require=st.booleans())
def test_random_bodies_only_raise_validation_errors(body: dict[str, Any], require: bool) -> None:
    try:
        request = m.CreateTrainingJobRequest.model_validate(body, context={m.REQUIRE_NAME: require})
    except ValidationError as error:
        found = m.problems(error)
        assert found
        for path, message in found:
            assert isinstance(path, str) and path
            assert isinstance(message, str) and message
            assert not JARGON.search(message), message
    else:
        # Whatever validates dumps to JSON and validates again to the same body.
        wire = m.to_wire(request, keep_null=True)
        assert (
            m.to_wire(m.CreateTrainingJobRequest.model_validate(json.loads(json.dumps(wire))), keep_null=True)
            == wire
        )


@settings(max_examples=200, deadline=None)
@given(body=st.dictionaries(KEYS, VALUES, max_size=6))
def test_random_bodies_as_responses_never_crash(body: dict[str, Any]) -> None:
    try:
        m.TrainingJob.model_validate(body)
    except ValidationError as error:
        assert all(path and message for path, message in m.problems(error))


def test_import_stays_light() -> None:
    import subprocess
    import sys

    # Only what models.py itself pulls in counts (the package __init__ is someone else's business).
    code = (
        "import sys, pulumi_modelarts; before = set(sys.modules); import pulumi_modelarts.wire.models; "
        "print(sorted(n for n in set(sys.modules) - before "
        "if n.split('.')[0] in ('difflib', 'pulumi', 'httpx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_whole_number_floats_are_counts_and_odd_keys_are_quoted() -> None:
    # Pulumi hands numbers over as floats; 2.0 is a fine node count and goes out as 2.
    request = m.validate_create_request(_request(spec__resource__node_count=2.0))
    assert m.to_wire(request)["spec"]["resource"]["node_count"] == 2
    found = problems_of(m.CreateTrainingJobRequest, _request(algorithm__environments={"a.b c": 1}))
    assert found == [("algorithm.environments['a.b c']", "must be text")]


# ---------------------------------------------------------------------------------------------------------
# The full job shape (the official SDK's create request and Terraform's fields beyond the seeds)

FULL_JOB: dict[str, Any] = {
    "kind": "job",
    "metadata": {"name": "full-shape", "training_experiment_reference": {"id": "exp-1"}},
    "algorithm": {
        "engine": {
            "engine_name": "PyTorch",
            "engine_version": "2.1",
            "image_url": "org/train:1",
            "install_sys_packages": True,
            "image_repo_id": "swr-instance-1",
        },
        "command": "python train.py",
        "inputs": [
            {"name": "data", "access_method": "env", "remote": {"obs": {"obs_url": "/b/data/"}}},
            {
                "name": "assets",
                "remote": {"dataset": {"id": "ds", "service_type": "V3", "dataset_proportion": 30}},
            },
        ],
        "outputs": [
            {"name": "model", "access_method": "parameter", "remote": {"obs": {"obs_url": "/b/out/"}}}
        ],
        "environments": {"A": "1"},
        "summary": {"log_type": "tensorboard", "log_dir": {"pfs": {"pfs_path": "/b/tb/"}}},
    },
    "spec": {
        "resource": {
            "flavor_id": "modelarts.pool.visual.xlarge",
            "pool_id": "pool-1",
            "node_count": 2,
            "main_container_customized_flavor": {"cpu_core_num": 8, "mem_size": 32.5, "accelerator_num": 0},
        },
        "runtime_type": "production",
        "volumes": [
            {"obs": {"obs_path": "/b/mount/", "local_path": "/home/ma-user/obs"}},
            {"pfs": {"pfs_path": "/pfs-bucket/x/"}},
            {"nfs": {"nfs_server_path": "10.0.0.1:/", "local_path": "/mnt/nfs"}},
        ],
        "auto_stop": {"time_unit": "HOURS", "duration": 5},
        "schedule_policy": {
            "priority": 2,
            "required_affinity": {
                "affinity_type": "networkTopology",
                "job_level": "cluster",
                "node_affinity": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                        {"matchFields": [{"key": "gpus", "operator": "Gt", "values": ["3"]}]},
                    ]
                },
            },
        },
        "log_export_config": {"version": "v1", "rotation_enabled": True},
        "notification": {"topic_urn": "urn:smn:x", "events": ["JobFailed", "JobHanged"]},
        "custom_metrics": [
            {"http_get": {"path": "/metrics", "port": 9100}},
            {"exec": {"command": ["cat", "m"]}},
        ],
        "output_model": {"obs": {"obs_path": "obs://b/model/"}},
        "asset_model": {"name": "m", "version": "1.0", "type": "llm"},
        "asset_id": "asset-1",
        "retention": {"policy": "enabled"},
        "reserved_time": {"time_unit": "HOURS", "duration": 1},
    },
    "endpoints": {"ssh": {"key_pair_names": ["kp-1"]}},
    "train_type": "LORA",
    "ftjob_config": {
        "train_process": 0.0,
        "task_env": {"envs": [{"env_name": "LR", "value": "1e-4", "used_steps": ["train"]}]},
        "checkpoint_config": {"save_checkpoints_max": -1, "skipped_steps": 0, "restore_training": 1},
    },
}


def test_a_job_using_the_full_shape_validates_and_round_trips() -> None:
    request = m.validate_create_request(copy.deepcopy(FULL_JOB))
    assert m.to_wire(request) == FULL_JOB  # camelCase keys included: they are the wire names
    assert request.spec is not None and request.spec.schedule_policy is not None
    required = request.spec.schedule_policy.required_affinity
    assert required is not None and required.node_affinity is not None
    assert required.node_affinity.node_selector_terms[1].match_fields is not None


def _full(**changes: Any) -> dict[str, Any]:
    """FULL_JOB with dotted-path changes (``_changed``)."""
    return _changed(FULL_JOB, changes)


SELECTOR = "spec.schedule_policy.required_affinity.node_affinity.nodeSelectorTerms"
SELECTOR_KEYS = "spec__schedule_policy__required_affinity__node_affinity__nodeSelectorTerms"
FULL_INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "experiment without id or name",
        _full(metadata__training_experiment_reference={}),
        "metadata.training_experiment_reference.id",
        "give the id of an experiment",
    ),
    (
        "experiment name too long",
        _full(metadata__training_experiment_reference={"name": "e" * 65}),
        "metadata.training_experiment_reference.name",
        "at most 64 characters",
    ),
    (
        "dataset without version",
        _full(algorithm__inputs__1__remote__dataset={"id": "ds"}),
        "algorithm.inputs[1].remote.dataset.version_id",
        "is required unless service_type is V3",
    ),
    (
        "unknown access method",
        _full(algorithm__inputs__0__access_method="file"),
        "algorithm.inputs[0].access_method",
        "must be 'parameter' or 'env'",
    ),
    (
        "too many environment variables",
        _full(algorithm__environments={f"V{i}": "x" for i in range(101)}),
        "algorithm.environments",
        "at most 100 items",
    ),
    (
        "environment value too long",
        _full(algorithm__environments={"V": "x" * 4097}),
        "algorithm.environments.V",
        "at most 4096 characters",
    ),
    (
        "unknown log type",
        _full(algorithm__summary__log_type="visdom"),
        "algorithm.summary.log_type",
        "'tensorboard'",
    ),
    (
        "no cpu cores",
        _full(spec__resource__main_container_customized_flavor={"cpu_core_num": 0}),
        "spec.resource.main_container_customized_flavor.cpu_core_num",
        "more than 0",
    ),
    (
        "federated job without a pool group",
        _full(kind="federated_pool_job"),
        "spec.resource.pool_group_id",
        "needs spec.resource.pool_group_id",
    ),
    ("empty volume", _full(spec__volumes=[{}]), "spec.volumes[0]", "give one of nfs, pfs or obs"),
    (
        "obs volume without paths",
        _full(spec__volumes=[{"obs": {}}]),
        "spec.volumes[0].obs.obs_path",
        "local_path",
    ),
    (
        "auto stop in minutes",
        _full(spec__auto_stop__time_unit="MINUTES"),
        "spec.auto_stop.time_unit",
        "'HOURS'",
    ),
    (
        "auto stop without duration",
        _full(spec__auto_stop__duration=...),
        "spec.auto_stop.duration",
        "is required",
    ),
    (
        "reserved for no time",
        _full(spec__reserved_time__duration=0),
        "spec.reserved_time.duration",
        "at least 1",
    ),
    (
        "unknown retention",
        _full(spec__retention__policy="on"),
        "spec.retention.policy",
        "'enabled' or 'disabled'",
    ),
    (
        "In without values",
        _full(**{f"{SELECTOR_KEYS}__0__matchExpressions__0__values": []}),
        f"{SELECTOR}[0].matchExpressions[0].values",
        "In needs at least one value",
    ),
    (
        "Exists with values",
        _full(**{f"{SELECTOR_KEYS}__0__matchExpressions__0__operator": "Exists"}),
        f"{SELECTOR}[0].matchExpressions[0].values",
        "leave values empty with Exists",
    ),
    (
        "Gt with a word",
        _full(**{f"{SELECTOR_KEYS}__1__matchFields__0__values": ["three"]}),
        f"{SELECTOR}[1].matchFields[0].values",
        "exactly one value, a whole number",
    ),
    (
        "unknown operator",
        _full(**{f"{SELECTOR_KEYS}__1__matchFields__0__operator": "Ge"}),
        f"{SELECTOR}[1].matchFields[0].operator",
        "'Gt'",
    ),
    (
        "no selector terms",
        _full(**{SELECTOR_KEYS: []}),
        SELECTOR,
        "must not be empty",
    ),
    (
        "snake_case instead of the wire name",
        _full(spec__schedule_policy__required_affinity__node_affinity={"node_selector_terms": []}),
        "spec.schedule_policy.required_affinity.node_affinity.node_selector_terms",
        "did you mean 'nodeSelectorTerms'?",
    ),
    (
        "weight out of range",
        _full(spec__schedule_policy={"preferred_affinity": {"node_affinity": [{"weight": 101}]}}),
        "spec.schedule_policy.preferred_affinity.node_affinity[0].weight",
        "at most 100",
    ),
    (
        "priority too high",
        _full(spec__schedule_policy__priority=4),
        "spec.schedule_policy.priority",
        "at most 3",
    ),
    (
        "log version",
        _full(spec__log_export_config__version="v2"),
        "spec.log_export_config.version",
        "'v0' or 'v1'",
    ),
    (
        "notification without topic",
        _full(spec__notification__topic_urn=...),
        "spec.notification.topic_urn",
        "required",
    ),
    (
        "unknown event",
        _full(spec__notification__events=["JobDone"]),
        "spec.notification.events[0]",
        "'JobStarted'",
    ),
    (
        "metrics port zero",
        _full(spec__custom_metrics__0__http_get__port=0),
        "spec.custom_metrics[0].http_get.port",
        "at least 1",
    ),
    (
        "empty metrics command",
        _full(spec__custom_metrics__1__exec__command=[]),
        "spec.custom_metrics[1].exec.command",
        "must not be empty",
    ),
    (
        "output model without path",
        _full(spec__output_model__obs={}),
        "spec.output_model.obs.obs_path",
        "is required",
    ),
    (
        "asset model without version",
        _full(spec__asset_model__version=...),
        "spec.asset_model.version",
        "is required",
    ),
    (
        "no key pairs",
        _full(endpoints__ssh__key_pair_names=[]),
        "endpoints.ssh.key_pair_names",
        "must not be empty",
    ),
    ("unknown train type", _full(train_type="QLORA"), "train_type", "'LORA'"),
    (
        "checkpoints below -1",
        _full(ftjob_config__checkpoint_config__save_checkpoints_max=-2),
        "ftjob_config.checkpoint_config.save_checkpoints_max",
        "at least -1",
    ),
    (
        "restore flag 2",
        _full(ftjob_config__checkpoint_config__restore_training=2),
        "ftjob_config.checkpoint_config.restore_training",
        "at most 1",
    ),
    (
        "task input from a dataset",
        {
            "metadata": {"name": "h"},
            "kind": "hetero_job",
            "tasks": [
                {
                    "task_resource": {"node_count": 1},
                    "algorithm": {
                        "inputs": [{"name": "d", "remote": {"dataset": {"id": "x", "version_id": "y"}}}]
                    },
                }
            ],
        },
        "tasks[0].algorithm.inputs[0].remote.dataset",
        "unknown field",
    ),
]


# Both tables of refused requests: the custom-image example's (INVALID) and the full shape's rules.
ALL_INVALID = INVALID + [(f"full shape: {name}", *case) for name, *case in FULL_INVALID]


@pytest.mark.parametrize(
    ("data", "path", "fragment"), [case[1:] for case in ALL_INVALID], ids=[c[0] for c in ALL_INVALID]
)
def test_invalid_requests_name_the_field(data: dict[str, Any], path: str, fragment: str) -> None:
    assert_names_the_field(problems_of(m.CreateTrainingJobRequest, data), path, fragment)


# Requests the API pages advise against but the service accepts (or nothing shows it refusing): they pass,
# with a warning on the field (docs/input-rules.md). These were refusals before; each keeps its case.
ADVISED: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "input with two sources",
        _request(
            algorithm__inputs=[
                {
                    "name": "d",
                    "remote": {"obs": {"obs_url": "/b/"}, "dataset": {"id": "1", "version_id": "2"}},
                }
            ]
        ),
        "algorithm.inputs[0].remote",
        "not both",
    ),
    (
        "subscription without version",
        {"metadata": {"name": "a"}, "algorithm": {"subscription_id": "s"}},
        "algorithm.item_version_id",
        "together with subscription_id",
    ),
    (
        "version without subscription",
        {"metadata": {"name": "a"}, "algorithm": {"item_version_id": "v"}},
        "algorithm.subscription_id",
        "together with item_version_id",
    ),
    (
        "code_dir without boot_file",
        {"metadata": {"name": "a"}, "algorithm": {"code_dir": "/c/", "engine": {"engine_id": "e"}}},
        "algorithm.boot_file",
        "together with code_dir",
    ),
    (
        "id and subscription",
        {"metadata": {"name": "a"}, "algorithm": {"id": "x", "subscription_id": "s", "item_version_id": "v"}},
        "algorithm.subscription_id",
        "not both",
    ),
    (
        "id with engine",
        {"metadata": {"name": "a"}, "algorithm": {"id": "x", "engine": {"engine_id": "e"}}},
        "algorithm.engine",
        "engine is not needed when the algorithm is given by id",
    ),
    (
        "custom image without command",
        _request(algorithm__command=...),
        "algorithm.command",
        "start a custom image with a command",
    ),
    (
        "command on a preset engine",
        _request(algorithm__engine={"engine_id": "pytorch"}),
        "algorithm.command",
        "to start a custom image",
    ),
    (
        "engine_id and name",
        _request(algorithm__engine={"engine_id": "e", "engine_name": "PyTorch"}),
        "algorithm.engine.engine_name",
        "engine_name is not needed when engine_id is set",
    ),
    (
        "engine version without name",
        _request(algorithm__engine={"engine_version": "1.0", "image_url": "i"}),
        "algorithm.engine.engine_name",
        "engine_name with engine_version",
    ),
    (
        "engine name without version",
        _request(algorithm__engine={"engine_name": "PyTorch"}),
        "algorithm.engine.engine_version",
        "engine_name with engine_version",
    ),
    (
        "moxing without a preset engine",
        _full(algorithm__engine={"image_url": "org/i:1", "install_sys_packages": True}),
        "algorithm.engine.install_sys_packages",
        "only with engine_name, engine_version and image_url",
    ),
    (
        "customized flavor on a public flavor",
        _full(spec__resource__pool_id=...),
        "spec.resource.main_container_customized_flavor",
        "a share of a dedicated pool's node",
    ),
    (
        "two kinds in one volume",
        _full(
            spec__volumes=[
                {"nfs": {"nfs_server_path": "a:/", "local_path": "/m"}, "obs": {"obs_path": "/b/"}}
            ]
        ),
        "spec.volumes[0].obs",
        "not obs too",
    ),
    (
        "term with both kinds",
        _full(**{f"{SELECTOR_KEYS}__0__matchFields": []}),
        f"{SELECTOR}[0].matchFields",
        "a node must meet both",
    ),
    (
        "required and preferred affinity",
        _full(spec__schedule_policy__preferred_affinity={"node_affinity": []}),
        "spec.schedule_policy.preferred_affinity",
        "both given",
    ),
    (
        "environment name a shell cannot use",
        _request(algorithm__environments={"NCCL_DEBUG": "INFO", "1BAD NAME": "1"}),
        "algorithm.environments['1BAD NAME']",
        "sent as written",
    ),
    (
        "metrics two ways",
        _full(spec__custom_metrics=[{"exec": {"command": ["x"]}, "http_get": {"path": "/m", "port": 1}}]),
        "spec.custom_metrics[0].http_get",
        "both given",
    ),
]


@pytest.mark.parametrize(
    ("data", "path", "fragment"), [case[1:] for case in ADVISED], ids=[c[0] for c in ADVISED]
)
def test_advised_requests_pass_with_a_warning_on_the_field(
    data: dict[str, Any], path: str, fragment: str
) -> None:
    assert_names_the_field(m.advice(m.validate_create_request(data)), path, fragment)


def test_every_warning_rule_has_an_advised_case() -> None:
    warned = {key for key, rule in m.INPUT_RULES.items() if rule.severity == "warning"}
    seen = {key for _, data, _, _ in ADVISED for key in m.advice_rules(m.validate_create_request(data))}
    task = {"task_resource": {"node_count": 1}, "algorithm": {"code_dir": "/c/"}}
    both = {"metadata": {"name": "a"}, "tasks": [task], "spec": {"resource": {"flavor_id": "f"}}}
    seen |= set(m.advice_rules(m.validate_create_request(both)))
    assert warned == seen, warned ^ seen


@pytest.mark.parametrize(
    "changes",
    [
        {"algorithm__inputs__1__remote__dataset": {"id": "ds", "version_id": "v1"}},  # an ordinary dataset
        {"spec__volumes": [{"pfs": {"local_path": "/mnt/pfs"}}, {"obs": {"obs_path": "/b/"}}]},
        {"kind": "federated_pool_job", "spec__resource": {"pool_group_id": "group-1", "node_count": 1}},
        {"spec__schedule_policy": {"preferred_affinity": {"node_affinity": [{"weight": 1}]}}},
        {f"{SELECTOR_KEYS}__0__matchExpressions__0": {"key": "k", "operator": "DoesNotExist"}},
        {
            "tasks": [
                {
                    "algorithm": {"environments": {"A": "1"}, "engine": {"run_user": "1000"}},
                    "task_resource": {"node_count": 1, "pool_id": "p"},
                    "log_export_path": {"obs_url": "/b/l/"},
                }
            ],
            "spec": ...,
        },
    ],
)
def test_valid_variants_of_the_full_shape(changes: dict[str, Any]) -> None:
    body = _full(**changes)
    assert m.to_wire(m.validate_create_request(body)) == body


def test_a_realistic_job_with_new_fields_passes_the_provider_check() -> None:
    from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

    news = {
        "algorithm": {
            "engine": {
                "engine_name": "PyTorch",
                "engine_version": "2.1",
                "image_url": "swr.cn-north-4.myhuaweicloud.com/team/train:1.4",
                "install_sys_packages": True,
            },
            "code_dir": "/bucket/code/",
            "boot_file": "/bucket/code/train.py",
            "inputs": [
                {"name": "data", "access_method": "env", "remote": {"obs": {"obs_url": "/bucket/data/"}}}
            ],
        },
        "spec": {
            "resource": {"pool_id": "pool-1", "flavor_id": "modelarts.pool.visual.xlarge", "node_count": 2.0},
            "runtime_type": "production",
            "volumes": [{"obs": {"obs_path": "/bucket/ckpt/", "local_path": "/home/ma-user/ckpt"}}],
            "log_export_config": {"version": "v1"},
        },
        "endpoints": {"ssh": {"key_pair_names": ["team-key"]}},
        "wait_for": "running",
        "name_prefix": "nightly",
        "__provider": "p",
    }
    result = TrainingJobProvider().check({}, news)
    assert [(f.property, f.reason) for f in result.failures] == []
    assert result.inputs["spec"]["volumes"][0]["obs"]["obs_path"] == "/bucket/ckpt/"
    assert result.inputs["endpoints"] == {"ssh": {"key_pair_names": ["team-key"]}}
    # The same job with two mistakes in new fields: each is named by its path, before any API call.
    news["spec"]["volumes"] = [{"obs": {}}]
    news["algorithm"]["engine"].pop("engine_version")
    failures = dict(path_and_reason(f) for f in TrainingJobProvider().check({}, news).failures)
    assert set(failures) == {"spec.volumes[0].obs.obs_path"}
    # install_sys_packages without engine_version is only the SDK's advice: a warning once the rest is right.
    news["spec"]["volumes"] = [{"obs": {"obs_path": "/bucket/ckpt/"}}]
    checked = core.check({}, news)
    assert checked.failures == []
    assert [w.path for w in checked.warnings] == ["algorithm.engine.install_sys_packages"]


def test_validators_are_built_once_whichever_threads_ask_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    class Deferred(BaseModel):
        model_config = {"defer_build": True}
        value: int

    builds: list[str] = []
    asking: list[str] = []
    rebuild = Deferred.model_rebuild

    def counted(**kwargs: Any) -> bool | None:
        builds.append(threading.current_thread().name)
        # The build lasts until every thread has asked: the others arrive while it runs.
        poll(lambda: len(asking), lambda count: count == 4, timeout=5, what="every thread asking")
        return rebuild(**kwargs)

    def ask() -> None:
        asking.append(threading.current_thread().name)
        m.build_validators(Deferred)

    monkeypatch.setattr(Deferred, "model_rebuild", counted)
    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(builds) == 1 and Deferred.__pydantic_complete__
    assert Deferred.model_validate({"value": 1}).value == 1


# ---------------------------------------------------------------------------------------------------------
# Environment variable names: what no process could receive is refused, with the key as the user wrote it;
# a name a shell cannot refer to is the official SDK's advice only (a warning), sent as written.


def _job_env(environments: dict[str, str]) -> dict[str, Any]:
    return _request(algorithm__environments=environments)


def _task_env(environments: dict[str, str]) -> dict[str, Any]:
    task = {"task_resource": {"node_count": 1}, "algorithm": {"environments": environments}}
    return {"metadata": {"name": "a"}, "tasks": [task]}


ENV_HOLDERS = {
    "algorithm": (_job_env, "algorithm.environments"),
    "task": (_task_env, "tasks[0].algorithm.environments"),
}


@pytest.mark.parametrize("holder", sorted(ENV_HOLDERS))
@pytest.mark.parametrize(
    ("name", "key", "fragment"),
    [
        ("", "['']", "must not be empty"),
        ("A=B", "['A=B']", "must not contain '='"),
        ("=A", "['=A']", "must not contain '='"),
        ("N\x00UL", "['N\\x00UL']", "must not contain the NUL character"),
    ],
    ids=["empty", "equals", "leading-equals", "nul"],
)
def test_environment_names_no_process_can_receive_are_refused_by_key(
    holder: str, name: str, key: str, fragment: str
) -> None:
    body, where = ENV_HOLDERS[holder]
    data = body({"GOOD_NAME": "1", name: "2"})
    found = problems_of(m.CreateTrainingJobRequest, data)
    assert [path for path, _ in found] == [where + key], found
    message = found[0][1]
    assert message.startswith("key ") and fragment in message, found
    assert not JARGON.search(message), message
    # check (every preview, both front-ends) names the same path and refuses the inputs.
    checked = core.check({}, data)
    assert [f.path for f in checked.failures] == [where + key], checked.failures


@pytest.mark.parametrize("holder", sorted(ENV_HOLDERS))
@pytest.mark.parametrize(
    ("name", "key"),
    [("1BAD NAME", "['1BAD NAME']"), ("9LIVES", "['9LIVES']"), ("my.var", "['my.var']"), ("a-b", ".a-b")],
)
def test_environment_names_a_shell_cannot_use_pass_with_a_warning(holder: str, name: str, key: str) -> None:
    body, where = ENV_HOLDERS[holder]
    data = body({"NCCL_DEBUG": "INFO", "_x1": "1", name: "2"})
    request = m.validate_create_request(data)
    warned = [(path, message) for path, message in m.advice(request) if "environments" in path]
    assert [path for path, _ in warned] == [where + key], warned
    assert "letters, digits and _" in warned[0][1] and "sent as written" in warned[0][1], warned
    assert "env-name-shape" in m.advice_rules(request)
    # Sent as written, the odd name with the others.
    sent = m.to_wire(request)
    algorithm = sent["algorithm"] if holder == "algorithm" else sent["tasks"][0]["algorithm"]
    assert algorithm["environments"][name] == "2"
    checked = core.check({}, data)
    assert checked.failures == [] and where + key in [w.path for w in checked.warnings]


def test_ordinary_environment_names_are_not_warned_about() -> None:
    for body, _ in ENV_HOLDERS.values():
        request = m.validate_create_request(body({"NCCL_DEBUG": "INFO", "_x1": "1", "a": ""}))
        assert m.advice(request) == [], m.advice(request)


# ---------------------------------------------------------------------------------------------------------
# Numbers: true/false is never a count or a size (pydantic's lax mode would read true as 1).


def _number_kinds(annotation: Any) -> set[type]:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _number_kinds(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return set().union(*(_number_kinds(a) for a in get_args(annotation)))
    return {annotation} & {int, float}


def _numeric_inputs() -> list[tuple[type[BaseModel], str, set[type]]]:
    found = []
    for value in [*vars(m).values(), ProviderSettings]:
        if isinstance(value, type) and issubclass(value, (m.RequestModel, ProviderSettings)):
            for wire, info in m.wire_fields(value).items():
                kinds = _number_kinds(info.annotation)
                if kinds:
                    found.append((value, wire, kinds))
    return found


NUMERIC_INPUTS = _numeric_inputs()


def test_the_numeric_inputs_are_found() -> None:
    names = {f"{cls.__name__}.{wire}" for cls, wire, _ in NUMERIC_INPUTS}
    assert {
        "Resource.node_count",
        "TaskResource.node_count",
        "CustomizedFlavor.cpu_core_num",
        "MetricsHttpGet.port",
        "SearchRequest.limit",
        "ProviderSettings.wait_timeout",
    } <= names, names
    assert len(NUMERIC_INPUTS) >= 20


@pytest.mark.parametrize(
    ("model", "wire", "kinds"), NUMERIC_INPUTS, ids=[f"{c.__name__}.{w}" for c, w, _ in NUMERIC_INPUTS]
)
def test_true_or_false_is_not_a_number(model: type[BaseModel], wire: str, kinds: set[type]) -> None:
    for flag in (True, False):
        found = dict(problems_of(model, {wire: flag}))
        assert wire in found, (flag, found)
        assert not JARGON.search(found[wire]), found[wire]
        if model is not ProviderSettings:
            expected = "must be a whole number" if int in kinds else "must be a number"
            assert found[wire] == f"{expected}, not true or false", found[wire]
    # Numbers are unchanged: 1 and 1.0 (how Pulumi hands numbers over) are taken for ints and floats alike,
    # and so is text holding a number, as before.
    for number in (1, 1.0, "1"):
        try:
            model.model_validate({wire: number})
        except ValidationError as exc:
            assert wire not in dict(m.problems(exc)), (number, m.problems(exc))


def test_a_flag_for_a_node_count_fails_check_by_its_path() -> None:
    checked = core.check({}, _request(spec__resource__node_count=True))
    assert [(f.path, f.reason) for f in checked.failures] == [
        ("spec.resource.node_count", "must be a whole number, not true or false")
    ]
    task = {"task_resource": {"node_count": True}, "algorithm": {"code_dir": "/c/", "boot_file": "/c/t.py"}}
    checked = core.check({}, {"metadata": {"name": "a"}, "tasks": [task]})
    assert [f.path for f in checked.failures] == ["tasks[0].task_resource.node_count"]
    # A whole number given as a float is still a count, and goes out as one.
    assert core.check({}, _request(spec__resource__node_count=2.0)).failures == []

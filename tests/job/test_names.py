"""Job names: deterministic auto-names, the judgment of a job already holding a name, and the create, delete
and conflict paths that follow from the service's unique names (the emulator with --unique-names)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.job import core, diffing, naming, normalising
from pulumi_modelarts.job.errors import ProvisioningError
from pulumi_modelarts.job.normalising import NOT_KNOWN
from pulumi_modelarts.job.ownership import matching
from pulumi_modelarts.job.ownership.judging import Holding
from pulumi_modelarts.wire.api_errors import (
    DuplicateNameError,
    NotTerminableError,
    StatusChangedError,
    ThrottledError,
    api_error_class,
)
from pulumi_modelarts.wire.models import validate_create_request

from ..client_support import create_job
from ..support import ProgressLines, minimal_job

Factory = Callable[..., EmulatorProcess]


pytestmark = pytest.mark.usefixtures("fast_polls")


def declared(**overrides: Any) -> dict[str, Any]:
    base = minimal_job(
        metadata={"description": "nightly"}, name_prefix="train", name_scope="proj/dev", wait_for="none"
    )
    base.update(overrides)
    return normalising.normalise_inputs(base)


# ---------------------------------------------------------------- naming (pure)


def test_auto_name_is_deterministic_and_depends_on_stack_prefix_job_and_triggers() -> None:
    name = naming.auto_name(declared())
    assert name is not None and re.fullmatch(r"train-[a-z0-9]{6}", name)
    assert naming.auto_name(declared()) == name
    assert naming.with_job_name(declared(), None)["metadata"]["name"] == name
    # What does not make another job: the description (changed in place) and the settings.
    assert naming.auto_name(declared(metadata={"description": "other"})) == name
    assert naming.auto_name(declared(wait_for="running", keep_record=False)) == name
    assert naming.auto_name(declared(on_destroy="delete")) == name
    others = [
        declared(name_scope="proj/prod"),
        declared(name_scope="other/dev"),
        declared(name_prefix="eval"),
        declared(triggers={"v": 2}),
        declared(spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 2}}),
    ]
    names = {naming.auto_name(o) for o in others}
    assert name not in names and len(names) == len(others)


def test_auto_names_stay_as_released() -> None:
    # A job created by an earlier release is found again under its name: the hash may never change.
    inputs = declared()
    names = [naming.auto_name(inputs, g) for g in (0, 1, 19)]
    assert names == ["train-4sf2qz", "train-as4vnk", "train-h161s9"]
    assert naming.auto_name_generation({**inputs, "metadata": {"name": "train-h161s9"}}) == 19


def test_auto_name_generations_differ_and_are_recognised() -> None:
    inputs = declared()
    names = [naming.auto_name(inputs, g) for g in range(naming.MAX_NAME_GENERATIONS)]
    assert len(set(names)) == naming.MAX_NAME_GENERATIONS
    for generation, name in enumerate(names):
        assert (
            naming.auto_name_generation(naming.with_job_name(inputs, {"metadata": {"name": name}}))
            == generation
        )
    assert naming.auto_name_generation({**inputs, "metadata": {"name": "mine"}}) is None
    # A pinned name that is not generated from these inputs stays pinned even if it looks generated.
    assert (
        naming.auto_name_generation(declared(metadata={"name": naming.auto_name(declared(name_scope="x/y"))}))
        is None
    )


def test_auto_name_unknown_while_an_input_is_unknown() -> None:

    pending = naming.with_job_name(declared(triggers=NOT_KNOWN), None)
    assert normalising.is_unknown(pending["metadata"]["name"])


def test_differences_ignore_extra_fields_environments_and_number_text() -> None:
    want = {"metadata": {"name": "a"}, "algorithm": {"command": "x", "environments": {"K": "V"}}, "n": 2}
    have = {"metadata": {"name": "a", "id": "1"}, "algorithm": {"command": "x"}, "n": "2", "extra": 1}
    assert matching.differences(want, have) == []
    assert matching.differences({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3]}}) == ["a.b[1]"]
    assert matching.differences({"a": [1]}, {"a": [1, 2]}) == ["a"]
    assert matching.differences({"a": True}, {"a": "True"}) == ["a"]


@pytest.mark.parametrize(
    ("phase", "created", "matches", "expected"),
    [
        ("Running", 0, True, Holding.ADOPT),
        ("Creating", 0, True, Holding.ADOPT),
        ("Pending", 0, False, Holding.MISMATCH),
        ("Completed", 2000, True, Holding.ADOPT),
        ("Completed", 500, True, Holding.STALE),
        ("Completed", 2000, False, Holding.STALE),
        ("Failed", 2000, True, Holding.STALE),
        ("Terminated", 2000, True, Holding.STALE),
        ("Terminating", 2000, True, Holding.STALE),
        ("Abnormal", 2000, True, Holding.STALE),
    ],
)
def test_judge_holder(phase: str, created: int, matches: bool, expected: Holding) -> None:
    body = {"kind": "job", "metadata": {"name": "j", "description": "new"}, "algorithm": {"command": "x"}}
    holder: dict[str, Any] = {
        "kind": "job",
        "metadata": {"name": "j", "id": "i", "description": "old", "create_time": created},
        "algorithm": {"command": "x" if matches else "y", "engine": {"image_url": "i"}},
        "status": {"phase": phase},
    }
    judgment = matching.judge_holder(body, holder, phase=phase, created_ms=created, since_ms=1000)
    assert judgment.holding is expected
    if expected is Holding.MISMATCH:
        assert judgment.differences == ["algorithm.command"]


def test_error_classes_for_the_service_codes() -> None:
    assert api_error_class(400, "ModelArts.2751") is DuplicateNameError
    assert api_error_class(409, "ModelArts.2796") is NotTerminableError
    assert api_error_class(409, "ModelArts.2878") is StatusChangedError
    assert issubclass(StatusChangedError, ThrottledError)
    assert api_error_class(429, "ModelArts.2799") is ThrottledError


# ---------------------------------------------------------------- against the emulator (unique names)


@pytest.fixture
def unique(emulator_factory: Factory) -> EmulatorProcess:
    return emulator_factory(unique_names=True, running_seconds=30)


@pytest.fixture
def client(unique: EmulatorProcess) -> Iterator[Any]:
    """core's client for the emulator with unique names (not the room's, tests/job/conftest.py)."""
    with core.open_client({}, ProgressLines(), unique.provider_env()) as opened:
        yield opened


def jobs(emu: EmulatorProcess) -> list[Mapping[str, Any]]:
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        answer = http.post(f"{emu.url}/v2/{emu.project_id}/training-job-searches", json={"limit": 50}).json()
    return list(answer.get("items") or [])


def named(inputs: dict[str, Any]) -> dict[str, Any]:
    return naming.with_job_name(inputs, None)


def test_create_again_adopts_the_job_it_already_started(unique: EmulatorProcess, client: Any) -> None:
    inputs = named(declared())
    first = core.create(inputs, client, ProgressLines())
    said = ProgressLines()
    second = core.create(inputs, client, said)
    assert second.id == first.id
    assert any("adopting it" in line for line in said.lines)
    assert [j["metadata"]["id"] for j in jobs(unique)] == [first.id]


def test_create_refuses_a_running_stranger_holding_a_pinned_name(
    unique: EmulatorProcess, client: Any
) -> None:
    first = core.create(declared(metadata={"name": "pinned"}), client, ProgressLines())
    other = declared(
        metadata={"name": "pinned"}, algorithm={"engine": {"image_url": "org/img:2"}, "command": "x"}
    )
    with pytest.raises(ProvisioningError) as caught:
        core.create(other, client, ProgressLines())
    text = str(caught.value)
    assert first.id in text and "algorithm.engine.image_url" in text and "algorithm.command" in text
    assert len(jobs(unique)) == 1


def test_stale_holder_moves_an_auto_name_to_its_next_generation(unique: EmulatorProcess, client: Any) -> None:
    inputs = named(declared())
    first = core.create(inputs, client, ProgressLines())
    core.delete(first.id, client, ProgressLines())  # stopped; its record (and name) stays
    said = ProgressLines()
    second = core.create(inputs, client, said)
    assert second.id != first.id
    assert second.outputs["name"] == naming.auto_name(inputs, 1)
    # The state keeps the declared inputs as checked: the next plan sees no change.
    assert not core.plan(second.id, second.outputs, inputs, ProgressLines()).changes
    assert any("next generated name" in line for line in said.lines)
    assert {j["metadata"]["name"] for j in jobs(unique)} == {
        naming.auto_name(inputs, 0),
        naming.auto_name(inputs, 1),
    }


def test_many_stale_generations_cost_a_constant_number_of_calls(unique: EmulatorProcess, client: Any) -> None:
    # Every destroy-then-up keeps a stopped record holding the last name; the next create looks the following
    # generated names up ten at a time instead of posting to each in turn.
    inputs = named(declared())
    for _ in range(4):
        core.delete(core.create(inputs, client, ProgressLines()).id, client, ProgressLines())
    unique.reset_stats()
    said = ProgressLines()
    fifth = core.create(inputs, client, said)
    assert fifth.outputs["name"] == naming.auto_name(inputs, 4)
    assert unique.stats()["by_operation"] == {"create": 2, "search": 2}
    moved = [line for line in said.lines if "next generated name" in line]
    assert moved and "3 generated names in between" in moved[0], said.lines
    assert len({j["metadata"]["name"] for j in jobs(unique)}) == 5


def test_a_later_generation_held_by_the_declared_job_is_adopted(unique: EmulatorProcess, client: Any) -> None:
    # A killed `pulumi up` left generation 2 running (0 and 1 are stopped records): a re-run adopts it.
    inputs = named(declared())
    for _ in range(2):
        core.delete(core.create(inputs, client, ProgressLines()).id, client, ProgressLines())
    started = core.create(inputs, client, ProgressLines())
    assert started.outputs["name"] == naming.auto_name(inputs, 2)
    said = ProgressLines()
    again = core.create(inputs, client, said)
    assert again.id == started.id
    assert any("adopting it" in line for line in said.lines)
    assert len(jobs(unique)) == 3


def test_a_service_refusing_the_batch_search_still_reaches_the_next_free_name(
    unique: EmulatorProcess, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi_modelarts.wire.api_errors import SearchRejectedError

    inputs = named(declared())
    for _ in range(2):
        core.delete(core.create(inputs, client, ProgressLines()).id, client, ProgressLines())
    search = client.iter_jobs

    def refuse_in(filters: Any, **kw: Any) -> Any:
        if any(f.operator == "in" for f in filters or []):
            raise SearchRejectedError(400, "ModelArts.2808", "unsupported operator", operation="search")
        return search(filters, **kw)

    monkeypatch.setattr(client, "iter_jobs", refuse_in)
    third = core.create(inputs, client, ProgressLines())
    assert third.outputs["name"] == naming.auto_name(inputs, 2)


def test_stale_holder_of_a_pinned_name_is_deleted_and_the_name_reused(
    unique: EmulatorProcess, client: Any
) -> None:
    inputs = declared(metadata={"name": "pinned"})
    first = core.create(inputs, client, ProgressLines())
    core.delete(first.id, client, ProgressLines())
    said = ProgressLines()
    second = core.create(inputs, client, said)
    assert second.id != first.id and second.outputs["name"] == "pinned"
    assert any("deleting that job's record" in line for line in said.lines)
    assert [j["metadata"]["id"] for j in jobs(unique)] == [second.id]


def test_delete_without_keep_record_frees_the_name(unique: EmulatorProcess, client: Any) -> None:
    inputs = declared(metadata={"name": "pinned"}, keep_record=False)
    first = core.create(inputs, client, ProgressLines())
    core.delete(first.id, client, ProgressLines(), first.outputs)
    assert jobs(unique) == []
    said = ProgressLines()
    second = core.create(inputs, client, said)
    assert second.outputs["name"] == "pinned"
    assert not any("deleting" in line for line in said.lines)


@pytest.mark.parametrize("chosen", ["delete", "Delete"])
def test_delete_with_on_destroy_delete_frees_the_name(
    unique: EmulatorProcess, client: Any, chosen: str
) -> None:
    inputs = declared(metadata={"name": "pinned"}, on_destroy=chosen)
    first = core.create(inputs, client, ProgressLines())
    core.delete(first.id, client, ProgressLines(), first.outputs)
    assert jobs(unique) == []
    second = core.create(inputs, client, ProgressLines())
    assert second.outputs["name"] == "pinned"


def test_delete_keeps_the_record_by_default(unique: EmulatorProcess, client: Any) -> None:
    first = core.create(declared(metadata={"name": "kept"}), client, ProgressLines())
    core.delete(first.id, client, ProgressLines(), first.outputs)
    assert [j["status"]["phase"] for j in jobs(unique)] == ["Terminated"]


def test_check_refuses_a_name_scope_set_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULUMI_PROJECT", "proj")
    assert core.check({}, declared()).failures == []
    for wrong in ("nostack", "a/b/c", "/dev", 3):
        failures = core.check({}, declared(name_scope=wrong)).failures
        assert [f.path for f in failures] == ["name_scope"], wrong
    failures = core.check({}, declared(name_scope="other/dev")).failures
    assert [f.path for f in failures] == ["name_scope"] and "'other'" in failures[0].reason


def test_hidden_name_scope_never_causes_a_diff() -> None:
    old = {k: v for k, v in declared().items() if k != "name_scope"}
    assert not diffing.decide(old, declared()).changes


# ---------------------------------------------------------------- the client meets 2751, 2796, 2878, 2799


def sdk_error(emu: EmulatorProcess, call: Callable[[Any, Any], Any]) -> tuple[int, str]:
    """What the official SDK sees for the same call: the oracle for status and error code."""
    from ..official_sdk import sdk_client, sdk_module

    m = sdk_module("huaweicloudsdkmodelarts.v1.model")
    from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException

    with pytest.raises(ClientRequestException) as caught:
        call(sdk_client(emu), m)
    return caught.value.status_code, caught.value.error_code


def test_client_raises_duplicate_name_where_the_sdk_sees_2751(unique: EmulatorProcess, client: Any) -> None:
    inputs = declared(metadata={"name": "taken"})
    request = validate_create_request(normalising.job_body(inputs), require_name=True)
    create_job(client, request)
    with pytest.raises(DuplicateNameError) as caught:
        create_job(client, request)
    assert caught.value.status_code == 400 and caught.value.error_code == "ModelArts.2751"
    body = normalising.job_body(inputs)
    assert sdk_error(unique, lambda c, m: c.create_training_job(m.CreateTrainingJobRequest(body=body))) == (
        400,
        "ModelArts.2751",
    )


def test_client_raises_not_terminable_where_the_sdk_sees_2796(emulator_factory: Factory) -> None:
    emu = emulator_factory(running_seconds=0.2)
    with core.open_client({}, ProgressLines(), emu.provider_env()) as opened:
        job = core.create(declared(metadata={"name": "done"}, wait_for="completed"), opened, ProgressLines())
        with pytest.raises(NotTerminableError):
            opened.terminate_job(job.id)
        said = ProgressLines()
        core.delete(job.id, opened, said)  # nothing to stop: no error

    def terminate(c: Any, m: Any) -> Any:
        body = m.JobActionType("terminate")
        return c.stop_training_job(m.StopTrainingJobRequest(training_job_id=job.id, body=body))

    assert sdk_error(emu, terminate) == (409, "ModelArts.2796")


def test_status_changed_on_terminate_is_retried(emulator_factory: Factory) -> None:
    emu = emulator_factory(running_seconds=30, terminate_conflict_rate=0.6, seed=3)
    said = ProgressLines()
    env = emu.provider_env()
    for seed_job in range(3):
        with core.open_client({}, said, env) as opened:
            job = core.create(
                declared(metadata={"name": f"busy-{seed_job}"}, wait_for="running"), opened, said
            )
            core.delete(job.id, opened, said)
            assert opened.get_job(job.id).phase == "Terminated"
    assert any("status was changing" in line for line in said.lines)


def test_modelarts_throttling_waits_at_least_two_seconds(emulator_factory: Factory) -> None:
    from pulumi_modelarts.account.session import open_api
    from pulumi_modelarts.account.settings import resolve_settings

    emu = emulator_factory(throttle_rate=1.0, throttle_code="ModelArts.2799")
    pauses: list[float] = []
    settings = resolve_settings({}, emu.provider_env())
    client = open_api(settings, max_attempts=3, sleep=pauses.append, rng=lambda: 0.0)
    with client, pytest.raises(ThrottledError) as caught:
        client.get_job("any")
    assert caught.value.error_code == "ModelArts.2799"
    assert pauses == [2.0, 2.0]


# ---------------------------------------------------------------- search filters


@pytest.mark.parametrize(
    ("key", "operator", "value", "words"),
    [
        ("colour", "in", ["red"], "filters only by"),
        ("phase", "in", ["Runing"], "unknown training job phase 'Runing'"),
        ("name", "like", [str(i) for i in range(11)], "at most 10 values"),
    ],
)
def test_search_filters_the_service_would_refuse_fail_before_sending(
    key: str, operator: str, value: list[str], words: str
) -> None:
    import pydantic

    from pulumi_modelarts.wire.models import SearchFilter

    with pytest.raises(pydantic.ValidationError) as caught:
        SearchFilter(key=key, operator=operator, value=value)  # type: ignore[arg-type]
    assert words in str(caught.value) and f"search filter {key} {operator}" in str(caught.value)


def test_get_training_jobs_checks_its_filters_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from pulumi_modelarts import get_training_jobs

    monkeypatch.setenv("HW_REGION_NAME", "nowhere-1")  # no call may be attempted: settings are not even read
    with pytest.raises(ValueError, match=r"get_training_jobs: .*unknown training job phase 'Runing'"):
        get_training_jobs(phase=["Running", "Runing"])


def test_a_refused_search_names_the_filters_sent(client: Any) -> None:
    from pulumi_modelarts.wire.api_errors import SearchRejectedError
    from pulumi_modelarts.wire.models import SearchFilter

    refused = SearchFilter(key="create_time", operator="like", value=["1"])
    with pytest.raises(SearchRejectedError) as caught:
        list(client.iter_jobs([refused]))
    assert caught.value.error_code in ("ModelArts.2808", "ModelArts.2809")
    assert "filters sent: create_time like ['1']" in str(caught.value)


def test_auto_name_never_depends_on_secret_environment_variables() -> None:
    # Six characters of a hash are few, but enough to test guesses of a short secret: secrets stay out.
    def with_env(value: str) -> dict[str, Any]:
        algorithm = {"engine": {"image_url": "org/img:1"}, "command": "x", "environments": {"TOKEN": value}}
        task = {"role": "worker", "algorithm": {"environments": {"TOKEN": value}}}
        return declared(algorithm=algorithm, tasks=[task])

    assert naming.auto_name(with_env("1234")) == naming.auto_name(with_env("9999"))
    assert with_env("1234")["algorithm"]["environments"] == {"TOKEN": "1234"}  # inputs not changed
    plain = declared(algorithm={"engine": {"image_url": "org/img:1"}, "command": "x"})
    assert naming.auto_name(with_env("1234")) != naming.auto_name(plain)  # the task still counts


def test_adopting_a_job_applies_a_changed_description(unique: EmulatorProcess, client: Any) -> None:
    # The description is not part of the name and changes in place: a re-run with a new one adopts the job.
    inputs = named(declared())
    first = core.create(inputs, client, ProgressLines())
    changed = {**inputs, "metadata": {**inputs["metadata"], "description": "edited"}}
    second = core.create(changed, client, ProgressLines())
    assert second.id == first.id
    assert client.get_job(first.id).metadata.description == "edited"

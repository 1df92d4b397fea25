"""Tags of a training job: the service's rules, the client against the emulator (with the official SDK as the
oracle of the wire shapes), and core's create, update, read and import with tags, including a create whose
tagging the service refuses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.job import core
from pulumi_modelarts.job.errors import JobNotFoundError
from pulumi_modelarts.job.resource_schema import ProviderSettings
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.models import TAGS_MAX, tag_problems

from ..support import ProgressLines, minimal_job

pytestmark = pytest.mark.usefixtures("fast_polls")


def job_inputs(name: str, **overrides: Any) -> dict[str, Any]:
    return minimal_job(metadata={"name": name}, wait_for="none", **overrides)


def changes(emu: EmulatorProcess) -> list[tuple[str, dict[str, Any]]]:
    return [(c["op"], {t["key"]: t["value"] for t in c["tags"]}) for c in emu.tag_changes()]


# ------------------------------------------------------------------------------------------------ rules


def test_the_service_rules_are_checked_before_any_call() -> None:
    assert tag_problems({"team": "ml", "成本 中心": "a/b:c=d+e-f@g_h.i", "k": ""}) == []
    found = tag_problems({" lead": "x", "_sys_owner": "x", "a!": "x", "v": "a!", "long": "x" * 256})
    assert found == [
        "tag key ' lead': no space at the start or end",
        "tag key '_sys_owner': keys starting with _sys_ are reserved",
        "tag key 'a!': only letters, digits, spaces and _ . : = + - @",
        "tag 'v': the value may hold only letters, digits, spaces and _ . : / = + - @",
        "tag 'long': the value has more than 255 characters",
    ]
    assert tag_problems({"k" * 129: "v"}) == [f"tag key {'k' * 129!r}: 1 to 128 characters"]
    assert tag_problems({"k/": "v"}) == ["tag key 'k/': only letters, digits, spaces and _ . : = + - @"]
    assert tag_problems({f"k{i}": "v" for i in range(TAGS_MAX + 1)}) == ["at most 20 tags, not 21"]
    assert tag_problems({f"k{i}": "v" for i in range(TAGS_MAX)}) == []


def test_check_reports_bad_tags_at_the_tags_input() -> None:
    checked = core.check({}, job_inputs("tag-check", tags={"_sys_x": "1", "ok": "fine"}))
    assert [(f.path, f.reason) for f in checked.failures] == [
        ("tags", "tag key '_sys_x': keys starting with _sys_ are reserved")
    ]
    assert core.check({}, job_inputs("tag-check", tags={"team": "ml"})).failures == []
    assert ProviderSettings.model_validate({"tags": {"a": "b"}}).tags == {"a": "b"}


def test_a_tag_change_is_an_in_place_update_never_a_replacement() -> None:
    old = core.check({}, job_inputs("tag-plan", tags={"team": "ml"})).inputs
    new = core.check(old, job_inputs("tag-plan", tags={"team": "cv"})).inputs
    decision = core.plan("id", {"declared_inputs": old}, new, ProgressLines())
    assert decision.replaces == [] and decision.settings_changed == ["tags"] and decision.changes
    # The same tags (however written) and no tags at all next to an empty map are no change.
    assert not core.plan("id", {"declared_inputs": old}, old, ProgressLines()).changes
    empty = core.check({}, job_inputs("tag-plan", tags={})).inputs
    untagged = core.check({}, job_inputs("tag-plan")).inputs
    assert not core.plan("id", {"declared_inputs": untagged}, empty, ProgressLines()).changes


# ------------------------------------------------------------------------------------------------ client


def test_client_round_trip_and_search_by_tag(client: ModelArtsAPI, emulator: EmulatorProcess) -> None:
    state = core.create(job_inputs("tag-client-a"), client, ProgressLines())
    other = core.create(job_inputs("tag-client-b"), client, ProgressLines())
    assert client.get_tags(state.id) == {}
    client.add_tags(state.id, {"team": "ml", "cost": "42"})
    client.add_tags(other.id, {"team": "cv"})
    assert client.get_tags(state.id) == {"cost": "42", "team": "ml"}
    client.remove_tags(state.id, {"cost": "42"})
    assert client.get_tags(state.id) == {"team": "ml"}
    names = [j.name for j in client.iter_jobs(tags={"team": "ml"})]
    assert names == ["tag-client-a"]
    assert sorted(j.name or "" for j in client.iter_jobs()) == ["tag-client-a", "tag-client-b"]
    assert core.list_jobs(client, [], tags={"team": "nobody"}) == []
    assert changes(emulator) == [
        ("create", {"cost": "42", "team": "ml"}),
        ("create", {"team": "cv"}),
        ("delete", {"cost": "42"}),
    ]


def test_the_official_sdk_reads_and_writes_the_same_tags(
    client: ModelArtsAPI, emulator: EmulatorProcess
) -> None:
    from ..official_sdk import sdk_client, sdk_module

    m = sdk_module("huaweicloudsdkmodelarts.v1.model")

    sdk = sdk_client(emulator)
    job_id = core.create(job_inputs("tag-sdk"), client, ProgressLines()).id
    # Tags written by this client, read by the SDK...
    client.add_tags(job_id, {"team": "ml", "owner": "ana"})
    shown = sdk.show_train_job_tags(m.ShowTrainJobTagsRequest(training_job_id=job_id))
    assert sorted((t.key, t.value) for t in shown.tags) == [("owner", "ana"), ("team", "ml")]
    # ...and written and removed by the SDK, read by this client: the same paths and bodies.
    body = m.CreateTmsTagsRequest(tags=[m.TmsTag(key="cost", value="7")])
    sdk.create_train_job_tags(m.CreateTrainJobTagsRequest(training_job_id=job_id, body=body))
    gone = m.DeleteTmsTagsRequest(tags=[m.TmsTag(key="owner", value="ana")])
    sdk.delete_train_job_tags(m.DeleteTrainJobTagsRequest(training_job_id=job_id, body=gone))
    assert client.get_tags(job_id) == {"cost": "7", "team": "ml"}
    # What the client sent has the SDK's shape exactly.
    sent = emulator.tag_changes()[0]["tags"]
    sdk_shape = m.CreateTmsTagsRequest(tags=[m.TmsTag(key=t["key"], value=t["value"]) for t in sent])
    assert {"tags": sent} == sdk_shape.to_dict()


# ------------------------------------------------------------------------------------------------ core


def test_create_tags_the_job_and_records_them(client: ModelArtsAPI, emulator: EmulatorProcess) -> None:
    said = ProgressLines()
    state = core.create(job_inputs("tag-create", tags={"team": "ml", "cost": "42"}), client, said)
    assert client.get_tags(state.id) == {"team": "ml", "cost": "42"}
    assert state.outputs["tags"] == {"team": "ml", "cost": "42"}
    assert state.outputs["declared_inputs"]["tags"] == {"team": "ml", "cost": "42"}
    assert changes(emulator) == [("create", {"cost": "42", "team": "ml"})]
    assert "training job tag-create (id " in said.lines[-1] and said.lines[-1].endswith("2 tags applied")


def test_tagging_that_fails_with_any_exception_keeps_the_job_and_says_so(
    client: ModelArtsAPI, emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not the service refusing: a credential source or a library failing under the call. The job exists, so
    # it is kept (with its tags left for the next up), never left running outside the state.
    def failing(job_id: str, tags: Mapping[str, str]) -> None:
        raise UnicodeEncodeError("ascii", "\u2603", 0, 1, "ordinal not in range(128)")

    monkeypatch.setattr(client, "add_tags", failing)
    said = ProgressLines()
    state = core.create(job_inputs("tag-broken", tags={"team": "ml"}), client, said)
    assert client.get_job(state.id).phase in ("Creating", "Pending", "Running")
    assert state.outputs["tags"] == {} and state.outputs["declared_inputs"]["tags"] == {}
    [warning] = [line for line in said.lines if line.startswith("warning:")]
    assert "its tags were not applied (UnicodeEncodeError: 'ascii' codec can't encode" in warning, warning


def test_a_refused_tagging_keeps_the_job_and_the_next_update_applies_the_tags(
    client: ModelArtsAPI, emulator: EmulatorProcess
) -> None:
    # The service refuses the tags (a reserved key; check would have said so, create is called directly).
    said = ProgressLines()
    declared = job_inputs("tag-refused", tags={"_sys_owner": "ana", "team": "ml"})
    state = core.create(declared, client, said)
    assert state.id and client.get_job(state.id).phase in ("Creating", "Pending", "Running")
    assert state.outputs["tags"] == {}
    assert state.outputs["declared_inputs"]["tags"] == {}  # what the job carries, so the next up differs
    warning = [line for line in said.lines if line.startswith("warning:")]
    assert len(warning) == 1 and "its tags were not applied" in warning[0]
    assert "the job is kept, and the next `pulumi up` applies them" in warning[0]
    # The next up (with tags the service accepts) sees the difference and applies it in place.
    fixed = job_inputs("tag-refused", tags={"team": "ml"})
    assert core.plan(state.id, state.outputs, fixed, ProgressLines()).settings_changed == ["tags"]
    updated = core.update(state.id, state.outputs, fixed, client, ProgressLines())
    assert client.get_tags(state.id) == {"team": "ml"} == updated.outputs["tags"]


def test_update_sends_only_the_difference(client: ModelArtsAPI, emulator: EmulatorProcess) -> None:
    first = {"team": "ml", "cost": "42", "owner": "ana"}
    state = core.create(job_inputs("tag-update", tags=first), client, ProgressLines())
    second = {"team": "ml", "cost": "43", "project": "x"}  # owner removed, cost changed, project added
    said = ProgressLines()
    updated = core.update(state.id, state.outputs, job_inputs("tag-update", tags=second), client, said)
    assert client.get_tags(state.id) == second == updated.outputs["tags"]
    assert changes(emulator)[1:] == [
        ("delete", {"cost": "42", "owner": "ana"}),
        ("create", {"cost": "43", "project": "x"}),
    ]
    assert said.lines[-1].endswith("tags updated (cost, owner, project)")
    # Removing the tags input removes the tags it declared, and leaves others alone.
    client.add_tags(state.id, {"elsewhere": "1"})
    core.update(state.id, updated.outputs, job_inputs("tag-update"), client, ProgressLines())
    assert client.get_tags(state.id) == {"elsewhere": "1"}


def test_refresh_reads_tags_changed_elsewhere_as_drift(client: ModelArtsAPI) -> None:
    state = core.create(job_inputs("tag-drift", tags={"team": "ml"}), client, ProgressLines())
    client.add_tags(state.id, {"team": "cv", "extra": "1"})
    found = core.read(state.id, state.outputs, client, ProgressLines())
    assert found is not None
    assert found.outputs["tags"] == {"team": "cv", "extra": "1"}
    assert found.outputs["declared_inputs"]["tags"] == {"team": "cv", "extra": "1"}
    assert found.drifted_tags == {"team": "cv", "extra": "1"}  # what both front-ends record as the inputs'
    again = core.read(state.id, found.outputs, client, ProgressLines())
    assert again is not None and again.drifted_tags is None  # the drift recorded: none left to report
    # The program still declares team=ml: the next plan is an in-place change of tags, nothing else.
    program = job_inputs("tag-drift", tags={"team": "ml"})
    decision = core.plan(state.id, found.outputs, program, ProgressLines())
    assert decision.settings_changed == ["tags"]
    assert not decision.replaces and not decision.description_changed
    # The rest of the declaration is untouched by the refresh.
    assert {k: v for k, v in found.outputs["declared_inputs"].items() if k != "tags"} == {
        k: v for k, v in state.outputs["declared_inputs"].items() if k != "tags"
    }


def test_unmanaged_tags_cost_no_call_and_import_reads_them(
    client: ModelArtsAPI, emulator: EmulatorProcess
) -> None:
    state = core.create(job_inputs("tag-import"), client, ProgressLines())
    client.add_tags(state.id, {"team": "ml"})
    emulator.reset_stats()
    refreshed = core.read(state.id, state.outputs, client, ProgressLines())
    assert refreshed is not None and refreshed.outputs["tags"] == {}
    assert refreshed.drifted_tags is None  # tags the program does not manage never drift
    assert emulator.stats()["by_operation"] == {"get": 1}  # tags not declared: not read
    looked_up = core.read(state.id, {}, client, ProgressLines())
    assert looked_up is not None and looked_up.outputs["tags"] == {"team": "ml"}
    assert looked_up.drifted_tags is None  # an import records the tags it found as declared, no drift
    with pytest.raises(JobNotFoundError):  # no phase stored: a lookup, whose missing job is an error
        core.read("00000000-0000-0000-0000-000000000000", {}, client, ProgressLines())


def test_plugin_import_and_refresh_carry_tags() -> None:
    from pulumi_modelarts.frontends.native_values import property_map, to_plain, with_tags_found
    from pulumi_modelarts.job import recorded

    found: Mapping[str, Any] = {"metadata": {"name": "n"}, "kind": "job", "tags": {"team": "ml"}}
    assert recorded.declared_from_job(found)["tags"] == {"team": "ml"}
    stored = property_map({"tags": {"team": "ml"}, "kind": "job"})
    drifted = with_tags_found(stored, {"team": "cv"})
    assert to_plain(drifted["tags"]) == {"team": "cv"}
    assert to_plain(drifted["kind"]) == "job"
    assert with_tags_found(stored, None) is stored  # no drift
    unmanaged = property_map({"kind": "job"})
    assert with_tags_found(unmanaged, {"team": "cv"}) is unmanaged  # tags not managed: nothing to show


def test_get_training_jobs_filters_by_tag(
    client: ModelArtsAPI, emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi.provider.experimental.provider import InvokeRequest

    from pulumi_modelarts.frontends import plugin
    from pulumi_modelarts.frontends.functions import find_jobs
    from pulumi_modelarts.frontends.native_values import property_map, to_plain

    from ..plugin_support import run

    for name, tags in (("tag-find-a", {"team": "ml"}), ("tag-find-b", {"team": "cv"}), ("tag-find-c", None)):
        core.create(job_inputs(name, **({"tags": tags} if tags else {})), client, ProgressLines())
    for key, value in emulator.provider_env().items():
        monkeypatch.setenv(key, value)
    found = find_jobs({}, ProgressLines(), tags={"team": "ml"})
    assert [j["metadata"]["name"] for j in found] == ["tag-find-a"]
    assert len(find_jobs({}, ProgressLines())) == 3
    # The native function's argument, in schema names, reaches the same filter.
    args = property_map({"tags": {"team": "ml"}})
    answer = run(plugin.ModelArtsProvider().invoke(InvokeRequest("modelarts:index:getTrainingJobs", args)))
    assert [j["metadata"]["name"] for j in to_plain(answer.return_value["jobs"])] == ["tag-find-a"]


def test_an_update_leaving_tags_alone_makes_no_tag_call(
    client: ModelArtsAPI, emulator: EmulatorProcess
) -> None:
    tags = {"team": "ml"}
    state = core.create(job_inputs("tag-still", tags=tags), client, ProgressLines())
    emulator.reset_stats()
    described = job_inputs("tag-still", tags=tags)
    described["metadata"] = {**described["metadata"], "description": "now described"}
    updated = core.update(state.id, state.outputs, described, client, ProgressLines())
    assert emulator.stats()["by_operation"] == {"update": 1, "get": 1}
    assert updated.outputs["tags"] == tags and client.get_tags(state.id) == tags


def test_the_dynamic_provider_hands_drifted_tags_back_as_inputs_when_its_sdk_can(
    client: ModelArtsAPI, emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi_modelarts.frontends import dynamic as provider

    for key, value in emulator.provider_env().items():
        monkeypatch.setenv(key, value)
    secret_env = {"TOKEN": "s3cret"}
    declared = job_inputs("tag-dynamic", tags={"team": "ml"})
    declared["algorithm"] = {**declared["algorithm"], "environments": secret_env}
    state = core.create(declared, client, ProgressLines())
    unchanged = provider.TrainingJobProvider().read(state.id, state.outputs)
    assert getattr(unchanged, "inputs", None) is None  # no drift: the stored inputs stay
    client.add_tags(state.id, {"team": "cv"})
    drifted = provider.TrainingJobProvider().read(state.id, state.outputs)
    inputs = getattr(drifted, "inputs", None)
    assert inputs is not None and inputs["tags"] == {"team": "cv"}
    # The secret inputs stay secret in what is handed back.
    from pulumi.runtime import rpc

    assert rpc.is_rpc_secret(inputs["algorithm"]["environments"])
    # A pulumi SDK without inputs on ReadResult: the outputs still carry the tags found.
    monkeypatch.setattr(provider, "READ_TAKES_INPUTS", False)
    older = provider.TrainingJobProvider().read(state.id, state.outputs)
    assert getattr(older, "inputs", None) is None
    assert (older.outs or {})["declared_inputs"]["tags"] == {"team": "cv"}

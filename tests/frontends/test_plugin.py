"""The native provider's translation layer, called directly: values in and out, check failures, diff kinds,
configuration, the executor, and the provider against the emulator without the engine."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.provider.experimental.provider import (
    CheckRequest,
    ConfigureRequest,
    CreateRequest,
    DeleteRequest,
    DiffRequest,
    GetSchemaRequest,
    InvokeRequest,
    PropertyDiffKind,
    ReadRequest,
)

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.frontends import engine_watch, plugin, renaming
from pulumi_modelarts.frontends.native_values import (
    outputs_map,
    plain_map,
    planned_state,
    property_map,
    to_plain,
    to_property,
    wire_inputs,
    wire_state,
)
from pulumi_modelarts.job import recorded
from pulumi_modelarts.job.normalising import NOT_KNOWN
from pulumi_modelarts.job.waiting import polling as wait

from ..plugin_support import URN, declared_state, diff, diff_kinds, engine_log, run
from ..support import init_failure, poll


def pv(value: Any, secret: bool = False) -> PropertyValue:
    return to_property(value, secret=secret)


def inputs(**overrides: Any) -> dict[str, Any]:
    """Inputs as the engine sends them: in the schema's names."""
    base: dict[str, Any] = {
        "metadata": {"description": "nightly"},
        "algorithm": {"engine": {"imageUrl": "org/img:1"}, "command": "python train.py"},
        "spec": {"resource": {"flavorId": "modelarts.vm.cpu.2u", "nodeCount": 1}},
    }
    base.update(overrides)
    return base


def test_values_round_trip_with_whole_numbers_secrets_and_unknowns() -> None:
    value = PropertyValue(
        {
            "n": PropertyValue(2.0),
            "x": PropertyValue(0.5),
            "env": PropertyValue({"K": PropertyValue("v")}, is_secret=True),
            "later": PropertyValue.computed(),
            "items": PropertyValue([PropertyValue(True), PropertyValue(None)]),
        }
    )
    plain = to_plain(value)
    # A value not known yet is the job layer's marker (Computed going back out).
    assert plain == {"n": 2, "x": 0.5, "env": {"K": "v"}, "later": NOT_KNOWN, "items": [True, None]}
    assert isinstance(plain["n"], int)
    back = to_property(plain, value)
    assert back.value["env"].is_secret and not back.value["n"].is_secret
    assert back.value["n"].value == 2.0 and isinstance(back.value["n"].value, float)
    assert isinstance(back.value["later"].value, Computed)


def test_secret_outputs_are_marked() -> None:
    wire = {"phase": "Running", "environments": {"A": "b"}, "endpoints": {}, "declared_inputs": {}}
    outs = outputs_map(wire, {})
    assert outs["environments"].is_secret and outs["endpoints"].is_secret and not outs["phase"].is_secret
    assert outs["declaredInputs"].is_secret


def test_check_names_top_level_properties_and_leads_nested_reasons_with_the_path() -> None:
    provider = plugin.ModelArtsProvider()
    news = inputs(waitFor="sometime", spec={"resource": {"flavorId": "f", "nodeCount": 0}})
    answer = run(provider.check(CheckRequest(URN, {}, property_map(news), b"")))
    assert [f.reason for f in answer.failures if f.property == "waitFor"]
    nested = [f for f in answer.failures if f.reason.startswith("spec.resource.nodeCount: ")]
    assert nested and nested[0].property == ""
    assert answer.inputs["namePrefix"].value == "train"  # the resource name, as the dynamic resource does
    assert answer.inputs["metadata"].value["name"].value.startswith("train-")


def test_check_passes_advised_inputs_and_logs_each_warning_on_the_job(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider = plugin.ModelArtsProvider()
    logged = engine_log(monkeypatch)
    # Huawei's Terraform acceptance test sends engine_id with engine_name; the service accepts it.
    news = inputs(
        algorithm={
            "engine": {"engine_id": "pytorch-1.8", "engine_name": "PyTorch"},
            "code_dir": "/b/code/",
            "boot_file": "/b/code/train.py",
        }
    )
    answer = run(provider.check(CheckRequest(URN, {}, property_map(news), b"")))
    assert answer.failures == []
    assert [(urn, warning) for urn, _, warning in logged] == [(URN, True)]
    # The warning names the field as the schema does (the user wrote engineName in TypeScript or Go).
    assert logged[0][1].startswith("algorithm.engine.engineName: engineName is not needed")


def test_check_keeps_secrets_where_the_inputs_had_them() -> None:
    provider = plugin.ModelArtsProvider()
    news = property_map(inputs())
    algorithm = dict(news["algorithm"].value)
    algorithm["environments"] = PropertyValue({"TOKEN": PropertyValue("s3cr3t")}, is_secret=True)
    news["algorithm"] = PropertyValue(algorithm)
    answer = run(provider.check(CheckRequest(URN, {}, news, b"")))
    assert answer.failures == []
    assert answer.inputs["algorithm"].value["environments"].is_secret
    assert not answer.inputs["algorithm"].is_secret


def test_check_answers_unchanged_inputs_with_the_values_the_engine_sent() -> None:
    # Each top-level input check leaves as it is comes back as the very value sent (nothing rebuilt); one it
    # fills in (metadata: the generated name) is built anew, keeping the secrets the inputs had.
    provider = plugin.ModelArtsProvider()
    news = property_map(inputs(waitFor="none"))
    news["metadata"] = PropertyValue({"description": PropertyValue("nightly", is_secret=True)})
    answer = run(provider.check(CheckRequest(URN, {}, news, b"")))
    assert answer.failures == []
    assert answer.inputs["algorithm"] is news["algorithm"] and answer.inputs["spec"] is news["spec"]
    assert answer.inputs["waitFor"] is news["waitFor"]
    assert answer.inputs["metadata"] is not news["metadata"]
    assert answer.inputs["metadata"].value["description"].is_secret
    assert to_plain(answer.inputs["metadata"])["name"].startswith("train-")


def test_diff_reads_only_what_it_plans_with_but_all_of_an_imported_job() -> None:
    state = {**declared_state(inputs()), "algorithm": pv({"parameters": [{"name": "p", "value": "v"}]})}
    assert set(planned_state(state)) == {"phase", "declaredInputs"}
    imported = {k: v for k, v in state.items() if k != "declaredInputs"}
    assert planned_state(imported) is imported


def test_check_marks_environment_variables_secret_though_the_program_did_not() -> None:
    # The generated SDKs pass nested values as plain data: without this the state would hold them in clear.
    provider = plugin.ModelArtsProvider()
    algorithm = {"engine": {"imageUrl": "org/img:1"}, "command": "train", "environments": {"T": "s"}}
    task = {"role": "worker", "algorithm": {"environments": {"T": "s"}}}
    news = property_map(inputs(algorithm=algorithm, tasks=[task, {"role": "ps"}]))
    assert not news["algorithm"].value["environments"].is_secret
    answer = run(provider.check(CheckRequest(URN, {}, news, b"")))
    environments = answer.inputs["algorithm"].value["environments"]
    assert environments.is_secret and environments.value["T"].value == "s"
    assert not answer.inputs["algorithm"].is_secret
    assert not answer.inputs["algorithm"].value["command"].is_secret
    first, second = answer.inputs["tasks"].value
    assert first.value["algorithm"].value["environments"].is_secret
    assert not first.value["algorithm"].is_secret and not first.value["role"].is_secret
    assert "algorithm" not in second.value
    assert not answer.inputs["tasks"].is_secret


def test_diff_names_each_property_and_its_kind() -> None:
    old = {**inputs(), "metadata": {"name": "train-abc123", "description": "nightly"}, "waitFor": "running"}
    new = {
        **inputs(),
        "metadata": {"name": "train-abc123", "description": "weekly"},
        "triggers": "v2",
    }
    answer = diff(old, new)
    assert answer.changes is True and answer.delete_before_replace is True
    assert answer.replaces == ["triggers"]
    assert diff_kinds(answer) == {
        "triggers": PropertyDiffKind.ADD_REPLACE,
        "metadata.description": PropertyDiffKind.UPDATE,
        "waitFor": PropertyDiffKind.DELETE,
    }


def test_diff_of_identical_inputs_is_no_change() -> None:
    same = {**inputs(), "metadata": {"name": "train-abc123", "description": "nightly"}}
    answer = diff(same, same)
    assert answer.changes is False and answer.detailed_diff == {}


def test_an_imported_job_differs_only_where_the_program_says_otherwise() -> None:
    # The state `pulumi import` leaves: the job's outputs in schema names, no declaredInputs.
    found = {
        "kind": "job",
        "metadata": {"id": "j", "name": "adopted", "description": "d", "createTime": 1},
        "algorithm": {"engine": {"imageUrl": "org/img:1", "engineName": "custom"}, "command": "run"},
        "spec": {"resource": {"flavorId": "f", "nodeCount": 1}},
        "phase": "Running",
    }
    provider = plugin.ModelArtsProvider()
    declared = {
        "metadata": {"name": "adopted", "description": "d"},
        "algorithm": {"engine": {"imageUrl": "org/img:1"}, "command": "run"},
        "spec": {"resource": {"flavorId": "f", "nodeCount": 1}},
        "namePrefix": "adopted",
    }
    state = property_map(found)
    same = run(provider.diff(DiffRequest(URN, "j", state, property_map(declared), [])))
    assert same.changes is False
    other = {**declared, "algorithm": {"engine": {"imageUrl": "org/img:2"}, "command": "run"}}
    changed = run(provider.diff(DiffRequest(URN, "j", state, property_map(other), [])))
    assert changed.replaces == ["algorithm.engine.imageUrl"]  # the value that differs, in schema names
    wire = {
        "kind": "job",
        "metadata": {"id": "j", "name": "adopted", "create_time": 1},
        "algorithm": {"engine": {"image_url": "org/img:1", "engine_name": "custom"}, "command": "run"},
        "phase": "Running",
    }
    projected = recorded.declared_from_job(wire)
    assert "phase" not in projected and projected["algorithm"]["engine"]["engine_name"] == "custom"
    # A job without remote access: its outputs' empty endpoints are no input (an SSH block with no key).
    assert "endpoints" not in recorded.declared_from_job({**wire, "endpoints": {}})
    ssh = {"ssh": {"key_pair_names": ["ops"]}}
    assert recorded.declared_from_job({**wire, "endpoints": ssh})["endpoints"] == ssh


def test_configure_takes_the_namespace_and_explicit_arguments() -> None:
    provider = plugin.ModelArtsProvider()
    request = ConfigureRequest(
        {"modelarts:region": "cn-north-4", "other:region": "x"},
        {"secretKey": PropertyValue("sk", is_secret=True), "projectId": PropertyValue.computed()},
        True,
        False,
    )
    answer = run(provider.configure(request))
    assert answer.accept_secrets is True
    assert provider.config() == {"modelarts:region": "cn-north-4", "modelarts:secretKey": "sk"}


DEFAULT_PROVIDER = "urn:pulumi:dev::proj::pulumi:providers:modelarts::default_0_2_0"


def test_check_config_marks_the_schemas_secret_settings_and_warns_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The engine strips secrets before CheckConfig and stores its answer as the provider's inputs and outputs:
    # a key set without --secret would be stored in plain text unless marked here.
    provider = plugin.ModelArtsProvider()
    logged = engine_log(monkeypatch)
    schema = json.loads(run(provider.get_schema(GetSchemaRequest(0))).schema)
    secret = {key for key, spec in schema["config"]["variables"].items() if spec.get("secret")}
    assert secret == {"secretKey", "securityToken", "authToken"}
    news = {key: PropertyValue(f"value-{key}") for key in schema["config"]["variables"]}
    news["version"] = PropertyValue("0.2.0")
    for _ in range(2):
        answer = run(provider.check_config(CheckRequest(DEFAULT_PROVIDER, {}, news, b"")))
        assert {key for key, value in answer.inputs.items() if value.is_secret} == secret
        assert plain_map(answer.inputs) == plain_map(news)
    [(urn, line, warning)] = logged  # once, however often the engine checks the configuration
    assert urn == DEFAULT_PROVIDER and warning
    assert line.startswith("modelarts:secretKey, modelarts:securityToken, modelarts:authToken are set in")
    assert "--secret" in line and "$HW_SECRET_KEY" in line and "value-" not in line


def test_check_config_warns_for_neither_the_environment_nor_an_explicit_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider = plugin.ModelArtsProvider()
    logged = engine_log(monkeypatch)
    plain = {"region": PropertyValue("cn-north-4")}
    assert run(provider.check_config(CheckRequest(DEFAULT_PROVIDER, {}, plain, b""))).inputs == plain
    # A program's own Provider: the generated SDKs already send its secret arguments as secrets.
    explicit = "urn:pulumi:dev::proj::pulumi:providers:modelarts::mine"
    answer = run(provider.check_config(CheckRequest(explicit, {}, {"authToken": PropertyValue("t")}, b"")))
    assert answer.inputs["authToken"].is_secret
    assert logged == []


def test_the_schema_served_is_the_generated_one() -> None:
    provider = plugin.ModelArtsProvider()
    schema = json.loads(run(provider.get_schema(GetSchemaRequest(0))).schema)
    assert schema["name"] == "modelarts" and "modelarts:index:TrainingJob" in schema["resources"]


def test_the_executor_holds_many_waits_at_once() -> None:
    # asyncio.to_thread's default executor would hold min(32, cores + 4): six on a two-core machine.
    provider = plugin.ModelArtsProvider()
    assert provider.workers >= 64 and plugin.WORKERS >= 64


def test_create_read_invoke_and_delete_against_the_emulator(
    emulator_factory: Callable[..., EmulatorProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The job runs until deleted: on a busy machine a job of the fast timings could complete first, and
    # delete would then have nothing to end.
    emulator = emulator_factory(running_seconds=600)
    for key, value in emulator.provider_env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(wait.POLL_SECONDS_ENV, "0.02")
    provider = plugin.ModelArtsProvider()
    checked = run(provider.check(CheckRequest(URN, {}, property_map(inputs(waitFor="running")), b"")))
    created = run(provider.create(CreateRequest(URN, checked.inputs, 0.0, False)))
    assert created.resource_id and created.properties["phase"].value == "Running"
    assert created.properties["declaredInputs"].is_secret
    # Outputs in schema names, nested ones and the declared inputs included.
    outputs = to_plain(PropertyValue(created.properties))
    assert isinstance(outputs["metadata"]["createTime"], int) and "create_time" not in outputs["metadata"]
    assert outputs["secondaryPhase"] and outputs["status"]["secondaryPhase"] == outputs["secondaryPhase"]
    assert outputs["spec"]["resource"]["flavorId"] == "modelarts.vm.cpu.2u"
    declared_spec = outputs["declaredInputs"]["spec"]
    assert declared_spec == {"resource": {"flavorId": "modelarts.vm.cpu.2u", "nodeCount": 1}}
    assert outputs["declaredInputs"]["waitFor"] == "running"
    read = run(provider.read(ReadRequest(URN, created.resource_id, created.properties, checked.inputs)))
    assert read.resource_id == created.resource_id and read.inputs == checked.inputs
    assert (
        to_plain(PropertyValue(read.properties))["metadata"]["createTime"]
        == outputs["metadata"]["createTime"]
    )
    found = run(provider.invoke(InvokeRequest("modelarts:index:getTrainingJobs", {})))
    assert [j.value["metadata"].value["id"].value for j in found.return_value["jobs"].value] == [
        created.resource_id
    ]
    [job] = to_plain(found.return_value["jobs"])
    assert job["metadata"]["createTime"] == outputs["metadata"]["createTime"]
    assert job["algorithm"]["engine"]["imageUrl"] == "org/img:1"
    # The function's arguments in schema names: a window that ends before the job was created finds nothing.
    before = {"createdBefore": pv(outputs["metadata"]["createTime"] - 1), "sortBy": pv("create_time")}
    none = run(provider.invoke(InvokeRequest("modelarts:index:getTrainingJobs", before)))
    assert none.return_value["jobs"].value == ()
    run(provider.delete(DeleteRequest(URN, created.resource_id, created.properties, 0.0)))
    gone = run(provider.read(ReadRequest(URN, created.resource_id, created.properties, checked.inputs)))
    # The service keeps a stopped job: delete ended it, and read shows it stopped.
    assert gone.resource_id == created.resource_id and gone.properties["phase"].value == "Terminated"


class Answered(Exception):
    """How AbortingContext ends a call, as grpc's context does."""


class AbortingContext:
    """The gRPC context a servicer answers an error through: it keeps the status and ends the call."""

    status: Any = None

    async def abort_with_status(self, status: Any) -> None:
        self.status = status
        raise Answered(status)

    async def abort(self, _code: Any, details: str) -> None:
        raise Answered(details)


def test_a_create_whose_job_may_still_run_is_answered_as_a_partial_create(
    emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi.runtime.proto import provider_pb2

    from pulumi_modelarts.frontends.serving import servicer_class
    from pulumi_modelarts.wire.api import ModelArtsAPI

    for key, value in emulator.provider_env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(wait.POLL_SECONDS_ENV, "0.02")

    def deep_answer(self: ModelArtsAPI, job_id: str) -> Any:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    monkeypatch.setattr(ModelArtsAPI, "terminate_job", deep_answer)
    provider = plugin.ModelArtsProvider()
    pending = inputs(metadata={"annotations": {"emulator/stay-pending": "true"}}, waitFor="running")
    checked = run(provider.check(CheckRequest(URN, {}, property_map({**pending, "waitTimeout": 0.3}), b"")))
    request = provider_pb2.CreateRequest(urn=URN, properties=PropertyValue.marshal_map(checked.inputs))
    servicer = servicer_class()([], "0.0.0", provider, engine_address=None)
    context = AbortingContext()
    with pytest.raises(Answered):
        run(servicer.Create(request, context))
    assert context.status is not None  # not a plain error: the engine must record the job
    failed = init_failure(context.status)
    [reason] = failed.reasons
    assert "may still be running" in reason and f"(id {failed.id})" in reason, reason
    assert "terminating it failed (RecursionError: maximum recursion depth exceeded" in reason, reason
    outputs = PropertyValue.unmarshal_map(failed.properties)
    assert to_plain(outputs["metadata"])["id"] == failed.id
    assert outputs["declaredInputs"].is_secret  # the secret outputs stay secret in the state
    assert outputs["phase"].value in ("Creating", "Pending")


def test_a_failed_operation_is_answered_in_its_own_words_without_a_python_stack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under every Pulumi SDK: the newer ones' servicers raise an operation's error again as a plain Exception
    whose text lists the Python stack."""
    from pulumi.runtime.proto import provider_pb2

    from pulumi_modelarts.frontends.serving import servicer_class
    from pulumi_modelarts.job import core
    from pulumi_modelarts.job.errors import ProvisioningError

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise ProvisioningError("training job train-abc: the service refused it (HTTP 400, ModelArts.0001)")

    monkeypatch.setattr(core, "open_client", refused)
    provider = plugin.ModelArtsProvider()
    checked = run(provider.check(CheckRequest(URN, {}, property_map(inputs()), b"")))
    request = provider_pb2.CreateRequest(urn=URN, properties=PropertyValue.marshal_map(checked.inputs))
    servicer = servicer_class()([], "0.0.0", provider, engine_address=None)
    with pytest.raises(Answered) as answered:
        run(servicer.Create(request, AbortingContext()))
    [details] = answered.value.args
    assert details == "training job train-abc: the service refused it (HTTP 400, ModelArts.0001)", details


def test_warm_up_builds_the_validators_and_says_when_done() -> None:
    import threading

    from pulumi_modelarts.frontends.warm_up import warm_up
    from pulumi_modelarts.job.resource_schema import ProviderSettings
    from pulumi_modelarts.wire import models

    ready = threading.Event()
    warm_up(ready)
    assert ready.is_set()
    for model in (models.CreateTrainingJobRequest, ProviderSettings, models.TrainingJob):
        assert model.__pydantic_complete__, model


def test_a_check_never_waits_for_the_warm_up_and_only_a_new_job_starts_it() -> None:
    import threading

    class Unready(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            raise AssertionError("check waited for the warm-up")

    provider = plugin.ModelArtsProvider(warm_up=True)
    assert provider.warm_up is not None
    provider.warm_up.ready = Unready()
    checked = run(provider.check(CheckRequest(URN, {}, property_map(inputs()), b""))).inputs
    assert checked is not None
    assert provider.warm_up.started  # a new job: its create may follow
    unchanged = plugin.ModelArtsProvider(warm_up=True)
    assert unchanged.warm_up is not None
    answer = run(unchanged.check(CheckRequest(URN, checked, property_map(inputs()), b"")))
    assert answer.failures == [] and not unchanged.warm_up.started


def test_the_served_plugin_checks_unchanged_inputs_without_loading_any_model() -> None:
    import subprocess
    import sys

    provider = plugin.ModelArtsProvider()
    checked = run(provider.check(CheckRequest(URN, {}, property_map(inputs()), b""))).inputs
    assert checked is not None
    # In a fresh process with the warm-up on, as main serves it: a no-change preview's check.
    script = """
import asyncio, json, sys
from pulumi.provider.experimental.provider import CheckRequest
from pulumi_modelarts.frontends import plugin
from pulumi_modelarts.frontends.native_values import property_map
urn, olds, news = sys.argv[1], *(property_map(json.loads(a)) for a in sys.argv[2:])
provider = plugin.ModelArtsProvider(warm_up=True)
answer = asyncio.new_event_loop().run_until_complete(provider.check(CheckRequest(urn, olds, news, b"")))
assert answer.failures == [], answer.failures
print("pulumi_modelarts.wire.models" in sys.modules, "pydantic" in sys.modules)
"""
    olds = json.dumps(to_plain(PropertyValue(dict(checked))))
    found = subprocess.run(
        [sys.executable, "-c", script, URN, olds, json.dumps(inputs())],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert found.stdout.split() == ["False", "False"], found.stderr


def test_inputs_and_state_are_read_and_renamed_in_one_walk_as_in_two() -> None:
    # wire_inputs/wire_state rename while converting; the answer is to_wire(plain_map(...))'s, map keys and
    # values not of their type's kind included.
    odd = {
        "algorithm": {"parameters": "not a list", "environments": {"A_B": "x"}, "imageUrl": None},
        "spec": [1.0, {"nodeCount": 2.0}],
        "not_a_property": {"x_y": 1},
        "metadata": {"name": "n", "annotations": {"k_1": "v"}},
    }
    for given in (inputs(), odd):
        values = property_map(given)
        assert wire_inputs(values) == renaming.to_wire(plain_map(values), "TrainingJob:inputs")
        state = property_map(
            {**given, "declaredInputs": given, "tasks": [{"role": "w", "algorithm": {"codeDir": "/c"}}]}
        )
        assert wire_state(state) == renaming.to_wire(plain_map(state), "TrainingJob:outputs")
    wire = wire_inputs(property_map(odd))
    assert wire["algorithm"]["environments"] == {"A_B": "x"} and wire["spec"] == [1, {"nodeCount": 2}]
    assert wire["metadata"]["annotations"] == {"k_1": "v"} and wire["not_a_property"] == {"x_y": 1}


# ---------------------------------------------------------------------------------------------------------
# The plugin leaves once the engine that started it is gone


def _listener() -> socket.socket:
    engine = socket.socket()
    engine.bind(("127.0.0.1", 0))
    engine.listen()
    return engine


class _Watch:
    """wait_until_engine_gone on a thread, fast, with the parent pid read from the end of parents; it counts
    its rounds (a look at the parent each, at the engine's address every second one until a refusal, then
    each). parent_is_engine: what the start finds of the parent (True: it holds the engine's address)."""

    def __init__(self, address: str, parents: list[int], *, parent_is_engine: bool | None = None) -> None:
        self.looks = 0
        self.why: list[str] = []

        def getppid() -> int:
            self.looks += 1
            return parents[-1]

        def watch() -> None:
            self.why.append(
                engine_watch.wait_until_engine_gone(
                    address,
                    100,
                    interval=0.01,
                    address_every=2,
                    getppid=getppid,
                    parent_is_engine=lambda _pid, _address: parent_is_engine,
                )
            )

        self.thread = threading.Thread(target=watch, daemon=True)
        self.thread.start()

    def rounds(self, count: int) -> None:
        """Return once the watch has gone round count more times (so it did not return in them)."""
        target = self.looks + count
        poll(lambda: self.looks, lambda n: n >= target, timeout=5, what=f"{count} rounds", interval=0.01)

    def ends(self, seconds: float) -> str:
        self.thread.join(timeout=seconds)
        assert not self.thread.is_alive()
        return self.why[0]


def test_the_engine_is_gone_once_the_plugins_parent_changes() -> None:
    # The parent holds the engine's address: it is the engine, so the plugin re-parented means it died.
    with _listener() as engine:
        parents = [100]
        watch = _Watch(f"127.0.0.1:{engine.getsockname()[1]}", parents, parent_is_engine=True)
        watch.rounds(20)
        assert watch.thread.is_alive()  # the engine runs: never returns
        parents.append(1)  # reparented: the engine died
        watch.thread.join(timeout=5)
        assert not watch.thread.is_alive()
        assert watch.why == ["its parent, the engine (pid 100), ended"]


def test_the_engine_is_gone_once_its_address_refuses_though_the_parent_lives_on() -> None:
    engine = _listener()
    address = f"127.0.0.1:{engine.getsockname()[1]}"
    watch = _Watch(address, [100])
    watch.rounds(20)
    assert watch.thread.is_alive()
    engine.close()
    watch.thread.join(timeout=10)
    assert not watch.thread.is_alive()
    assert watch.why[0].startswith(f"its address {address} refused ")


def test_a_refusal_while_the_engine_lives_does_not_end_the_watch() -> None:
    # A look may meet the engine's port refusing for a moment (its listener re-bound, a machine under load):
    # only refusals in a row over seconds say the engine is gone.
    engine = _listener()
    port = engine.getsockname()[1]
    watch = _Watch(f"127.0.0.1:{port}", [100])
    watch.rounds(20)
    engine.close()
    watch.rounds(10)  # several looks at the address meet a refusal
    with socket.socket() as back:
        back.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        back.bind(("127.0.0.1", port))
        back.listen()
        watch.rounds(20)
        assert watch.thread.is_alive(), watch.why  # the engine answers again: the plugin stays
    assert "refused" in watch.ends(10)  # and once it refuses for good, it leaves


def test_a_launcher_that_exits_while_the_engine_lives_does_not_end_the_watch() -> None:
    # Started through a launcher (a script that does not exec, a wrapper), the plugin's parent is not the
    # engine: the launcher may exit, re-parenting the plugin, while the engine goes on.
    engine = _listener()
    parents = [100]
    watch = _Watch(f"127.0.0.1:{engine.getsockname()[1]}", parents, parent_is_engine=False)
    watch.rounds(20)
    parents.append(1)  # the launcher is gone
    watch.rounds(40)
    assert watch.thread.is_alive(), watch.why  # the engine still answers
    engine.close()
    assert "refused" in watch.ends(10)


def test_the_plugin_says_why_it_stops_and_which_operations_it_leaves(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its last words reach the user: on stderr (which the engine shows when a plugin ends early) and, with
    # operations under way, on the engine's log at once.
    logged = engine_log(monkeypatch)
    provider = plugin.ModelArtsProvider()
    release = threading.Event()
    loop = asyncio.new_event_loop()
    waiting = threading.Thread(
        target=lambda: loop.run_until_complete(provider._run(release.wait, "create job-0")), daemon=True
    )
    waiting.start()
    try:
        poll(provider.flights.names, bool, timeout=5, what="the create under way")
        provider.last_words("it received SIGTERM")
    finally:
        release.set()
        waiting.join(timeout=5)
        loop.close()
    said = capsys.readouterr().err
    assert said.startswith(
        "modelarts: the provider stops: it received SIGTERM; 1 operation still under way "
    ), said
    assert "(create job-0)" in said and "keeps running" in said and "modelarts-orphans" in said
    assert logged == [("", said.removeprefix("modelarts: ").strip(), True)]
    assert provider.flights.names() == []
    provider.last_words("it received SIGINT (the engine stops its plugins so)")  # nothing under way
    assert (
        capsys.readouterr().err
        == "modelarts: the provider stops: it received SIGINT (the engine stops its plugins so)\n"
    )
    assert len(logged) == 1  # the engine's log hears only of an early end


def test_whether_the_parent_holds_the_engines_address() -> None:
    with _listener() as engine:
        address = f"127.0.0.1:{engine.getsockname()[1]}"
        assert engine_watch.parent_holds_address(os.getpid(), address) is True
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert engine_watch.parent_holds_address(other.pid, address) is False
        finally:
            other.kill()
            other.wait()
    assert engine_watch.parent_holds_address(os.getpid(), address) is None  # nothing listens there now


def test_an_address_that_never_answered_proves_nothing() -> None:
    # As the tests start the plugin by hand ("127.0.0.1:1"): it serves until stopped.
    parents = [100]
    watch = _Watch("127.0.0.1:1", parents)
    watch.rounds(30)
    assert watch.thread.is_alive()
    parents.append(1)  # ends the watch
    watch.thread.join(timeout=5)

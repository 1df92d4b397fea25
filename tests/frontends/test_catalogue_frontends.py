"""The catalogue in both front-ends, in process against the emulator: the invokes (their arguments and results
in each front-end's names), the check of a new job and of a replacement (refusals at the path as written, a
closed catalogue as a warning), and no catalogue call for a job that stays. Through the CLI:
tests/cli/test_catalogue_cli.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pulumi.dynamic import Config
from pulumi.dynamic import ConfigureRequest as DynamicConfigure
from pulumi.provider.experimental.provider import CheckRequest, ConfigureRequest, DiffRequest, InvokeRequest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.frontends import dynamic as dynamic_module
from pulumi_modelarts.frontends import plugin
from pulumi_modelarts.frontends.functions import BY_TOKEN
from pulumi_modelarts.frontends.native_values import property_map, to_plain
from pulumi_modelarts.generated import schema_names
from pulumi_modelarts.job import catalogue

from ..plugin_support import URN, declared_state, engine_log, run
from ..support import emulator_config, minimal_job

Factory = Callable[..., EmulatorProcess]


@pytest.fixture(autouse=True)
def fresh_catalogue(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Each test reads afresh: the process's catalogue is shared by every check in it.
    monkeypatch.setattr(catalogue, "CATALOGUE", catalogue.Catalogue())
    dynamic_module.set_config({})
    yield
    dynamic_module.set_config({})


def native(emu: EmulatorProcess) -> plugin.ModelArtsProvider:
    provider = plugin.ModelArtsProvider()
    run(provider.configure(ConfigureRequest(emulator_config(emu), {}, True, False)))
    return provider


def dynamic(emu: EmulatorProcess) -> dynamic_module.TrainingJobProvider:
    provider = dynamic_module.TrainingJobProvider()
    provider.configure(DynamicConfigure(Config(emulator_config(emu), "project")))
    return provider


def test_every_function_of_the_schema_is_served() -> None:
    assert set(BY_TOKEN) == set(schema_names.FUNCTIONS)


def test_the_native_invokes_answer_in_schema_names(emulator: EmulatorProcess) -> None:
    provider = native(emulator)
    answer = run(provider.invoke(InvokeRequest("modelarts:index:getTrainingJobFlavors", {})))
    flavors = to_plain(answer.return_value["flavors"])
    by_id = {f["flavorId"]: f for f in flavors}
    free = by_id["modelarts.p3.large.public.free"]
    assert free["maxNum"] == 1 and free["flavorType"] == "GPU", free
    assert free["flavorInfo"]["gpu"]["productName"] and free["flavorInfo"]["cpu"]["coreNum"] == 8, free
    gpu = run(
        provider.invoke(
            InvokeRequest("modelarts:index:getTrainingJobFlavors", property_map({"flavorType": "CPU"}))
        )
    )
    assert {f["flavorType"] for f in to_plain(gpu.return_value["flavors"])} == {"CPU"}
    engines = to_plain(
        run(provider.invoke(InvokeRequest("modelarts:index:getTrainingJobEngines", {}))).return_value[
            "engines"
        ]
    )
    pytorch = [e for e in engines if e["engineName"] == "PyTorch"]
    assert pytorch and all(e["engineId"] and e["engineVersion"] for e in pytorch), engines
    assert any(e["imageInfo"]["gpuImageUrl"] for e in pytorch), pytorch
    with pytest.raises(ValueError, match="unknown function modelarts:index:nope"):
        run(provider.invoke(InvokeRequest("modelarts:index:nope", {})))


def test_the_dynamic_lookups_answer_plain_wire_data(
    emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi_modelarts import get_training_job_engines, get_training_job_flavors

    for key, value in emulator.provider_env().items():
        monkeypatch.setenv(key, value)
    flavors = get_training_job_flavors()
    assert {f["flavor_id"] for f in flavors} >= {"modelarts.vm.cpu.8u", "modelarts.kat1.xlarge"}
    ascend = get_training_job_flavors("Ascend")
    assert [f["flavor_type"] for f in ascend] == ["Ascend"] and ascend[0]["flavor_info"]["npu"][
        "unit_num"
    ] == "1"
    engines = get_training_job_engines()
    assert {"engine_id", "engine_name", "engine_version", "image_info"} <= set(engines[0])


def test_a_new_job_the_catalogue_refuses_fails_its_check_in_both_front_ends(
    emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    logged = engine_log(monkeypatch)
    typo = minimal_job(node_count=1.0)
    typo["spec"]["resource"]["flavor_id"] = "modelarts.vm.cpu.8x"
    too_many = minimal_job(node_count=2.0)
    too_many["spec"]["resource"]["flavor_id"] = "modelarts.p3.large.public.free"

    # The dynamic front-end: the path as the program wrote it.
    prov = dynamic(emulator)
    [failure] = prov.check({}, typo).failures
    assert failure.property == "" and failure.reason.startswith(
        "spec.resource.flavor_id: 'modelarts.vm.cpu.8x'"
    ), failure
    assert "did you mean 'modelarts.vm.cpu.8u'" in failure.reason
    [failure] = prov.check({}, too_many).failures
    assert "spec.resource.node_count: is 2, above the 1 node flavor" in failure.reason, failure

    # The native one: schema names.
    provider = native(emulator)
    answer = run(provider.check(CheckRequest(URN, {}, property_map(_schema(typo)), b"")))
    [failure] = answer.failures
    assert failure.reason.startswith("spec.resource.flavorId: 'modelarts.vm.cpu.8x'"), failure
    assert logged == []
    # A job that stays (old inputs) is not looked up again: no call at all.
    emulator.reset_stats()
    stays = run(
        provider.check(CheckRequest(URN, property_map(_schema(typo)), property_map(_schema(typo)), b""))
    )
    assert emulator.stats()["requests"] == 0, stays
    # Reads: one per listing for the whole process, whatever number of jobs.
    emulator.reset_stats()
    for _ in range(3):
        run(provider.check(CheckRequest(URN, {}, property_map(_schema(minimal_job(node_count=1.0))), b"")))
    assert emulator.stats()["requests"] == 0  # the flavors were read above, in this process


def test_a_replacement_is_checked_as_a_create(emulator: EmulatorProcess) -> None:
    old = _schema(minimal_job(node_count=1.0))
    new = _schema(minimal_job(node_count=1.0))
    new["spec"]["resource"]["flavorId"] = "modelarts.vm.cpu.9u"
    provider = native(emulator)
    with pytest.raises(
        ValueError, match=r"spec\.resource\.flavorId: 'modelarts\.vm\.cpu\.9u' is not a flavor"
    ):
        run(provider.diff(DiffRequest(URN, "j", declared_state(old), property_map(new), [])))
    prov = dynamic(emulator)
    olds = {**prov.check({}, minimal_job(node_count=1.0)).inputs, "__provider": "p"}
    wire_new = minimal_job(node_count=1.0)
    wire_new["spec"]["resource"]["flavor_id"] = "modelarts.vm.cpu.9u"
    news = prov.check(olds, wire_new).inputs  # not a create: check leaves it to diff
    with pytest.raises(
        Exception, match=r"spec\.resource\.flavor_id: 'modelarts\.vm\.cpu\.9u' is not a flavor"
    ):
        prov.diff("j", {"declared_inputs": olds, "phase": "Running"}, news)


def test_a_closed_catalogue_is_a_warning_on_the_job(
    emulator_factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed = emulator_factory(catalogue="closed")
    logged = engine_log(monkeypatch)
    typo = minimal_job(node_count=1.0)
    typo["spec"]["resource"]["flavor_id"] = "modelarts.vm.cpu.8x"
    answer = run(native(closed).check(CheckRequest(URN, {}, property_map(_schema(typo)), b"")))
    assert answer.failures == []
    [(urn, line, warning)] = logged
    assert urn == URN and warning and line.startswith("the flavors were not checked against the catalogue"), (
        line
    )
    assert "403" in line, line


def _schema(wire: dict[str, Any]) -> dict[str, Any]:
    """A job body in the schema's names (the few the minimal job uses)."""
    resource = wire["spec"]["resource"]
    engine = wire["algorithm"]["engine"]
    return {
        "algorithm": {"engine": {"imageUrl": engine["image_url"]}, "command": wire["algorithm"]["command"]},
        "spec": {"resource": {"flavorId": resource["flavor_id"], "nodeCount": resource["node_count"]}},
    }

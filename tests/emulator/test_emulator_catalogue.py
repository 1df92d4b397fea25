"""The training catalogue the emulator lists (flavors, engines), with the official SDK's response models as
the oracle: every field it sends is one the SDK parses, and the SDK reads back what was sent.

Also: flavor_type filtering and its refusal, the jobs' flavor details agreeing with the listing, --catalogue
closed (403 on both), signing, the statistics and the request log.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..official_sdk import FREE_FLAVOR_EXAMPLE, sdk_client, sdk_module

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException  # noqa: E402
from huaweicloudsdkmodelarts.v1 import model as m  # noqa: E402

Factory = Callable[..., EmulatorProcess]


def _model_of(type_name: str) -> Any:
    # The SDK's openapi_types name nested models ("FlavorInfoResponse", "list[ListEnginesItems]").
    for wrapper in ("list[", "dict(str, "):
        type_name = type_name.removeprefix(wrapper)
    return getattr(m, type_name.rstrip("])"), None)


def assert_sdk_shape(raw: Any, model: Any, path: str = "") -> None:
    """Every key of raw is a field of the SDK's model (recursively), with the JSON type the model declares."""
    assert isinstance(raw, dict), f"{path or 'answer'}: {raw!r} is not an object"
    fields = {wire: name for name, wire in model.attribute_map.items()}
    for key, value in raw.items():
        assert key in fields, f"{path}{key} is not a field of the SDK's {model.__name__}"
        declared = model.openapi_types[fields[key]]
        nested = _model_of(declared)
        here = f"{path}{key}."
        if declared.startswith("list["):
            assert isinstance(value, list), f"{path}{key} must be a list"
            for item in value:
                if nested is not None:
                    assert_sdk_shape(item, nested, here)
        elif nested is not None:
            assert_sdk_shape(value, nested, here)
        else:
            kinds = {"str": str, "int": int, "bool": bool, "dict(str, str)": dict}
            assert isinstance(value, kinds[declared]), f"{path}{key}: {value!r} is not {declared}"
            assert declared == "bool" or not isinstance(value, bool), f"{path}{key}: {value!r} is a bool"


def raw_get(emu: EmulatorProcess, suffix: str, **params: str) -> httpx.Response:
    return httpx.get(emu.api_url(suffix), params=params, auth=emu.auth(), timeout=10)


def refused(call: Callable[[], Any]) -> ClientRequestException:
    with pytest.raises(ClientRequestException) as caught:
        call()
    assert caught.value.request_id
    return caught.value


def show_flavors(client: Any, flavor_type: str | None = None) -> Any:
    return client.show_training_job_flavors(m.ShowTrainingJobFlavorsRequest(flavor_type=flavor_type))


# -- flavors ----------------------------------------------------------------------------------------------


def test_the_flavor_listing_is_the_sdks_shape_and_reads_back(emulator: EmulatorProcess) -> None:
    raw = raw_get(emulator, "/training-job-flavors")
    assert raw.status_code == 200 and raw.headers["X-Request-Id"]
    body = raw.json()
    assert_sdk_shape(body, m.ShowTrainingJobFlavorsResponse)
    assert body["total_count"] == len(body["flavors"]) >= 5

    answer = show_flavors(sdk_client(emulator))
    assert answer.total_count == body["total_count"]
    assert [f.flavor_id for f in answer.flavors] == [f["flavor_id"] for f in body["flavors"]]
    assert len({f.flavor_id for f in answer.flavors}) == len(answer.flavors)
    for flavor in answer.flavors:
        assert flavor.flavor_name and flavor.billing.code and flavor.billing.unit_num == 1
        # The SDK (and the API page) carry max_num both on the item and in flavor_info: one value.
        assert flavor.max_num >= 1 and flavor.flavor_info.max_num == flavor.max_num
        info = flavor.flavor_info
        assert info.cpu.core_num > 0 and info.memory.size > 0 and info.disk.size > 0
        if flavor.flavor_type == "CPU":
            assert flavor.max_num == 1 and info.gpu is None and info.npu is None
        if flavor.flavor_type == "GPU":
            assert info.gpu.unit_num >= 1 and info.gpu.product_name
        if flavor.flavor_type == "Ascend":
            assert int(info.npu.unit_num) >= 1 and info.cpu.arch == "arm"
        multi = flavor.attributes["is_multi_nodes_supported"]
        assert multi == ("true" if flavor.max_num > 1 else "false")
    by_id = {f.flavor_id: f for f in answer.flavors}
    # The create page's free flavor, the seeds' P100 and the CPU ones the project's examples use.
    for known in ("modelarts.p3.large.public.free", "modelarts.vm.p100.large.eco", "modelarts.vm.cpu.2u"):
        assert known in by_id
    assert by_id["modelarts.p3.large.public.free"].max_num == 1
    assert any(f.max_num > 1 for f in answer.flavors if f.flavor_type == "GPU")


def test_flavor_type_filters_and_an_unknown_type_is_refused(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    everything = {f.flavor_id for f in show_flavors(client).flavors}
    seen: set[str] = set()
    for flavor_type in ("CPU", "GPU", "Ascend"):
        answer = show_flavors(client, flavor_type)
        assert answer.flavors, flavor_type
        assert answer.total_count == len(answer.flavors)
        assert {f.flavor_type for f in answer.flavors} == {flavor_type}
        seen |= {f.flavor_id for f in answer.flavors}
    assert seen == everything

    for wrong in ("TPU", "gpu"):
        error = refused(partial(show_flavors, client, wrong))
        assert (error.status_code, error.error_code) == (400, "ModelArts.2763")
        assert "flavor_type" in error.error_msg
    # Given but empty is a value too, not "all" (the SDK never sends one; a hand-made request might).
    empty = raw_get(emulator, "/training-job-flavors", flavor_type="")
    assert empty.status_code == 400 and empty.json()["error_code"] == "ModelArts.2763"


def test_a_job_on_a_listed_flavor_carries_the_listings_details(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    listed = {f.flavor_id: f for f in show_flavors(client).flavors}
    for flavor_id in ("modelarts.vm.cpu.8u", "modelarts.vm.p100.large.eco"):
        body = copy.deepcopy(FREE_FLAVOR_EXAMPLE)
        body["metadata"]["name"] = flavor_id.replace(".", "-")
        body["spec"]["resource"]["flavor_id"] = flavor_id
        job = client.create_training_job(m.CreateTrainingJobRequest(body=body))
        resource, flavor = job.spec.resource, listed[flavor_id]
        assert resource.flavor_name == flavor.flavor_name
        assert resource.flavor_detail.flavor_type == flavor.flavor_type
        assert resource.flavor_detail.billing.code == flavor.billing.code
        assert resource.flavor_detail.flavor_info.cpu.core_num == flavor.flavor_info.cpu.core_num
        assert resource.flavor_detail.flavor_info.memory.size == flavor.flavor_info.memory.size


# -- engines ----------------------------------------------------------------------------------------------


def test_the_engine_listing_is_the_sdks_shape_and_reads_back(emulator: EmulatorProcess) -> None:
    raw = raw_get(emulator, "/training-job-engines")
    assert raw.status_code == 200
    body = raw.json()
    assert_sdk_shape(body, m.ShowTrainingJobEnginesResponse)
    assert body["total"] == len(body["items"]) >= 3

    answer = sdk_client(emulator).show_training_job_engines(m.ShowTrainingJobEnginesRequest())
    assert answer.total == body["total"]
    assert len({e.engine_id for e in answer.items}) == len(answer.items)
    assert {"PyTorch", "TensorFlow"} <= {e.engine_name for e in answer.items}
    for engine in answer.items:
        assert engine.engine_version and engine.run_user.isdigit()
        assert isinstance(engine.v1_compatible, bool)
        assert engine.image_info.image_version
    # The engine the project's tests and examples name (engine_name with engine_version) is listed.
    pairs = {(e.engine_name, e.engine_version) for e in answer.items}
    assert ("PyTorch", "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64") in pairs
    # A v2 engine's version is its id, as the API page's example shows (caffe-1.0.0-python2.7 for both).
    assert all(e.engine_version == e.engine_id for e in answer.items if not e.v1_compatible)


# -- the closed catalogue, signing, statistics, the request log -------------------------------------------


def test_a_closed_catalogue_answers_403_on_both_and_the_jobs_still_work(emulator_factory: Factory) -> None:
    emu = emulator_factory(catalogue="closed")
    client = sdk_client(emu)
    calls = [
        lambda: show_flavors(client),
        lambda: show_flavors(client, "GPU"),
        lambda: client.show_training_job_engines(m.ShowTrainingJobEnginesRequest()),
    ]
    for call in calls:
        error = refused(call)
        assert (error.status_code, error.error_code) == (403, "ModelArts.0203")
        assert "not authorized" in error.error_msg
    raw = raw_get(emu, "/training-job-flavors", flavor_type="TPU")
    # Permission is checked before the query: a closed catalogue says nothing about flavor types.
    assert raw.status_code == 403 and set(raw.json()) == {"error_code", "error_msg", "error_solution"}
    job = client.create_training_job(m.CreateTrainingJobRequest(body=copy.deepcopy(FREE_FLAVOR_EXAMPLE)))
    assert job.status_code == 201
    assert emu.stats()["by_operation"] == {"flavors": 3, "engines": 1, "create": 1}


def test_the_listings_are_signed_counted_and_logged(emulator_factory: Factory) -> None:
    emu = emulator_factory(log_level="INFO")
    unsigned = httpx.get(emu.api_url("/training-job-flavors"), timeout=10)
    assert unsigned.status_code == 401 and unsigned.json()["error_code"] == "APIG.0301"
    unsigned = httpx.get(emu.api_url("/training-job-engines"), timeout=10)
    assert unsigned.status_code == 401
    other_project = httpx.get(f"{emu.url}/v2/{'f' * 32}/training-job-engines", auth=emu.auth(), timeout=10)
    assert other_project.status_code == 403 and other_project.json()["error_code"] == "ModelArts.0105"
    assert raw_get(emu, "/training-job-flavors", flavor_type="CPU").status_code == 200
    assert raw_get(emu, "/training-job-flavors", flavor_type="TPU").status_code == 400
    assert raw_get(emu, "/training-job-engines").status_code == 200

    stats = emu.stats()
    assert stats["by_operation"] == {"flavors": 3, "engines": 3}
    assert stats["by_status"] == {"401": 2, "403": 1, "200": 2, "400": 1}
    log = emu.output()
    assert f"GET /v2/{emu.project_id}/training-job-flavors -> 200" in log
    assert f"GET /v2/{emu.project_id}/training-job-flavors -> 400" in log
    assert f"GET /v2/{emu.project_id}/training-job-engines -> 200" in log

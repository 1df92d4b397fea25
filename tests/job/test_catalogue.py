"""A planned job checked against the account's catalogue (job/catalogue.py): what is refused and at which
path, what is never checked (dedicated pools, custom images, values not known yet), one read per account and
listing, and a listing that cannot be read (one warning, nothing refused). The listings come from a real
emulator."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.job.catalogue import Catalogue, check_planned, problems, wanted
from pulumi_modelarts.job.checking import Failure
from pulumi_modelarts.job.normalising import NOT_KNOWN
from pulumi_modelarts.wire.models import EngineListing, FlavorListing, OfferedEngine, OfferedFlavor

from ..support import ProgressLines, emulator_api, emulator_config

Factory = Callable[..., EmulatorProcess]

PYTORCH_18 = "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"


def inputs(
    flavor: Any = "modelarts.vm.cpu.8u",
    nodes: Any = 1,
    engine: dict[str, Any] | None = None,
    **resource: Any,
) -> dict[str, Any]:
    return {
        "metadata": {"name": "job-1"},
        "algorithm": {"engine": engine or {"image_url": "org/img:1"}, "command": "python train.py"},
        "spec": {"resource": {**({"flavor_id": flavor} if flavor else {}), "node_count": nodes, **resource}},
    }


def listings(emu: EmulatorProcess) -> tuple[list[OfferedFlavor], list[OfferedEngine]]:
    flavors = httpx.get(emu.api_url("/training-job-flavors"), auth=emu.auth(), timeout=10).json()
    engines = httpx.get(emu.api_url("/training-job-engines"), auth=emu.auth(), timeout=10).json()
    return FlavorListing.model_validate(flavors).flavors, EngineListing.model_validate(engines).items


def test_what_the_catalogue_refuses_is_named_at_its_path(emulator: EmulatorProcess) -> None:
    flavors, engines = listings(emulator)
    assert problems(inputs(), flavors, engines) == []

    [typo] = problems(inputs("modelarts.vm.cpu.8x"), flavors, engines)
    assert typo.path == "spec.resource.flavor_id"
    assert "'modelarts.vm.cpu.8x' is not a flavor this account is offered" in typo.reason
    assert "did you mean 'modelarts.vm.cpu.8u'" in typo.reason, typo.reason

    # Nothing close: the offered flavors are listed instead.
    [far] = problems(inputs("zzz"), flavors, engines)
    assert "offered: " in far.reason and "modelarts.vm.cpu.2u" in far.reason, far.reason

    [many] = problems(inputs("modelarts.p3.large.public.free", nodes=2), flavors, engines)
    assert many == Failure(
        "spec.resource.node_count",
        "is 2, above the 1 node flavor 'modelarts.p3.large.public.free' takes (its max_num)",
    )
    assert problems(inputs("modelarts.vm.p100.large.eco", nodes=8), flavors, engines) == []
    [nine] = problems(inputs("modelarts.vm.p100.large.eco", nodes=9), flavors, engines)
    assert nine.reason.startswith("is 9, above the 8 nodes flavor"), nine.reason

    pytorch = {"engine_name": "PyTorch", "engine_version": PYTORCH_18}
    [name] = problems(inputs(engine={**pytorch, "engine_name": "PyTorh"}), flavors, engines)
    assert name.path == "algorithm.engine.engine_name" and "did you mean 'PyTorch'" in name.reason, name
    [version] = problems(inputs(engine={"engine_name": "PyTorch", "engine_version": "1.8"}), flavors, engines)
    assert version.path == "algorithm.engine.engine_version", version
    assert "is not a version of engine 'PyTorch' this account lists" in version.reason, version
    # A version of another engine is not one of this engine's.
    tf = "tensorflow_2.1.0-cuda_10.1-py_3.7-ubuntu_18.04-x86_64"
    [other] = problems(inputs(engine={"engine_name": "PyTorch", "engine_version": tf}), flavors, engines)
    assert other.path == "algorithm.engine.engine_version", other
    assert problems(inputs(engine=pytorch), flavors, engines) == []
    [engine_id] = problems(inputs(engine={"engine_id": PYTORCH_18 + "x"}), flavors, engines)
    assert engine_id.path == "algorithm.engine.engine_id", engine_id
    assert f"did you mean '{PYTORCH_18}'" in engine_id.reason, engine_id
    assert problems(inputs(engine={"engine_id": PYTORCH_18}), flavors, engines) == []

    # A heterogeneous job's tasks are checked at their own paths.
    tasks = {
        **inputs(),
        "tasks": [{"task_resource": {"flavor_id": "nope"}, "algorithm": {"engine": {"engine_id": "x"}}}],
    }
    assert [p.path for p in problems(tasks, flavors, engines)] == [
        "tasks[0].task_resource.flavor_id",
        "tasks[0].algorithm.engine.engine_id",
    ]


def test_what_is_never_checked(emulator: EmulatorProcess) -> None:
    flavors, engines = listings(emulator)
    # A dedicated pool's flavors are the pool's; a custom image names no engine; an unknown value waits.
    for not_checked in (
        inputs("modelarts.pool.visual.xlarge", pool_id="pool-1"),
        inputs("anything", nodes=64, pool_group_id="group-1"),
        inputs(NOT_KNOWN),
        inputs("modelarts.p3.large.public.free", nodes=NOT_KNOWN),
        inputs(engine={"image_url": "org/img:1", "engine_name": "Custom"}),
        inputs(engine={"engine_name": NOT_KNOWN, "engine_version": NOT_KNOWN}),
        inputs(flavor=None, pool_id="pool-1"),
    ):
        assert problems(not_checked, flavors, engines) == [], not_checked
    # A listing not read checks nothing.
    assert problems(inputs("nope", engine={"engine_id": "nope"}), None, None) == []
    # What a check needs to read: nothing for a custom image in a pool.
    assert wanted(inputs("x", pool_id="p")) == frozenset()
    assert wanted(inputs()) == {"flavors"}
    assert wanted(inputs(engine={"engine_id": "e"}, pool_id="p")) == {"engines"}


def test_one_read_per_account_and_listing_whoever_asks(emulator: EmulatorProcess) -> None:
    emulator.reset_stats()
    shared = Catalogue()
    results: list[list[Failure]] = []
    start = threading.Barrier(6)

    def check(flavor: str) -> None:
        start.wait()
        planned = inputs(flavor, engine={"engine_id": PYTORCH_18})
        results.append(shared.check(planned, lambda: emulator_api(emulator)).failures)

    threads = [threading.Thread(target=check, args=(f,)) for f in ["modelarts.vm.cpu.8u"] * 5 + ["typo"]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(r) for r in results) == [0, 0, 0, 0, 0, 1]
    assert emulator.stats()["by_operation"] == {"flavors": 1, "engines": 1}
    # A custom image in a dedicated pool: no call at all, not even a client opened.
    opened: list[int] = []
    verdict = shared.check(inputs(pool_id="p"), lambda: opened.append(1) or emulator_api(emulator))
    assert verdict.failures == []
    assert opened == []


def test_a_closed_catalogue_is_one_warning_and_refuses_nothing(emulator_factory: Factory) -> None:
    closed = emulator_factory(catalogue="closed")
    shared = Catalogue()
    first = shared.check(inputs("nope", engine={"engine_id": "nope"}), lambda: emulator_api(closed))
    assert first.failures == []
    assert len(first.skipped) == 2, first.skipped
    assert all("were not checked against the catalogue" in s and "403" in s for s in first.skipped), first
    again = shared.check(inputs("nope"), lambda: emulator_api(closed))
    assert again.failures == [] and again.skipped == []  # said once
    assert closed.stats()["by_operation"] == {"flavors": 1, "engines": 1}


def test_check_planned_reads_the_account_of_the_config(emulator: EmulatorProcess) -> None:
    config = emulator_config(emulator)
    verdict = check_planned(inputs("modelarts.vm.cpu.8x"), config, ProgressLines())
    assert [f.path for f in verdict.failures] == ["spec.resource.flavor_id"]
    # An account the settings cannot reach: skipped, said, nothing refused.
    broken = {**config, "modelarts:endpoint": "http://127.0.0.1:9"}
    dead = check_planned(inputs("modelarts.vm.cpu.8x"), broken, ProgressLines())
    assert dead.failures == [] and "not checked against the catalogue" in dead.skipped[0], dead

"""TrainingJobProvider methods called directly against a real emulator process."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi.dynamic import Config, ConfigureRequest
from pulumi.output import Unknown

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts import provider as provider_module
from pulumi_modelarts import wait as wait_module
from pulumi_modelarts.errors import JobNotFoundError, SettingsError
from pulumi_modelarts.progress import StderrProgress
from pulumi_modelarts.provider import ProvisioningError, TrainingJobProvider

from .check_failures import path_and_reason
from .support import minimal_job, phase_of, wait_phase

ENV_NAMES = (
    "HW_REGION_NAME",
    "HW_PROJECT_ID",
    "HW_MODELARTS_ENDPOINT",
    "HW_ACCESS_KEY",
    "HW_SECRET_KEY",
    "HW_SECURITY_TOKEN",
    "HW_AUTH_TOKEN",
    "HUAWEICLOUD_SDK_AK",
    "HUAWEICLOUD_SDK_SK",
    "HUAWEICLOUD_SDK_SECURITY_TOKEN",
    "HUAWEICLOUD_SDK_PROJECT_ID",
)


@pytest.fixture(autouse=True)
def clean_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(wait_module.POLL_SECONDS_ENV, "0.02")
    provider_module.set_config({})
    yield
    provider_module.set_config({})


@pytest.fixture
def emu(emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch) -> EmulatorProcess:
    """The emulator, with the provider pointed at it through the environment."""
    monkeypatch.setenv("HW_MODELARTS_ENDPOINT", emulator.url)
    monkeypatch.setenv("HW_ACCESS_KEY", emulator.access_key)
    monkeypatch.setenv("HW_SECRET_KEY", emulator.secret_key)
    monkeypatch.setenv("HW_PROJECT_ID", emulator.project_id)
    return emulator


@pytest.fixture
def prov() -> TrainingJobProvider:
    return TrainingJobProvider()


def job_inputs(**overrides: Any) -> dict[str, Any]:
    """Inputs as the engine hands them to check: plain values, numbers as floats."""
    base = minimal_job(node_count=1.0, metadata={"description": "nightly"})
    base["algorithm"].update(
        parameters=[{"name": "lr", "value": "0.1"}],
        inputs=[{"name": "data", "remote": {"obs": {"obs_url": "/bucket/data/"}}}],
        outputs=[{"name": "model", "remote": {"obs": {"obs_url": "/bucket/model/"}}}],
        environments={"API_TOKEN": "s3cr3t-env-value"},
    )
    return {**base, "name_prefix": "train", "__provider": "serialized-provider", **overrides}


def annotated(annotations: dict[str, str], **overrides: Any) -> dict[str, Any]:
    return job_inputs(metadata={"description": "nightly", "annotations": annotations}, **overrides)


def checked(
    prov: TrainingJobProvider, news: dict[str, Any], olds: dict[str, Any] | None = None
) -> dict[str, Any]:
    result = prov.check(olds or {}, news)
    assert result.failures == [], [(f.property, f.reason) for f in result.failures]
    inputs = dict(result.inputs)
    inputs["__provider"] = news.get("__provider", "serialized-provider")
    return inputs


def api(emu: EmulatorProcess) -> httpx.Client:
    return httpx.Client(base_url=emu.api_url(), auth=emu.auth(), timeout=10)


def live(emu: EmulatorProcess, job_id: str) -> dict[str, Any]:
    with api(emu) as client:
        response = client.get(f"/training-jobs/{job_id}")
        response.raise_for_status()
        return dict(response.json())


# ------------------------------------------------------------------------------------------------ check


def failures_of(prov: TrainingJobProvider, news: dict[str, Any]) -> dict[str, str]:
    return dict(path_and_reason(f) for f in prov.check({}, news).failures)


def test_check_reports_problems_with_paths(prov: TrainingJobProvider) -> None:
    news = job_inputs(
        spec={"resource": {"flavor_id": "f", "node_count": 0.0}},
        wait_for="started",
        wait_timeout="10 fortnights",
        replace_when_failed="yes",
        bogus=1,
    )
    news["algorithm"]["inputs"] = [{"name": "data"}]
    found = failures_of(prov, news)
    assert found["spec.resource.node_count"] == "must be at least 1"
    assert found["algorithm.inputs[0].remote"] == "is required"
    assert "must be one of" in found["wait_for"]
    assert "not a duration" in found["wait_timeout"]
    assert found["replace_when_failed"] == "must be true or false"
    assert "unknown property" in found["bogus"]


def test_check_failures_are_shaped_for_the_engine(prov: TrainingJobProvider) -> None:
    # The engine looks a failure's property up as a top-level input (a nested path prints "{<nil>}"), so
    # only top-level keys keep the property form; a nested path leads the reason of a resource failure.
    news = job_inputs(spec={"resource": {"flavor_id": "f", "node_count": 0}}, wait_for="started")
    failures = {(f.property, f.reason) for f in prov.check({}, news).failures}
    assert ("", "spec.resource.node_count: must be at least 1") in failures
    assert any(prop == "wait_for" and reason.startswith("must be one of") for prop, reason in failures)


def test_check_bad_names_and_timeouts(prov: TrainingJobProvider) -> None:
    found = failures_of(prov, job_inputs(metadata={"name": "bad name!"}, wait_timeout=0.0))
    assert "letters, digits" in found["metadata.name"]
    assert found["wait_timeout"].startswith("must be positive")
    assert "metadata.name" in failures_of(prov, job_inputs(metadata={"name": "x" * 65}))


def test_check_normalises_and_auto_names(prov: TrainingJobProvider) -> None:
    result = prov.check({}, job_inputs())
    assert result.failures == []
    inputs = result.inputs
    assert inputs["kind"] == "job"
    assert "__provider" not in inputs
    assert inputs["spec"]["resource"]["node_count"] == 1
    name = inputs["metadata"]["name"]
    assert re.fullmatch(r"train-[a-z0-9]{6}", name)
    assert inputs["metadata"]["description"] == "nightly"
    # The next check (olds = previous inputs) keeps the name, even with a new prefix.
    assert prov.check(inputs, job_inputs()).inputs["metadata"]["name"] == name
    assert prov.check(inputs, job_inputs(name_prefix="renamed")).inputs["metadata"]["name"] == name
    # Auto-names are deterministic: the same declaration gets the same name (a re-run after a killed
    # `pulumi up` meets the job it started); another stack, other inputs or triggers get another one.
    again = {prov.check({}, job_inputs()).inputs["metadata"]["name"] for _ in range(5)}
    assert again == {name}
    others = {
        prov.check({}, job_inputs(**extra)).inputs["metadata"]["name"]
        for extra in ({"name_scope": "proj/dev"}, {"name_scope": "proj/prod"}, {"triggers": [1]})
    }
    assert name not in others and len(others) == 3
    # An explicit name wins.
    assert prov.check(inputs, job_inputs(metadata={"name": "mine"})).inputs["metadata"]["name"] == "mine"


def test_check_tolerates_unknowns_and_still_validates_the_rest(prov: TrainingJobProvider) -> None:
    news = job_inputs(
        spec={"resource": {"flavor_id": Unknown(), "node_count": 1.0}},
        wait_for=Unknown(),
    )
    news["algorithm"]["engine"] = {"image_url": Unknown()}
    result = prov.check({}, news)
    assert result.failures == []
    assert isinstance(result.inputs["spec"]["resource"]["flavor_id"], Unknown)

    news["algorithm"]["outputs"] = [{"name": "model"}]  # missing remote: still reported
    assert [path_and_reason(f)[0] for f in prov.check({}, news).failures] == ["algorithm.outputs[0].remote"]

    whole = prov.check({}, job_inputs(algorithm=Unknown(), spec=Unknown(), metadata=Unknown()))
    assert whole.failures == []


json_leaf = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=5), st.just(Unknown())
)
junk = st.recursive(
    json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(
            st.sampled_from(["name", "metadata", "engine", "remote", "obs", "x", "resource", "node_count"]),
            children,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(
        st.sampled_from(
            ["kind", "metadata", "algorithm", "spec", "tasks", "wait_for", "wait_timeout", "zzz"]
        ),
        junk,
        max_size=6,
    )
)
def test_check_never_raises_on_junk(news: dict[str, Any]) -> None:
    result = TrainingJobProvider().check({}, {**news, "__provider": "p"})
    assert isinstance(result.inputs, dict)
    for failure in result.failures:
        assert isinstance(failure.property, str) and failure.reason


# ------------------------------------------------------------------------------------------------ diff


def test_diff_update_replace_none(prov: TrainingJobProvider) -> None:
    inputs = checked(prov, job_inputs())
    olds = {"declared_inputs": {k: v for k, v in inputs.items() if k != "__provider"}, "phase": "Running"}

    same = prov.diff("id", olds, checked(prov, job_inputs(), inputs))
    assert same.changes is False and same.replaces == []

    desc = job_inputs(metadata={"description": "weekly"})
    result = prov.diff("id", olds, checked(prov, desc, inputs))
    assert result.changes is True and result.replaces == []

    spec = job_inputs(spec={"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1.0}})
    result = prov.diff("id", olds, checked(prov, spec, inputs))
    assert result.replaces == ["spec"]
    assert result.delete_before_replace is True

    result = prov.diff("id", olds, checked(prov, job_inputs(triggers=["v2"]), inputs))
    assert result.replaces == ["triggers"]

    result = prov.diff("id", olds, checked(prov, job_inputs(wait_for="running"), inputs))
    assert result.changes is True and result.replaces == []

    unknown_spec = checked(prov, job_inputs(spec={"resource": {"flavor_id": Unknown()}}), inputs)
    assert prov.diff("id", olds, unknown_spec).replaces == ["spec"]


def test_diff_replace_when_failed(prov: TrainingJobProvider) -> None:
    inputs = checked(prov, job_inputs(replace_when_failed=True))
    declared = {k: v for k, v in inputs.items() if k != "__provider"}
    failed = prov.diff("id", {"declared_inputs": declared, "phase": "Failed"}, inputs)
    assert failed.replaces == ["status"]
    running = prov.diff("id", {"declared_inputs": declared, "phase": "Running"}, inputs)
    assert running.changes is False


# ------------------------------------------------------------------------------------------------ create


@pytest.mark.parametrize(
    ("wait_for", "phases"),
    [
        ("none", {"Creating", "Pending", "Running", "Completed"}),
        ("pending", {"Pending", "Running", "Completed"}),
        ("running", {"Running", "Completed"}),
        ("completed", {"Completed"}),
    ],
)
def test_create_waits_as_asked(
    prov: TrainingJobProvider, emu: EmulatorProcess, wait_for: str, phases: set[str]
) -> None:
    inputs = checked(prov, job_inputs(wait_for=wait_for))
    result = prov.create(inputs)
    outs = result.outs
    assert outs is not None
    assert result.id and outs["metadata"]["id"] == result.id
    assert outs["phase"] in phases
    assert outs["status"]["phase"] == outs["phase"]
    assert outs["metadata"]["name"] == inputs["metadata"]["name"]
    assert outs["declared_inputs"]["metadata"]["name"] == inputs["metadata"]["name"]
    assert "__provider" not in outs["declared_inputs"]
    assert outs["kind"] == "job"
    assert outs["spec"]["resource"]["flavor_id"] == "modelarts.vm.cpu.2u"
    json.dumps(outs)  # JSON-friendly
    if wait_for == "completed":
        assert live(emu, result.id)["status"]["phase"] == "Completed"


def test_create_keeps_environments_out_of_non_secret_outputs(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    outs = prov.create(checked(prov, job_inputs(wait_for="none"))).outs
    assert outs is not None
    assert outs["environments"] == {"API_TOKEN": "s3cr3t-env-value"}
    secret_outputs = {"declared_inputs", "environments", "endpoints"}  # additional_secret_outputs
    public = {k: v for k, v in outs.items() if k not in secret_outputs}
    assert "s3cr3t-env-value" not in json.dumps(public)
    assert "environments" not in outs["algorithm"]
    assert outs["algorithm"]["command"] == "python train.py"


def test_create_failure_during_wait_reports_and_leaves_nothing_running(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    news = annotated(
        {
            "emulator/fail-after-seconds": "0.1",
            "emulator/running-seconds": "5",
            "emulator/exit-code": "137",
            "emulator/failure-message": "CUDA out of memory",
        },
        wait_for="completed",
    )
    inputs = checked(prov, news)
    with pytest.raises(ProvisioningError) as info:
        prov.create(inputs)
    text = str(info.value)
    name = inputs["metadata"]["name"]
    assert f"training job {name} (id " in text
    assert "ended Failed" in text
    assert "phase Failed" in text
    assert "exit code 137" in text
    assert "CUDA out of memory" in text
    assert "nothing is left running" in text
    with api(emu) as client:
        jobs = client.post("/training-job-searches", json={"filters": []}).json()["items"]
    mine = [j for j in jobs if j["metadata"]["name"] == name]
    assert len(mine) == 1 and mine[0]["status"]["phase"] == "Failed"


def test_create_wait_timeout_terminates_the_job(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    inputs = checked(prov, annotated({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=1.0))
    with pytest.raises(ProvisioningError) as info:
        prov.create(inputs)
    text = str(info.value)
    assert "did not reach running within" in text
    assert "still Pending" in text
    assert "the job was terminated" in text
    job_id = re.search(r"\(id ([^)]+)\)", text)
    assert job_id is not None
    stopped = job_id.group(1)
    assert phase_of(wait_phase(lambda: live(emu, stopped), "Terminated", timeout=10.0)) == "Terminated"


# ------------------------------------------------------------------------------------------------ read


def test_read_after_out_of_band_terminate_shows_it_and_diff_stays_empty(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    inputs = checked(prov, annotated({"emulator/running-seconds": "30"}, wait_for="running"))
    created = prov.create(inputs)
    with api(emu) as client:
        client.post(
            f"/training-jobs/{created.id}/actions", json={"action_type": "terminate"}
        ).raise_for_status()
    assert phase_of(wait_phase(lambda: live(emu, created.id), "Terminated", timeout=10.0)) == "Terminated"
    read = prov.read(created.id, {**(created.outs or {}), "__provider": "p"})
    assert read.id == created.id
    assert read.outs is not None
    assert read.outs["phase"] == "Terminated"
    assert read.outs["declared_inputs"] == (created.outs or {})["declared_inputs"]
    again = checked(prov, annotated({"emulator/running-seconds": "30"}, wait_for="running"), inputs)
    diff = prov.diff(created.id, read.outs, again)
    assert diff.changes is False and diff.replaces == []


def test_read_of_vanished_job_returns_empty_id(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    created = prov.create(checked(prov, job_inputs(wait_for="none")))
    with api(emu) as client:
        client.delete(f"/training-jobs/{created.id}").raise_for_status()
    read = prov.read(created.id, dict(created.outs or {}))
    assert read.id == ""
    assert read.outs == {}


def test_read_without_state_for_get(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    created = prov.create(checked(prov, job_inputs(wait_for="none")))
    read = prov.read(created.id, {"__provider": "p"})
    assert read.id == created.id
    assert read.outs is not None
    assert "declared_inputs" not in read.outs
    assert read.outs["metadata"]["name"] == (created.outs or {})["metadata"]["name"]
    assert read.outs["environments"] == {"API_TOKEN": "s3cr3t-env-value"}


# ------------------------------------------------------------------------------------------------ update


def test_update_description_uses_put_and_keeps_the_job(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    inputs = checked(prov, job_inputs(wait_for="none"))
    created = prov.create(inputs)
    olds = dict(created.outs or {})
    news = checked(prov, job_inputs(metadata={"description": "weekly"}, wait_for="none"), inputs)
    emu.reset_stats()
    result = prov.update(created.id, olds, news)
    stats = emu.stats()["by_operation"]
    assert stats.get("update") == 1
    assert "create" not in stats
    outs = result.outs
    assert outs is not None
    assert outs["metadata"]["id"] == created.id
    assert outs["metadata"]["description"] == "weekly"
    assert outs["declared_inputs"]["metadata"]["description"] == "weekly"
    assert live(emu, created.id)["metadata"]["description"] == "weekly"
    # Provider settings alone: no call that changes the job, outputs kept whole.
    emu.reset_stats()
    settings_only = checked(prov, job_inputs(metadata={"description": "weekly"}, wait_for="running"), news)
    outs2 = prov.update(created.id, outs, settings_only).outs
    assert outs2 is not None
    assert set(emu.stats()["by_operation"]) == {"get"}
    assert outs2["declared_inputs"]["wait_for"] == "running"
    assert set(outs2) == set(outs)


# ------------------------------------------------------------------------------------------------ delete


def test_delete_running_job_terminates_it(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    created = prov.create(checked(prov, annotated({"emulator/running-seconds": "30"}, wait_for="running")))
    prov.delete(created.id, dict(created.outs or {}))
    assert live(emu, created.id)["status"]["phase"] == "Terminated"


def test_get_of_a_job_that_does_not_exist_is_an_error_naming_the_id(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    # What TrainingJob.get sends: the registered properties, every output unset. A refresh sends the stored
    # outputs and a vanished job is dropped quietly (test_read_of_vanished_job_returns_empty_id).
    missing = "00000000-0000-0000-0000-000000000000"
    registered = {"__provider": "p", "phase": None, "metadata": None, "status": None}
    with pytest.raises(JobNotFoundError) as info:
        prov.read(missing, registered)
    assert str(info.value).startswith(f"training job {missing} does not exist, so it cannot be read")
    assert "TrainingJob.get" in str(info.value)


def test_delete_completed_and_vanished_jobs_quietly(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    done = prov.create(checked(prov, job_inputs(wait_for="completed")))
    emu.reset_stats()
    prov.delete(done.id, dict(done.outs or {}))
    assert "terminate" not in emu.stats()["by_operation"]
    assert live(emu, done.id)["status"]["phase"] == "Completed"

    gone = prov.create(checked(prov, job_inputs(wait_for="none")))
    with api(emu) as client:
        client.delete(f"/training-jobs/{gone.id}").raise_for_status()
    prov.delete(gone.id, dict(gone.outs or {}))


# ------------------------------------------------------------------------------------------------ settings


def test_settings_from_configure(
    prov: TrainingJobProvider, emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = checked(prov, job_inputs(wait_for="none"))
    with pytest.raises(SettingsError):
        prov.create(inputs)
    config = {
        "modelarts:endpoint": emulator.url,
        "modelarts:accessKey": emulator.access_key,
        "modelarts:secretKey": emulator.secret_key,
        "modelarts:projectId": emulator.project_id,
        "other:thing": "ignored",
    }
    prov.configure(ConfigureRequest(Config(config, "project")))
    assert "other:thing" not in provider_module.current_config()
    created = prov.create(inputs)
    assert live(emulator, created.id)["metadata"]["name"] == inputs["metadata"]["name"]
    # The provider object itself never holds them.
    assert vars(prov) == {}


def test_check_reports_missing_settings_once_configured(
    prov: TrainingJobProvider, emulator: EmulatorProcess
) -> None:
    news = job_inputs(wait_for="none")
    # Not configured by an engine (a test, a tool): settings are judged when they are used.
    assert prov.check({}, news).failures == []
    config = {
        "modelarts:endpoint": emulator.url,
        "modelarts:accessKey": emulator.access_key,
        "modelarts:secretKey": emulator.secret_key,
        "modelarts:project_id": "proj-typed-wrongly",
    }
    emulator.reset_stats()
    prov.configure(ConfigureRequest(Config(config, "project")))
    failures = [(f.property, f.reason) for f in prov.check({}, news).failures]
    assert len(failures) == 1 and failures[0][0] == ""
    reason = failures[0][1]
    assert "Missing: the project id" in reason
    assert "did you mean modelarts:projectId?" in reason
    for value in config.values():
        assert value not in reason
    assert emulator.stats()["requests"] == 0
    prov.configure(
        ConfigureRequest(Config({**config, "modelarts:projectId": emulator.project_id}, "project"))
    )
    assert prov.check({}, news).failures == []


def test_api_errors_are_one_clear_message_without_credentials(
    prov: TrainingJobProvider, emu: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HW_SECRET_KEY", "wrong-secret-key-value")
    with pytest.raises(Exception) as info:
        prov.create(checked(prov, job_inputs(wait_for="none")))
    text = str(info.value)
    assert "credentials were refused" in text
    assert "wrong-secret-key-value" not in text
    assert emu.access_key not in text


def test_concurrent_calls(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    results: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work(index: int) -> None:
        try:
            created = prov.create(checked(prov, job_inputs(wait_for="running", name_prefix=f"par{index}")))
            prov.delete(created.id, dict(created.outs or {}))
            with lock:
                results.append(created.id)
        except BaseException as exc:  # collected and asserted below
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert len(set(results)) == 4


# ------------------------------------------------------------------------------------------------ lookup


def test_get_training_jobs_pages_and_filters(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    from pulumi_modelarts import get_training_jobs

    ids = set()
    for i in range(3):
        created = prov.create(checked(prov, job_inputs(wait_for="none", name_prefix=f"look{i}")))
        ids.add(created.id)
    found = get_training_jobs()
    assert {j["metadata"]["id"] for j in found} == ids
    assert all("environments" not in j.get("algorithm", {}) for j in found)
    assert "s3cr3t-env-value" not in json.dumps(found)
    only = get_training_jobs(name="look1")
    assert len(only) == 1 and only[0]["metadata"]["name"].startswith("look1-")
    assert get_training_jobs(phase=["Failed"]) == []
    assert len(get_training_jobs(created_after=0)) == 3


def test_get_training_jobs_takes_phases_in_any_case_and_refuses_unknown_ones(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    from pulumi_modelarts import get_training_jobs

    # Running for 30 s (not the fixture's 0.2 s): still Running for both searches on a busy machine.
    long_running = annotated({"emulator/running-seconds": "30"}, wait_for="running", name_prefix="phased")
    created = prov.create(checked(prov, long_running))
    assert [j["metadata"]["id"] for j in get_training_jobs(phase="running")] == [created.id]
    assert [j["metadata"]["id"] for j in get_training_jobs(phase=["RUNNING", "failed"])] == [created.id]
    emu.reset_stats()
    with pytest.raises(ValueError, match=r"unknown training job phase 'runing'; expected one of .*Running"):
        get_training_jobs(phase="runing")
    assert emu.stats()["requests"] == 0


def test_create_terminates_the_job_when_the_wait_fails_unexpectedly(
    prov: TrainingJobProvider, emu: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a ModelArtsError (a bug, or a library error the client does not translate): the job already exists
    # and Pulumi will never learn its id, so it must be stopped before the error is reported.
    from pulumi_modelarts.client import ModelArtsClient

    def broken_get_job(self: ModelArtsClient, job_id: str) -> Any:
        # An arbitrary exception's text could echo anything, a credential included: it must be scrubbed.
        raise RuntimeError(f"unexpected failure while polling (key {emu.secret_key})")

    monkeypatch.setattr(ModelArtsClient, "get_job", broken_get_job)
    inputs = checked(prov, annotated({"emulator/stay-pending": "true"}, wait_for="running"))
    with pytest.raises(ProvisioningError) as info:
        prov.create(inputs)
    text = str(info.value)
    assert "unexpected failure while polling" in text
    assert emu.secret_key not in text
    assert "the job was terminated" in text
    job_id = re.search(r"\(id ([^)]+)\)", text)
    assert job_id is not None
    monkeypatch.undo()
    stopped = job_id.group(1)
    assert phase_of(wait_phase(lambda: live(emu, stopped), "Terminated", timeout=10.0)) == "Terminated"


class _ClosedStderr:
    """stderr after the Pulumi engine that read it died (SIGKILL): every write fails."""

    def write(self, _text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_create_wait_survives_a_closed_stderr(
    prov: TrainingJobProvider, emu: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Progress lines are only informative: when nobody reads them any more, the wait must go on and the job
    # must not be treated as failed (and terminated) - after a SIGKILLed `pulumi up` it is left for adoption.
    # Running for 30 s: with the fixture's 0.2 s a busy machine could see the job completed before the check.
    inputs = checked(prov, annotated({"emulator/running-seconds": "30"}, wait_for="running"))
    monkeypatch.setattr("sys.stderr", _ClosedStderr())
    result = prov.create(inputs)
    assert result.outs is not None and result.outs["phase"] == "Running"
    assert live(emu, result.id)["status"]["phase"] == "Running"


def engine_at(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the provider as if the engine that started it served at address."""
    monkeypatch.setattr(provider_module, "stderr_progress", lambda: StderrProgress(address))


def test_a_wait_that_times_out_after_the_engine_died_leaves_the_job_alone(
    prov: TrainingJobProvider, emu: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After a SIGKILLed `pulumi up` the provider process lives on with nobody reading it. When its wait then
    # times out it must not terminate the job: the user's recovery (modelarts-orphans) adopts or stops it.
    inputs = checked(prov, annotated({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=1.0))
    with socket.socket() as engine:  # the engine's address, closed: nothing answers there any more
        engine.bind(("127.0.0.1", 0))
        engine_at(f"127.0.0.1:{engine.getsockname()[1]}", monkeypatch)
    monkeypatch.setattr("sys.stderr", _ClosedStderr())
    with pytest.raises(ProvisioningError) as info:
        prov.create(inputs)
    job_id = re.search(r"\(id ([^)]+)\)", str(info.value))
    assert job_id is not None
    time.sleep(0.5)  # a terminate, had one been sent, would show by now
    assert live(emu, job_id.group(1))["status"]["phase"] == "Pending"


def test_whether_a_given_up_job_is_terminated_depends_on_the_engine_not_on_stderr(
    prov: TrainingJobProvider, emu: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # stderr is unwritable, but the engine still listens: the wait's failure is reported to it, so the job
    # is terminated as usual.
    inputs = checked(prov, annotated({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=0.5))
    with socket.socket() as engine:
        engine.bind(("127.0.0.1", 0))
        engine.listen()
        engine_at(f"127.0.0.1:{engine.getsockname()[1]}", monkeypatch)
        monkeypatch.setattr("sys.stderr", _ClosedStderr())
        with pytest.raises(ProvisioningError) as info:
            prov.create(inputs)
    assert "the job was terminated" in str(info.value)
    job_id = re.search(r"\(id ([^)]+)\)", str(info.value))
    assert job_id is not None
    stopped = job_id.group(1)
    assert phase_of(wait_phase(lambda: live(emu, stopped), "Terminated", timeout=10.0)) == "Terminated"


def test_check_passes_advised_inputs_and_prints_each_warning_naming_the_job(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Huawei's Terraform acceptance test sends an algorithm id with code_dir and boot_file; the service
    # accepts it. The dynamic provider has no per-resource log: the line names the job instead.
    news = {
        "metadata": {"name": "tf-acc-basic"},
        "algorithm": {"id": "algo-1", "code_dir": "/b/code/", "boot_file": "/b/code/train.py"},
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
    }
    result = TrainingJobProvider().check({}, news)
    assert result.failures == []
    lines = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert [line.split(": ")[:4] for line in lines] == [
        ["modelarts", "warning", "training job tf-acc-basic", "algorithm.code_dir"],
        ["modelarts", "warning", "training job tf-acc-basic", "algorithm.boot_file"],
    ]

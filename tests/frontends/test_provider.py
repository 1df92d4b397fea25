"""TrainingJobProvider methods called directly (against a real emulator process where a call needs one): what
the dynamic front-end does itself. That is CheckResult and DiffResult shaping, what create, read and update
hand back, TrainingJob.get, configure, progress on stderr and the engine's presence, concurrent calls, and
get_training_jobs. What core decides is tested on core itself (test_core.py)."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi.dynamic import Config, ConfigureRequest
from pulumi.output import Unknown

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.account.errors import SettingsError
from pulumi_modelarts.frontends import dynamic as provider_module
from pulumi_modelarts.frontends.dynamic import ProvisioningError, TrainingJobProvider
from pulumi_modelarts.frontends.engine import StderrProgress
from pulumi_modelarts.job.errors import JobNotFoundError
from pulumi_modelarts.job.waiting import polling as wait_module

from ..support import emulator_config, init_failure, minimal_job, phase_of, wait_phase

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


def test_check_failures_are_shaped_for_the_engine(prov: TrainingJobProvider) -> None:
    # The engine looks a failure's property up as a top-level input (a nested path prints "{<nil>}"), so
    # only top-level keys keep the property form; a nested path leads the reason of a resource failure.
    news = job_inputs(spec={"resource": {"flavor_id": "f", "node_count": 0}}, wait_for="started")
    failures = {(f.property, f.reason) for f in prov.check({}, news).failures}
    assert ("", "spec.resource.node_count: must be at least 1") in failures
    assert any(prop == "wait_for" and reason.startswith("must be one of") for prop, reason in failures)


def test_check_hands_back_the_inputs_without_the_provider_key(prov: TrainingJobProvider) -> None:
    # The engine's __provider (the pickled provider) is the dynamic protocol's own, not a job input.
    result = prov.check({}, job_inputs())
    assert result.failures == []
    assert "__provider" not in result.inputs


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
    assert result.replaces == ["spec"]  # the protocol's replaces are top-level properties
    assert result.delete_before_replace is True


# ------------------------------------------------------------------------------------------------ create


def test_create_answers_with_the_job_id_and_outputs(prov: TrainingJobProvider, emu: EmulatorProcess) -> None:
    result = prov.create(checked(prov, job_inputs(wait_for="none")))
    outs = result.outs
    assert outs is not None
    assert result.id and outs["metadata"]["id"] == result.id
    assert "__provider" not in outs["declared_inputs"]


# ------------------------------------------------------------------------------------------------ read


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


# ------------------------------------------------------------------------------------------------ update


def test_update_answers_with_the_outputs_of_the_job_updated(
    prov: TrainingJobProvider, emu: EmulatorProcess
) -> None:
    inputs = checked(prov, job_inputs(wait_for="none"))
    created = prov.create(inputs)
    news = checked(prov, job_inputs(metadata={"description": "weekly"}, wait_for="none"), inputs)
    outs = prov.update(created.id, dict(created.outs or {}), news).outs
    assert outs is not None
    assert outs["metadata"]["id"] == created.id
    assert outs["metadata"]["description"] == "weekly"
    assert outs["declared_inputs"]["metadata"]["description"] == "weekly"


# ------------------------------------------------------------------------------------------------ settings


def test_settings_from_configure(
    prov: TrainingJobProvider, emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = checked(prov, job_inputs(wait_for="none"))
    with pytest.raises(SettingsError):
        prov.create(inputs)
    config = {**emulator_config(emulator), "other:thing": "ignored"}
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
    # Left out, the order is the service's: newest first. Given, it is sent as written.
    created = [j["metadata"]["create_time"] for j in found]
    assert created == sorted(created, reverse=True)
    by_name = [j["metadata"]["name"][:5] for j in get_training_jobs(sort_by="name", order="asc")]
    assert by_name == ["look0", "look1", "look2"]
    by_name = [j["metadata"]["name"][:5] for j in get_training_jobs(sort_by="name", order="desc")]
    assert by_name == ["look2", "look1", "look0"]


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
    # create is synchronous: a terminate it had sent would be counted already.
    assert "terminate" not in emu.stats()["by_operation"]
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


class _Answered(Exception):
    """What a servicer context's abort raises (the call ends there)."""


class _HostContext:
    """The gRPC context of the dynamic provider host's servicer method: what the call was aborted with."""

    def __init__(self) -> None:
        self.status: Any = None
        self.details: str | None = None

    def abort(self, _code: Any, details: str) -> None:
        self.details = details
        raise _Answered(details)

    def abort_with_status(self, status: Any) -> None:
        self.status = status
        raise _Answered(status.details)


def _as_the_host_calls(method: str, provider: TrainingJobProvider, *args: Any) -> _HostContext:
    """provider.<method>(*args) from a servicer method of the dynamic host (``pulumi.dynamic.__main__``), as
    ``_reported`` finds it on the stack; the context it answered through."""
    import importlib.machinery

    namespace: dict[str, Any] = {"__spec__": importlib.machinery.ModuleSpec("pulumi.dynamic.__main__", None)}
    exec(f"def {method.title()}(provider, args, context):\n    return provider.{method}(*args)\n", namespace)
    context = _HostContext()
    with pytest.raises(_Answered):
        namespace[method.title()](provider, args, context)
    return context


def test_a_create_whose_job_may_still_run_is_answered_as_a_partial_create(
    prov: TrainingJobProvider, emu: EmulatorProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi.runtime import rpc

    from pulumi_modelarts.wire.api import ModelArtsAPI

    def snowman_token(self: ModelArtsAPI, job_id: str) -> Any:
        "\u2603".encode("ascii")  # as httpx refusing a security token it cannot send

    monkeypatch.setattr(ModelArtsAPI, "terminate_job", snowman_token)
    inputs = checked(prov, annotated({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=0.3))
    context = _as_the_host_calls("create", prov, inputs)
    assert context.status is not None, context.details  # not a plain error: the engine must record the job
    failed = init_failure(context.status)
    [reason] = failed.reasons
    assert reason == context.status.details and "may still be running" in reason, reason
    assert f"(id {failed.id})" in reason and "UnicodeEncodeError" in reason
    assert "s3cr3t-env-value" not in reason
    outputs = rpc.deserialize_properties(failed.properties)
    assert outputs["__provider"] == "serialized-provider"  # the host's later calls run the same provider
    assert outputs["metadata"]["id"] == failed.id and outputs["declared_inputs"]["wait_for"] == "running"
    assert live(emu, failed.id)["status"]["phase"] == "Pending"  # running on, and in the state


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


def test_diff_says_which_values_force_the_replacement(
    prov: TrainingJobProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = checked(prov, job_inputs())
    olds = {"declared_inputs": {k: v for k, v in inputs.items() if k != "__provider"}, "name": "train-x"}
    capsys.readouterr()
    spec = dict(job_inputs()["spec"])
    spec["resource"] = {**spec["resource"], "node_count": 3}
    assert prov.diff("id", olds, checked(prov, job_inputs(spec=spec), inputs)).replaces == ["spec"]
    said = capsys.readouterr().err
    assert said == "modelarts: training job train-x will be replaced: spec.resource.node_count changed\n", (
        said
    )
    # A secret's key is named, never its value.
    algorithm = {**job_inputs()["algorithm"], "environments": {"API_TOKEN": "another-s3cr3t"}}
    assert prov.diff("id", olds, checked(prov, job_inputs(algorithm=algorithm), inputs)).replaces
    said = capsys.readouterr().err
    assert "will be replaced: algorithm.environments.API_TOKEN changed" in said and "s3cr3t" not in said
    # Nothing is said for an update in place.
    prov.diff("id", olds, checked(prov, job_inputs(metadata={"description": "weekly"}), inputs))
    assert capsys.readouterr().err == ""

"""Hostile answers and endpoints through the real CLI, as a user meets them: an answer nested too deeply to
parse (a create's 201 and a refresh), a self-signed certificate, a refusal that echoes the job's secret
environment values, and keys from instance metadata turning unusable while `up` waits for a job; on the
account's side, an endpoint only named like loopback, a profile file nested too deeply, IAM answering a
project id no request can carry or ten thousand projects, a security token from a third place, and a service
pausing the account for an hour. Each is one clear error (or, for the create, the job adopted), never a
crash, a retry storm, a pause without end, a leaked value or a job left running outside the state."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.account.iam import IAM_ATTEMPTS

from ..httpserver import Recorded, Reply, ScriptedServer, json_reply, self_signed_certificate
from ..support import poll
from .cli_helpers import all_jobs, jobs_program, live, make_stack, popen, state_job_ids
from .front_ends import DYNAMIC, FRONT_ENDS, NATIVE, FrontEnd
from .pulumi_cli import SECRET_SIG, Stack

pytestmark = pytest.mark.cli

PROJECT = "0123456789abcdef0123456789abcdef"
SECRET_KEY = "hostile-cli-secret-key-VALUE"
ENV_SECRET = "EnvValue-Secret-123"
DEEP = "[" * 10000 + "]" * 10000
WITH_ENV = f'\n                    "environments": {{"MYTOKEN": "{ENV_SECRET}"}},'


class Service:
    """Just enough of ModelArts for a create and a refresh: creates are recorded and answered by
    `create_answer` (a fresh job by default), searches and reads show the jobs created."""

    def __init__(self) -> None:
        self.jobs: dict[str, dict[str, Any]] = {}
        self.create_answer: Callable[[dict[str, Any]], Reply] = lambda job: json_reply(job, 201)
        self.creates = 0

    def __call__(self, request: Recorded) -> Reply:
        if request.method == "POST" and request.path.endswith("/training-jobs"):
            self.creates += 1
            name = request.json()["metadata"]["name"]
            job: dict[str, Any] = {
                "kind": "job",
                "metadata": {"id": str(uuid.uuid4()), "name": name, "create_time": int(time.time() * 1000)},
                "status": {"phase": "Running", "secondary_phase": "Running"},
            }
            self.jobs[job["metadata"]["id"]] = job
            return self.create_answer(job)
        if request.path.endswith("/training-job-searches"):
            items = list(self.jobs.values())
            return json_reply({"total": len(items), "count": len(items), "items": items})
        job_id = request.path.rsplit("/", 1)[-1]
        if request.method == "GET" and job_id in self.jobs:
            return json_reply(self.jobs[job_id])
        return json_reply({"error_code": "ModelArts.2775", "error_msg": "not found"}, 400)


def stack_at(tmp_path: Path, url: str, front_end: FrontEnd, program: str | None = None) -> Stack:
    env = {
        "HW_MODELARTS_ENDPOINT": url,
        "HW_ACCESS_KEY": "HOSTILECLIAK",
        "HW_SECRET_KEY": SECRET_KEY,
        "HW_PROJECT_ID": PROJECT,
    }
    program = program or jobs_program(1, wait_for="none")
    return make_stack(tmp_path, None, program, env=env, front_end=front_end)


def assert_clean(output: str) -> None:
    for crash in ("Traceback", "RecursionError", "Exception calling application", "maximum recursion"):
        assert crash not in output, output
    assert SECRET_KEY not in output


def job_ids(stack: Stack, front_end: FrontEnd) -> list[str]:
    return [r["id"] for r in stack.export()["deployment"]["resources"] if front_end.is_job(r)]


def test_a_create_answered_too_deeply_adopts_the_job_it_made(tmp_path: Path) -> None:
    front_end = DYNAMIC
    service = Service()
    service.create_answer = lambda _job: Reply(201, DEEP)
    with ScriptedServer() as server:
        server.handler = service
        stack = stack_at(tmp_path, server.url, front_end)
        up = stack.up()
        output = up.stdout + up.stderr
    assert_clean(output)
    assert "the answer could not be read; looking for it by name" in output
    assert service.creates == 1  # never posted twice
    assert job_ids(stack, front_end) == list(service.jobs)  # the job it made is the one in the state


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_refresh_answered_too_deeply_names_the_call_and_keeps_the_state(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    service = Service()
    with ScriptedServer() as server:
        server.handler = service
        stack = stack_at(tmp_path, server.url, front_end)
        stack.up()
        [job_id] = job_ids(stack, front_end)
        server.handler = lambda _request: Reply(200, DEEP)
        refresh = stack.refresh(check=False)
    output = refresh.stdout + refresh.stderr
    assert refresh.returncode != 0
    assert_clean(output)
    assert f"get training job '{job_id}' failed" in output and "nested too deeply" in output
    assert "(HTTP 200)" in output
    assert job_ids(stack, front_end) == [job_id]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_self_signed_endpoint_fails_at_once_naming_the_certificate(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    certificate = self_signed_certificate(tmp_path / "tls")
    with ScriptedServer(tls=certificate) as server:
        server.handler = Service()
        stack = stack_at(tmp_path, server.url, front_end)
        stack.env.pop("SSL_CERT_FILE", None)
        stack.env.pop("SSL_CERT_DIR", None)
        started = time.monotonic()
        up = stack.up(check=False)
        elapsed = time.monotonic() - started
        assert server.requests == []
    output = up.stdout + up.stderr
    assert up.returncode != 0
    assert_clean(output)
    assert "certificate" in output and "self-signed" in output and "SSL_CERT_FILE" in output
    assert "retrying" not in output and "attempts" not in output  # one attempt, no pauses
    assert elapsed < 60, elapsed  # ten attempts with backoff took 68 s


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_refusal_echoing_the_request_hides_the_environment_values(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    def echo(request: Recorded) -> Reply:
        sent = request.body.decode("utf-8")
        return json_reply({"error_code": "ModelArts.0001", "error_msg": f"invalid request: {sent}"}, 400)

    with ScriptedServer() as server:
        server.handler = echo
        stack = stack_at(tmp_path, server.url, front_end, jobs_program(1, wait_for="none", extra=WITH_ENV))
        up = stack.up(check=False)
        # The catalogue check's read of the flavors (refused alike: a warning), then the create.
        catalogue, create = server.requests
    output = up.stdout + up.stderr
    assert (catalogue.method, catalogue.path.rsplit("/", 1)[-1]) == ("GET", "training-job-flavors")
    assert ENV_SECRET in json.dumps(create.json())  # it was sent, and echoed back
    assert up.returncode != 0
    assert_clean(output)
    assert ENV_SECRET not in output, output
    assert '"MYTOKEN": "***"' in output and "HTTP 400" in output


class TurningMetadata:
    """The instance metadata service, relayed from the emulator's until ``hostile`` is set: then each key it
    hands out carries a security token no HTTP header can hold ("\u2603"), as a metadata service gone wrong
    mid-wait would."""

    def __init__(self, emu: EmulatorProcess) -> None:
        self.emu = emu
        self.hostile = threading.Event()
        self.bad_keys = 0

    def __call__(self, request: Recorded) -> Reply:
        wanted = {k: v for k, v in request.headers.items() if k.startswith("x-metadata-token")}
        answer = httpx.request(request.method, self.emu.url + request.path, headers=wanted, timeout=10)
        if request.path.endswith("/securitykey") and answer.status_code == 200 and self.hostile.is_set():
            key = answer.json()
            key["credential"]["securitytoken"] = "\u2603" + key["credential"]["securitytoken"]
            self.bad_keys += 1
            return json_reply(key)
        kind = answer.headers.get("content-type", "")
        return Reply(answer.status_code, answer.content, {"Content-Type": kind})


def running_now(jobs: list[dict[str, Any]]) -> bool:
    return any(j["status"]["phase"] == "Running" for j in jobs)


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_keys_turning_unusable_mid_wait_leave_the_job_in_the_state_saying_how_to_stop_it(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    # Keys from instance metadata that live 2 s, `up` waiting for its job to complete: once the job runs, the
    # metadata service hands out keys that cannot be sent. Polls and the terminate both fail with them, so the
    # job may still run: it must be in the state, under a message that says so, names it and how to stop it.
    emu = emulator_factory(temporary_key_seconds=2.0)
    metadata = TurningMetadata(emu)
    running = "{'annotations': {'emulator/running-seconds': '600'}}"
    program = jobs_program(1, wait_for="completed").replace(
        'metadata={"description": f"reliability job {i}"}', f"metadata={running}"
    )
    with ScriptedServer() as server:
        server.handler = metadata
        stack = make_stack(tmp_path, emu, program, front_end=front_end)
        for name in ("HW_ACCESS_KEY", "HW_SECRET_KEY"):
            stack.env.pop(name)
        stack.env.update({"HW_USE_INSTANCE_METADATA": "true", "HW_METADATA_ENDPOINT": server.url})
        proc = popen(stack, "up", "--yes", "--skip-preview")
        try:
            poll(lambda: live(all_jobs(emu)), running_now, timeout=60, what="the job running")
            metadata.hostile.set()
            output, _ = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode != 0, output
        assert metadata.bad_keys >= 1, output
        [job] = all_jobs(emu)
        job_id = job["metadata"]["id"]
        text = " ".join(output.split())
        assert job["status"]["phase"] == "Running", output  # it could not be stopped, and runs on
        assert "Exception calling application" not in output and "Traceback" not in output, output
        assert "nothing is left running" not in text and "was terminated" not in text, output
        assert f"(id {job_id}) could not be watched any more (" in text, output
        assert "may still be running: stop training job job-0-" in text, output
        assert f"(id {job_id}) in the ModelArts console" in text, output
        assert f"/training-jobs/{job_id}/actions" in text, output
        assert "it is kept in the Pulumi state as a resource whose creation failed" in text, output
        # ... and it is: recorded with its id, no pending operation left for `pulumi refresh` to clear.
        assert state_job_ids(stack, front_end) == [job_id]
        assert not stack.export()["deployment"].get("pending_operations")
        [kept] = stack.resources(front_end.type_token)
        declared = kept["outputs"].get("declared_inputs", kept["outputs"].get("declaredInputs"))
        assert isinstance(declared, dict) and SECRET_SIG in declared, kept["outputs"]  # secret, as any job's

        metadata.hostile.clear()  # the metadata service recovers: destroy stops the job the state kept
        stack.destroy()
    assert [j["status"]["phase"] for j in all_jobs(emu)] == ["Terminated"]
    assert state_job_ids(stack, front_end) == []


# -- the account's side, as a user meets it at preview and up ---------------------------------------------

REGION = "cn-north-4"
WAITING_JOB = """\
import pulumi
from pulumi_modelarts import TrainingJob

TrainingJob(
    "job-0",
    algorithm={"engine": {"image_url": "org/trainer:1.0"}, "command": "python train.py"},
    spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
    wait_for="running",
    wait_timeout="3s",
)
"""
THROTTLED = {"error_code": "APIG.0308", "error_msg": "The request is throttled."}
NO_SUCH_API = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published."}


def stack_finding_its_project(
    tmp_path: Path, modelarts: ScriptedServer, iam: ScriptedServer, front_end: FrontEnd, program: str
) -> Stack:
    """A stack whose project is IAM's answer for its region (no project id); IAM and ModelArts scripted."""
    stack = stack_at(tmp_path, modelarts.url, front_end, program)
    del stack.env["HW_PROJECT_ID"]
    stack.env.update({"HW_REGION_NAME": REGION, "HW_AUTH_URL": iam.url})
    return stack


def failed(run: Any) -> str:
    output: str = run.stdout + run.stderr
    assert run.returncode != 0, output
    assert_clean(output)
    return output


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_hostile_settings_and_iam_answers_are_refused_at_once_naming_what(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    """An endpoint only named like loopback, a profile file nested too deeply, an IAM project id no request
    can carry, and ten thousand projects none matching: each one clear error, before any job is created."""
    modelarts, iam = ScriptedServer(), ScriptedServer()
    with modelarts, iam:
        modelarts.handler = Service()
        stack = stack_finding_its_project(tmp_path, modelarts, iam, front_end, WAITING_JOB)

        # A name under .localhost resolves however the resolver likes: plain http to it is refused.
        evil = stack.run("preview", check=False, HW_MODELARTS_ENDPOINT="http://evil.localhost:8080")
        assert "uses plain http; only https is allowed except for loopback hosts" in failed(evil)

        # An hcloud profile file nested too deeply: named, never a RecursionError.
        profiles = tmp_path / "hcloud-config.json"
        profiles.write_text('{"profiles": ' + DEEP + "}")
        deep = stack.run("preview", check=False, HW_SHARED_CONFIG_FILE=str(profiles), HW_PROFILE="ci")
        assert str(profiles) in failed(deep) and "nested too deeply" in deep.stdout + deep.stderr

        # IAM answers a project id with a header line break in it: refused at once, nothing sent to ModelArts.
        iam.handler = lambda _r: json_reply({"projects": [{"id": "abc\r\nX-Evil: 1", "name": REGION}]})
        started = time.monotonic()
        bad_id = failed(stack.up(check=False))
        assert time.monotonic() - started < 30  # 83-93 s of retries before
        assert "answered a project id that cannot be used" in bad_id and "X-Evil" not in bad_id, bad_id
        assert modelarts.requests == []

        # Ten thousand projects, none of the region's name: a few named, the rest counted.
        listed = [{"id": f"{i:032x}", "name": f"{REGION}_p{i}"} for i in range(10_000)]
        iam.handler = lambda _r: json_reply({"projects": listed})
        many = failed(stack.up(check=False))
        counted = re.search(r"the projects it listed: (?:cn-north-4_p\d+, )+and (\d+) more", many)
        assert counted and int(counted[1]) > 9_900, many
        assert max(len(line) for line in many.splitlines()) < 2_000, many  # one line of 109 kB before
        assert modelarts.requests == []
    assert job_ids(stack, front_end) == []


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_security_token_goes_only_with_the_keys_of_its_own_source(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    """The access key in the stack config, the secret key in the environment, a token in a third place
    ($HUAWEICLOUD_SDK_SECURITY_TOKEN): the token belongs to other keys, and no request carries it."""
    with ScriptedServer() as modelarts:
        modelarts.handler = Service()
        stack = stack_at(tmp_path, modelarts.url, front_end)
        del stack.env["HW_ACCESS_KEY"]
        stack.env["HUAWEICLOUD_SDK_SECURITY_TOKEN"] = "third-place-token"
        stack.config_all({"modelarts:accessKey": "CONFIGAK"})
        up = stack.up()
        assert_clean(up.stdout + up.stderr)
        created = [r for r in modelarts.requests if r.method == "POST" and r.path.endswith("/training-jobs")]
        assert len(created) == 1, modelarts.requests
        for request in modelarts.requests:
            assert "x-security-token" not in request.headers, request
            assert "Access=CONFIGAK" in request.headers["authorization"], request
    assert len(job_ids(stack, front_end)) == 1


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_service_pausing_the_account_for_an_hour_ends_the_wait_on_time(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    """The create answered, then every call refused 429 with Retry-After: 3600: `up` ends about when the job's
    wait_timeout says, naming the pause, and keeps the job that may still run in the state."""
    service = Service()
    service.create_answer = lambda job: json_reply({**job, "status": {"phase": "Creating"}}, 201)

    def paused(request: Recorded) -> Reply:
        if service.creates == 0 and request.method == "POST":
            return service(request)  # the name search before the create, and the create
        if service.creates == 0 and request.path.endswith("/training-job-flavors"):
            return json_reply(NO_SUCH_API, 404)  # the check before the create: a site without the catalogue
        return json_reply(THROTTLED, 429, **{"Retry-After": "3600"})

    with ScriptedServer() as modelarts:
        modelarts.handler = paused
        stack = stack_at(tmp_path, modelarts.url, front_end, WAITING_JOB)
        started = time.monotonic()
        up = stack.up(check=False)
        took = time.monotonic() - started
    output = failed(up)
    text = " ".join(output.split())
    assert took < 45, (took, output)  # 2 min 7 s before
    assert "did not reach running within 3.0s" in text and "the service asked to pause" in text, output
    assert "may still be running" in text and "nothing is left running" not in text, output
    assert "it is kept in the Pulumi state" in text, output
    assert job_ids(stack, front_end) == list(service.jobs)


def test_ctrl_c_ends_an_up_whose_jobs_wait_for_an_iam_that_never_answers(tmp_path: Path) -> None:
    """Three jobs need the project IAM would find, and IAM never answers: it is asked once for all of them,
    and Ctrl-C ends the `up` at once (the engine's Cancel ends the native plugin's waits on IAM; they went on
    through IAM's attempts before).

    Native only: Ctrl-C reaches the CLI alone (it starts each plugin in a process group of its own), and the
    dynamic provider host answers the engine's Cancel with nothing (pulumi.dynamic's own servicer): its jobs
    wait within the lookup's own bound, shared, as tests/account/test_project_lookup.py shows."""
    front_end = NATIVE
    answer = threading.Event()

    def never(_request: Recorded) -> Reply:
        answer.wait(120)
        return json_reply({"projects": [{"id": PROJECT, "name": REGION}]})

    modelarts, iam = ScriptedServer(), ScriptedServer()
    with modelarts, iam:
        modelarts.handler, iam.handler = Service(), never
        stack = stack_finding_its_project(
            tmp_path, modelarts, iam, front_end, jobs_program(3, wait_for="none")
        )
        proc = popen(stack, "up", "--yes", "--skip-preview")
        try:
            poll(lambda: len(iam.requests), lambda asked: asked >= 1, timeout=60, what="IAM asked")
            time.sleep(1.0)  # the other jobs reach the lookup too (a second ask would show below)
            sent = time.monotonic()
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal
            output, _ = proc.communicate(timeout=90)
            took = time.monotonic() - sent
        finally:
            answer.set()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        assert proc.returncode != 0, output
        assert took < 20, (took, output)
        assert len(iam.requests) == 1, iam.requests  # one lookup for the three jobs
        assert modelarts.requests == []
    assert "Traceback" not in output and SECRET_KEY not in output, output


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_an_iam_refusing_every_attempt_is_asked_once_for_all_the_jobs(
    tmp_path: Path, front_end: FrontEnd
) -> None:
    """Three jobs need the project IAM would find, and IAM answers 503 every time: one lookup (its attempts)
    for the three, whose common failure names IAM (each job made its own attempts before)."""
    modelarts, iam = ScriptedServer(), ScriptedServer()
    with modelarts, iam:
        modelarts.handler = Service()
        iam.handler = lambda _r: json_reply({"error_msg": "busy"}, 503)
        stack = stack_finding_its_project(
            tmp_path, modelarts, iam, front_end, jobs_program(3, wait_for="none")
        )
        output = failed(stack.up(check=False))
        assert len(iam.requests) == IAM_ATTEMPTS, iam.requests
        assert modelarts.requests == []
    assert output.count("looking up the region cn-north-4's project") >= 3, output  # every job says why


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_keys_handed_out_already_expired_are_asked_for_once_more_then_named(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    """Instance metadata handing out keys that expire as they are issued: asked once more, then an error
    naming the metadata service (each call fetched keys again before)."""
    emu = emulator_factory(temporary_key_seconds=0.001)
    stack = make_stack(tmp_path, emu, jobs_program(1, wait_for="none"), front_end=front_end)
    for name in ("HW_ACCESS_KEY", "HW_SECRET_KEY"):
        stack.env.pop(name)
    stack.env.update({"HW_USE_INSTANCE_METADATA": "true", "HW_METADATA_ENDPOINT": emu.url})
    output = failed(stack.up(check=False))
    assert "instance metadata" in output and "twice in a row" in output, output
    assert emu.credentials()["issued"].get("metadata") == 2
    assert all_jobs(emu) == []

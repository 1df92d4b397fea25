"""The native provider (`pulumi-resource-modelarts`) through the real `pulumi` CLI, against the emulator.

The native-only behaviour: what the user-facing story shares with the dynamic front-end runs for both in
test_story.py, test_bad_input.py, test_faults.py, test_interrupts.py, test_scale.py and test_examples.py. The
project is the shared story's (tests/cli/story.py) for the native front-end: the program uses the generated
Python SDK (`pulumi_modelarts_native`) and Pulumi.yaml points the engine at the plugin installed beside the
Python interpreter (`plugins: providers`), as docs/native-provider.md says. The import runs from TypeScript,
Go and YAML programs too (languages.py); a failed job's report, with its log lines and error events, is the
story's (test_story.py), in every language.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import alive, all_jobs, live, plugin_processes, popen
from .front_ends import NATIVE, NATIVE_LANGUAGES, FrontEnd
from .pulumi_cli import Stack
from .story import job_args, new_story

NATIVE_TYPE = NATIVE.type_token


def native_stack(tmp_path: Path, emu: EmulatorProcess, jobs: dict[str, Any]) -> Stack:
    """The shared story project (tests/cli/story.py) for the native front-end, with these jobs declared."""
    story = new_story(tmp_path, emu, front_end=NATIVE)
    story.declare(jobs)
    return story.stack


def write_jobs(workdir: Path, jobs: dict[str, Any]) -> None:
    (workdir / "jobs.json").write_text(json.dumps({"jobs": jobs}))


def native_resources(stack: Stack) -> list[dict[str, Any]]:
    return stack.resources(NATIVE_TYPE)


def ids_in_state(stack: Stack) -> dict[str, str]:
    """The TrainingJob resources' ids in the state, by resource name."""
    return {r["urn"].rsplit("::", 1)[-1]: r["id"] for r in native_resources(stack)}


def changes(preview: str) -> str:
    found = re.search(r"Resources:\n(.*?)(?:\n\n|\Z)", preview, re.S)
    return found.group(1) if found else preview


def test_many_jobs_wait_for_running_at_once_and_each_shows_its_progress_under_it(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    count = 12
    emu = emulator_factory(pending_seconds=3)
    jobs = {f"job-{i}": job_args(wait_for="running") for i in range(count)}
    stack = native_stack(tmp_path, emu, jobs)
    up = stack.up("--parallel", "32")
    found = all_jobs(emu)
    assert len(found) == count and all(o["phase"] == "Running" for o in stack.outputs().values())
    # Every create was sent before the first job reached Running: all the waits overlapped.
    last_created = max(int(j["metadata"]["create_time"]) for j in found)
    first_running = min(int(j["status"]["start_time"]) for j in found)
    assert last_created < first_running, (last_created, first_running)
    # The engine groups a resource's log lines under it in the diagnostics, each job's under its own name.
    # (An out-of-band terminate seen by refresh: test_story.py's
    # test_refresh_records_out_of_band_terminate_and_drops_deleted_jobs; destroying many jobs: test_scale.py.)
    shown = dict(
        re.findall(r"^ *modelarts:index:TrainingJob \((job-\d+)\):\n((?:    .*\n)*)", up.stdout, re.M)
    )
    assert sorted(shown) == sorted(jobs), up.stdout
    assert all("created, phase" in lines for lines in shown.values()), up.stdout


@pytest.mark.parametrize("front_end", NATIVE_LANGUAGES)
def test_import_adopts_a_job_and_the_next_preview_is_empty(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    args = job_args(wait_for="running")
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        body = {k: v for k, v in args.items() if k != "wait_for"}
        body["metadata"] = {**body["metadata"], "name": "adopted-job"}
        body = {"kind": "job", **body}
        answer = http.post(emulator.api_url("/training-jobs"), json=body)
        answer.raise_for_status()
        job_id = answer.json()["metadata"]["id"]
    story = new_story(tmp_path, emulator, front_end=front_end)
    stack = story.stack
    stack.run("import", NATIVE_TYPE, "adopted", job_id, "--generate-code=false", "--protect=false", "--yes")
    [resource] = native_resources(stack)
    assert resource["id"] == job_id
    # The program now declares the job as it is: nothing to change.
    story.declare({"adopted": {**args, "metadata": {**args["metadata"], "name": "adopted-job"}}})
    preview = stack.preview("--diff")
    assert " to " not in changes(preview.stdout), preview.stdout
    if front_end.language == "python":
        # Destroying the adopted job: `pulumi destroy` runs no program, so one language shows it for all.
        stack.destroy()
        assert live(all_jobs(emulator)) == []


def test_custom_timeouts_bound_a_create_an_update_and_a_delete(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    # One stack carried through up, up and destroy: each job has the customTimeouts of the one operation the
    # service keeps from ending (a job that stays Pending, updates the service keeps throttling, a job that
    # stays Terminating).
    pending = job_args(annotations={"emulator/stay-pending": "true"}, wait_for="running", wait_timeout="30m")
    hooks = {"emulator/throttle-updates": "true"}
    terminating = job_args(annotations={"emulator/terminating-seconds": "600"}, wait_for="running")

    def busy(description: str) -> dict[str, Any]:
        return {
            **job_args(description, annotations=hooks, wait_for="running"),
            "custom_timeouts": {"update": "6s"},
        }

    stuck = {**terminating, "custom_timeouts": {"delete": "3s"}}
    jobs = {
        "slow": {**pending, "custom_timeouts": {"create": "3s"}},
        "busy": busy("nightly training"),
        "stuck": stuck,
    }
    stack = native_stack(tmp_path, emulator, jobs)

    # The create's wait ends at 3 s and its job is terminated; the other two jobs are created.
    up = stack.up(check=False)
    text = up.stdout + up.stderr
    assert up.returncode != 0
    assert "(customTimeouts)" in text, text
    assert "Unexpected <class" not in text and "Traceback" not in text, text  # the error's own words only
    assert "the job was terminated" in text, text
    slow_jobs = [j for j in all_jobs(emulator) if j["metadata"]["name"].startswith("slow-")]
    assert len(slow_jobs) == 1 and live(slow_jobs) == []
    ids = ids_in_state(stack)
    assert sorted(ids) == ["busy", "stuck"]  # nothing of the timed-out create

    # The update: the service throttles it past 6 s; the job runs on as it was, and so does the state.
    write_jobs(stack.workdir, {"busy": busy("weekly training"), "stuck": stuck})
    started = time.monotonic()
    up = stack.up(check=False)
    text = up.stdout + up.stderr
    assert up.returncode != 0, text
    assert time.monotonic() - started < 60, text  # not the client's own two minutes of retries
    assert f"training job {ids['busy']} could not be updated within 6.0s (customTimeouts)" in text, text
    assert "ModelArts.2799" in text and "the job runs on unchanged" in text, text
    assert "Unexpected <class" not in text and "Traceback" not in text, text
    assert emulator.secret_key not in text
    [resource] = [r for r in native_resources(stack) if r["id"] == ids["busy"]]
    assert resource["outputs"]["metadata"]["description"] == "nightly training"  # the state did not move on

    # The delete: the busy job goes; the one that stays Terminating fails the destroy within its 3 s.
    started = time.monotonic()
    destroy = stack.destroy(check=False)
    text = destroy.stdout + destroy.stderr
    assert destroy.returncode != 0, text
    assert time.monotonic() - started < 60, text  # not the built-in five minutes
    assert f"(id {ids['stuck']}) is still Terminating after" in text and "(customTimeouts)" in text, text
    assert "allow the delete more time in the resource's customTimeouts" in text, text
    assert "Unexpected <class" not in text and "Traceback" not in text, text
    # The job was told to stop and the state still holds it, so a later destroy can finish the job.
    [job] = [j for j in all_jobs(emulator) if j["metadata"]["id"] == ids["stuck"]]
    assert job["status"]["phase"] == "Terminating"
    assert [r["id"] for r in native_resources(stack)] == [ids["stuck"]]
    assert live(all_jobs(emulator)) == []


def up_in_its_wait(tmp_path: Path, emulator: EmulatorProcess) -> subprocess.Popen[str]:
    """`pulumi up` of one job that stays Pending while its create waits for Running, started in the
    background and handed back once the job exists and the create is waiting (killed if it never gets there).
    """
    args = job_args(annotations={"emulator/stay-pending": "true"}, wait_for="running", wait_timeout="30m")
    stack = native_stack(tmp_path, emulator, {"stuck": args})
    proc = popen(stack, "up", "--yes", "--skip-preview")
    try:
        deadline = time.monotonic() + 120
        while not all_jobs(emulator):
            assert time.monotonic() < deadline and proc.poll() is None, "no job was created"
            time.sleep(0.2)
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    time.sleep(1.0)  # the create is now in its wait
    return proc


def test_a_plugin_whose_engine_was_killed_leaves_and_its_waiting_job_keeps_running(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    # kill -9 of `pulumi` never stops its plugins (the engine starts them in their own process groups): the
    # plugin notices its engine is gone and leaves by itself, without terminating the job its wait was for.
    proc = up_in_its_wait(tmp_path, emulator)
    try:
        [plugin] = plugin_processes(tmp_path, b"pulumi-resource-modelarts")
        proc.kill()  # the CLI only, as `kill -9 <pid of pulumi>` does
        proc.communicate(timeout=60)
        killed = time.monotonic()
        while alive(plugin):
            assert time.monotonic() - killed < 15, "the plugin outlived its engine by 15 s"
            time.sleep(0.1)
        time.sleep(1.0)  # nothing it started may still reach the service
        [job] = all_jobs(emulator)
        assert job["status"]["phase"] == "Pending"  # the wait ended; the job was left as it was
        assert "terminate" not in emulator.stats()["by_operation"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for pid in plugin_processes(tmp_path):  # the language host and program the kill left behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    # A SIGKILL is delivered, not awaited: give the killed processes a moment to end.
    deadline = time.monotonic() + 10
    while left := [pid for pid in plugin_processes(tmp_path) if alive(pid)]:
        assert time.monotonic() < deadline, f"processes outlived the test: {left}"
        time.sleep(0.1)


def test_a_plugin_that_ends_during_an_up_tells_the_user_why_and_what_it_left(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    # The engine hides a plugin's stderr unless the plugin ends before it was shut down: then that is all
    # the user sees besides "error reading from server: EOF". The plugin's last words must be there.
    proc = up_in_its_wait(tmp_path, emulator)
    try:
        [plugin] = plugin_processes(tmp_path, b"pulumi-resource-modelarts")
        os.kill(plugin, signal.SIGTERM)  # as anything but the engine might
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = " ".join(out.split())
    assert proc.returncode != 0, out
    assert "the provider stops: it received SIGTERM; 1 operation still under way (create stuck)" in text, out
    assert "a job a create started keeps running" in text and "modelarts-orphans" in text, out


def test_preview_checks_the_settings_and_hints_at_near_miss_keys(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    stack = native_stack(tmp_path, emulator, {"job": job_args()})
    stack.env["HW_PROJECT_ID"] = ""
    # The near-miss key in the stack's settings file, as `pulumi config set modelarts:project_id` writes it.
    settings = stack.workdir / f"Pulumi.{stack.name}.yaml"
    settings.write_text(
        settings.read_text() + f"config:\n  modelarts:project_id: {json.dumps(emulator.project_id)}\n"
    )
    emulator.reset_stats()
    preview = stack.preview(check=False)
    text = preview.stdout + preview.stderr
    assert preview.returncode != 0
    assert "ModelArts settings are incomplete or unusable." in text, text
    assert "did you mean modelarts:projectId?" in text, text
    assert emulator.project_id not in text  # names only, never a value
    assert emulator.stats()["by_operation"] == {}


def ended(proc: subprocess.Popen[str], seconds: float) -> int:
    """proc's exit code once it has ended; past seconds, a failure with what it wrote on stderr (its last
    words, or what it was doing)."""
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"still running after {seconds} s; its stderr:\n{proc.communicate()[1]}")


def test_a_plugin_started_through_a_launcher_that_exits_serves_on_while_its_engine_lives(
    tmp_path: Path,
) -> None:
    # A launcher that does not exec (a wrapper script, a process manager) starts the plugin and exits: the
    # plugin is re-parented while its engine goes on. Only the engine's address going away ends it, and it
    # says why on stderr (which the engine shows when a plugin ends early).
    binary = str(Path(sys.executable).parent / "pulumi-resource-modelarts")
    port_file, err_file = tmp_path / "port", tmp_path / "stderr"
    launcher = '"$0" "$1" >"$2" 2>"$3" & echo $!; while [ ! -s "$2" ]; do sleep 0.05; done'
    with socket.socket() as engine:
        engine.bind(("127.0.0.1", 0))
        engine.listen()
        address = f"127.0.0.1:{engine.getsockname()[1]}"
        launched = subprocess.run(
            ["sh", "-c", launcher, binary, address, str(port_file), str(err_file)],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        plugin = int(launched.stdout.split()[0])
        try:
            assert port_file.read_text().strip().isdigit()  # serving, its launcher gone
            time.sleep(3.0)  # the old watch left half a second after its parent changed
            assert alive(plugin), err_file.read_text()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.kill(plugin, signal.SIGKILL)
            raise
    deadline = time.monotonic() + 15
    while alive(plugin):  # the engine's address refuses now: the plugin leaves
        if time.monotonic() > deadline:
            os.kill(plugin, signal.SIGKILL)
            pytest.fail(f"the plugin outlived its engine by 15 s; its stderr:\n{err_file.read_text()}")
        time.sleep(0.1)
    said = err_file.read_text()
    assert f"modelarts: the provider stops: the Pulumi engine is gone (its address {address} refused " in said
    assert "leaving its jobs as they are" in said


def test_a_plugin_stopped_by_sigterm_says_so_on_stderr() -> None:
    # A plugin ending for any other reason than its engine's leaving says why: the engine shows a plugin's
    # stderr only when it ends early, and then that is all the user has.
    binary = Path(sys.executable).parent / "pulumi-resource-modelarts"
    proc = subprocess.Popen(
        [str(binary), "127.0.0.1:1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip().isdigit()  # serving
        proc.send_signal(signal.SIGTERM)
        code = ended(proc, 30)
        said = proc.communicate()[1]
        assert code == 128 + signal.SIGTERM, said
        assert "modelarts: the provider stops: it received SIGTERM" in said, said
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def test_the_plugin_stops_on_the_engines_sigint_though_it_was_started_with_sigint_ignored() -> None:
    # A shell's background job starts its commands with SIGINT ignored, and the engine stops its plugins with
    # SIGINT: a plugin that kept ignoring it would be killed only after the engine's grace, on every command.
    binary = Path(sys.executable).parent / "pulumi-resource-modelarts"
    proc = subprocess.Popen(
        [str(binary), "127.0.0.1:1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip().isdigit()  # the port: the plugin is serving
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, proc.communicate()[1]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def test_the_plugin_leaves_when_its_engines_address_refuses_and_one_started_by_hand_keeps_serving() -> None:
    # Started by something that outlives the engine (here pytest, a parent that stays): the engine's address
    # refusing connections, after it accepted them, is what tells the plugin it is gone. One started with an
    # address nothing ever answered at (as the test above does) proves nothing and serves until stopped.
    binary = str(Path(sys.executable).parent / "pulumi-resource-modelarts")
    engine = socket.socket()
    engine.bind(("127.0.0.1", 0))
    engine.listen()
    started = [
        subprocess.Popen([binary, address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for address in (f"127.0.0.1:{engine.getsockname()[1]}", "127.0.0.1:1")
    ]
    try:
        for proc in started:
            assert proc.stdout is not None and proc.stdout.readline().strip().isdigit()  # serving
        time.sleep(1.0)  # the watch has seen the engine answer
        engine.close()
        orphaned, by_hand = started
        assert ended(orphaned, 15) == 0, orphaned.communicate()[1]
        assert by_hand.poll() is None, by_hand.communicate()[1]
        by_hand.send_signal(signal.SIGINT)
        assert by_hand.wait(timeout=30) == 0
    finally:
        engine.close()
        for proc in started:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


def test_importing_a_missing_job_fails_naming_the_id(tmp_path: Path, emulator: EmulatorProcess) -> None:
    stack = native_stack(tmp_path, emulator, {})
    missing = "00000000-0000-0000-0000-000000000000"
    imported = stack.run(
        "import", NATIVE_TYPE, "ghost", missing, "--generate-code=false", "--yes", check=False
    )
    assert imported.returncode != 0
    assert f"training job {missing} does not exist" in imported.stdout + imported.stderr
    assert native_resources(stack) == []


def test_names_are_the_same_in_previews_and_up_and_a_destroyed_name_is_not_reused(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    stack = native_stack(tmp_path, emulator, {"nightly": job_args(wait_for="none")})
    previews = [stack.preview("--json").stdout for _ in range(2)]
    named = [
        step["newState"]["inputs"]["metadata"]["name"]
        for preview in previews
        for step in json.loads(preview)["steps"]
        if step["newState"]["type"] == NATIVE_TYPE
    ]
    assert len(named) == 2 and named[0] == named[1] and named[0].startswith("nightly-"), named
    stack.up()
    assert stack.outputs()["nightly"]["name"] == named[0]
    first_id = stack.outputs()["nightly"]["id"]
    # The destroyed job's record is kept (on_destroy defaults to terminate), so its name stays taken: the same
    # declaration, brought up again, gets the next name of its sequence instead of failing or adopting it.
    stack.destroy()
    assert live(all_jobs(emulator)) == []
    stack.up()
    again = stack.outputs()["nightly"]
    assert again["id"] != first_id and again["name"] != named[0] and again["name"].startswith("nightly-")


def full_shape() -> dict[str, Any]:
    """A job with every part of the shape set: engine by name and version, an input's access method, the
    runtime type, a volume."""
    args = job_args(wait_for="pending")
    args["algorithm"]["engine"] = {
        "engine_name": "PyTorch",
        "engine_version": "pytorch_2.1.0-cuda_12.1-py_3.10",
        "image_url": "org/trainer:1.0",
        "install_sys_packages": True,
    }
    args["algorithm"]["inputs"][0]["access_method"] = "parameter"
    args["spec"]["runtime_type"] = "production"
    args["spec"]["volumes"] = [{"obs": {"obs_path": "/bucket/cache/", "local_path": "/cache"}}]
    return args


def test_a_full_shape_job_never_drifts_and_a_pull_request_preview_names_each_value_that_forces_a_new_job(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    secret = "first-s3cr3t-value"

    def declared(
        *, lr: str = "0.1", token: str = secret, nodes: int = 1, owner: str = "ml"
    ) -> dict[str, Any]:
        args = job_args(annotations={"team/owner": owner}, node_count=nodes, wait_for="none")
        args["algorithm"]["parameters"] = [{"name": "epochs", "value": "3"}, {"name": "lr", "value": lr}]
        args["algorithm"]["environments"] = {"API_TOKEN": token}
        return args

    full = full_shape()
    stack = native_stack(
        tmp_path, emulator, {"algo": declared(), "scale": declared(), "meta": declared(), "full": full}
    )
    stack.up()
    before = {name: out["id"] for name, out in stack.outputs().items()}
    # The program passes the environment as a plain map; the state's inputs hold it encrypted all the same.
    for resource in native_resources(stack):
        if not resource["urn"].endswith("::full"):
            assert "ciphertext" in resource["inputs"]["algorithm"]["environments"], resource["inputs"]
    assert secret not in json.dumps(stack.export())
    # The full shape reads back as declared: the refresh changes nothing in the state up wrote, and the pull
    # request's plan below, on that state, changes nothing of the job (so no preview between them would).
    [resource] = [r for r in native_resources(stack) if r["urn"].endswith("::full")]
    assert resource["outputs"]["spec"]["runtimeType"] == "production"  # the state holds the schema's names
    assert "job_template" in resource["outputs"]["metadata"]["annotations"]  # the service's key, kept as is
    stack.refresh("--expect-no-changes")
    # One nested change in each of algorithm, spec and metadata (plus a description edit, in place).
    meta = declared(owner="platform")
    meta["metadata"]["description"] = "weekly training"
    changed = {
        "algo": declared(lr="0.2", token="second-s3cr3t-value"),
        "scale": declared(nodes=4),
        "meta": meta,
        "full": full,
    }
    write_jobs(stack.workdir, changed)

    plan = json.loads(stack.preview("--json").stdout)
    steps = {s["urn"].rsplit("::", 1)[-1]: s for s in plan["steps"]}
    expected = {
        "algo": {"algorithm.parameters[1].value", "algorithm.environments.API_TOKEN"},
        "scale": {"spec.resource.nodeCount"},
        "meta": {'metadata.annotations["team/owner"]'},
    }
    for name, paths in expected.items():
        step = steps[name]
        assert step["op"] == "replace", step
        assert set(step["replaceReasons"]) == paths, step
        forcing = {path for path, diff in step["detailedDiff"].items() if diff["kind"] == "update-replace"}
        assert forcing == paths, step["detailedDiff"]
    assert steps["meta"]["detailedDiff"]["metadata.description"]["kind"] == "update"  # not what forces it
    assert "full" not in steps, steps["full"]  # the plan lists changes only: nothing drifted in the refresh

    preview = stack.preview("--diff")
    text = preview.stdout + preview.stderr
    assert re.search(r"~ resource: \{\n\s+~ nodeCount: 1 => 4\n", text), text
    assert re.search(r'~ \[1\]: \{\n\s+~ value: "0.1" => "0.2"\n', text), text
    assert re.search(r'~ annotations: \{\n\s+~ team/owner: "ml" => "platform"\n', text), text
    # The secret's key is shown, its values never.
    assert re.search(r"~ API_TOKEN: \[secret\] => \[secret\]", text), text
    assert secret not in text and "second-s3cr3t-value" not in text

    stack.up()
    after = {name: out["id"] for name, out in stack.outputs().items()}
    assert all(after[name] != before[name] for name in expected), (before, after)
    assert after["full"] == before["full"]
    stack.run("preview", "--expect-no-changes")
    stack.destroy()
    assert live(all_jobs(emulator)) == []

"""The used-by story through the real `pulumi` CLI against the emulator: what a team sees day to day.

Each test runs `pulumi` commands on a stack in a private local backend, with the jobs declared in a jobs.json
file the test rewrites between runs, and checks the effects on the emulator (client or raw API) and in the
state (the stack's checkpoint, as `pulumi stack export` prints it). Every test runs for both front-ends
(`front_end`: dynamic and native); the stories whose values cross a language's SDK or host differently (a
create with nested values and tags, an update in place and a replace, a failure report, a read of an existing
job) run from TypeScript, Go and YAML programs too (`STORY_FRONT_ENDS`); the others are the same plugin calls
whatever the program's language. Where front-ends show the user different things, a front-end-specific
assertion sits beside the shared one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..client_support import create_job
from .both_front_ends import BOTH, both_stack, declare
from .front_ends import FRONT_ENDS, STORY_FRONT_ENDS, FrontEnd
from .story import (
    LIVE_PHASES,
    all_jobs,
    assert_no_traceback,
    credentials_in_config,
    emulator_client,
    job_args,
    new_story,
    progress_lines,
    wait_until,
)

pytestmark = pytest.mark.cli


TAGS = {"team": "nlp", "cost-center": "research-42"}


def _outputs_by_id(outputs: dict[str, Any]) -> dict[str, str]:
    return {name: value["id"] for name, value in outputs.items()}


@pytest.mark.parametrize("front_end", STORY_FRONT_ENDS)
def test_up_creates_the_declared_jobs_then_preview_and_refresh_find_nothing_to_do(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    story.declare(
        {
            "prep": job_args("prepare the data", node_count=1, wait_for="running"),
            "train": job_args("train the model", image="org/train:2.0", node_count=2, tags=TAGS),
            "evaluate": job_args("evaluate", data_url="/bucket/data/v2/", wait_for="none"),
        }
    )

    up = story.stack.up()
    # Progress lines during the waits, one per line (concurrent jobs do not run into each other).
    progress = progress_lines(up.stdout + up.stderr, front_end)
    assert any("Running after" in line and "prep-" in line for line in progress), up.stdout
    assert any("created, phase Creating" in line for line in progress), up.stdout

    outputs = story.stack.outputs()
    assert set(outputs) == {"prep", "train", "evaluate"}
    assert outputs["prep"]["phase"] == "Running"  # wait_for="running"
    assert outputs["train"]["phase"] in ("Pending", "Running")  # the default wait: past Creating
    assert outputs["evaluate"]["phase"] == "Creating"  # wait_for="none"

    state = story.jobs_in_state()
    with emulator_client(emulator) as client:
        for name, declared in [("prep", ("org/train:1.0", 1)), ("train", ("org/train:2.0", 2))]:
            job = client.get_job(outputs[name]["id"])
            assert job.name == outputs[name]["name"]
            assert job.name is not None and job.name.startswith(f"{name}-")
            assert job.metadata is not None
            assert job.metadata.description == state[name]["inputs"]["metadata"]["description"]
            assert job.algorithm is not None and job.algorithm.engine is not None
            assert (job.algorithm.engine.image_url, job.spec.resource.node_count) == declared  # type: ignore[union-attr]
            assert state[name]["id"] == outputs[name]["id"]
        assert len(all_jobs(client)) == 3
        # Tags, a map of strings, reach the service from every language, and the state records them.
        assert client.get_tags(outputs["train"]["id"]) == TAGS
        assert client.get_tags(outputs["prep"]["id"]) == {}
    assert state["train"]["outputs"]["tags"] == TAGS
    # What was declared is recorded (secret) in the state, next to what the service returned. The native
    # state holds the schema's names (camelCase), the dynamic one the wire's.
    native = front_end.native
    node_count, recorded = ("nodeCount", "declaredInputs") if native else ("node_count", "declared_inputs")
    assert state["train"]["outputs"]["spec"]["resource"][node_count] == 2
    assert state["train"]["outputs"][recorded]["ciphertext"]

    # Right after up: nothing to change, and not a single API call (diff is judged on the state alone).
    before = emulator.stats()
    story.stack.preview("--expect-no-changes")
    assert emulator.stats() == before

    # refresh reads every job; a preview afterwards still finds nothing to change, though phases moved on.
    story.stack.refresh()
    refreshed = story.jobs_in_state()
    assert refreshed["evaluate"]["outputs"]["phase"] != "Creating"
    assert {n: r["id"] for n, r in refreshed.items()} == _outputs_by_id(outputs)
    story.stack.preview("--expect-no-changes")


@pytest.mark.parametrize("front_end", STORY_FRONT_ENDS)
def test_pull_request_description_updates_in_place_spec_changes_replace(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    story.declare({"docs": job_args("v1"), "scale": job_args("v1"), "image": job_args("v1")})
    story.stack.up()
    before = story.stack.outputs()

    # The pull request: a description edit (and what destroy does with that job), a node_count change, a new
    # image.
    story.declare(
        {
            "docs": job_args("v2: better words", on_destroy="delete"),
            "scale": job_args("v1", node_count=4),
            "image": job_args("v1", image="org/train:1.1"),
        }
    )
    previewed = story.stack.preview("--diff")
    diff = previewed.stdout
    # Property names as the stack's state holds them: the schema's for the native provider, else the wire's.
    node_count, image_url = ("nodeCount", "imageUrl") if front_end.native else ("node_count", "image_url")
    assert 'description: "v1" => "v2: better words"' in diff, diff
    on_destroy = "onDestroy" if front_end.native else "on_destroy"
    assert re.search(rf'\+ {on_destroy}\s*: "delete"', diff), diff  # an added setting, keys aligned
    assert f"{node_count}: 1 => 4" in diff, diff
    assert f'{image_url}: "org/train:1.0" => "org/train:1.1"' in diff, diff
    assert "1 to update" in diff and "+-2 to replace" in diff, diff
    assert "TrainingJob: (replace)" in diff, diff
    if front_end.native:  # the native diff marks each changed property itself
        assert '~ description: "v1" => "v2: better words"' in diff, diff
        assert '~ imageUrl: "org/train:1.0" => "org/train:1.1"' in diff, diff

    plan = json.loads(story.stack.preview("--json").stdout)
    steps = {s["urn"].rsplit("::", 1)[-1]: s for s in plan["steps"]}
    assert steps["docs"]["op"] == "update"
    # The native provider names the value that forces the new job; a dynamic provider can name only the
    # top-level property, and its progress line names the value.
    scale, image = (
        ("spec.resource.nodeCount", "algorithm.engine.imageUrl")
        if front_end.native
        else ("spec", "algorithm")
    )
    assert steps["scale"]["op"] == "replace" and steps["scale"]["replaceReasons"] == [scale]
    assert steps["image"]["op"] == "replace" and steps["image"]["replaceReasons"] == [image]
    if not front_end.native:
        said = progress_lines(previewed.stdout + previewed.stderr)
        assert any(
            re.search(r"training job scale-\w+ will be replaced: spec.resource.node_count changed$", line)
            for line in said
        ), said
        assert any(
            re.search(r"training job image-\w+ will be replaced: algorithm.engine.image_url changed$", line)
            for line in said
        ), said
    assert plan["changeSummary"] == {"update": 1, "replace": 2, "same": 1}

    up = story.stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    after = story.stack.outputs()
    with emulator_client(emulator) as client:
        # Update in place: the same job, new description.
        assert after["docs"]["id"] == before["docs"]["id"]
        docs = client.get_job(after["docs"]["id"])
        assert docs.metadata is not None and docs.metadata.description == "v2: better words"
        assert docs.phase in LIVE_PHASES
        # Replacement: a new job with the new spec; the old one was terminated.
        for name in ("scale", "image"):
            assert after[name]["id"] != before[name]["id"]
            old = client.get_job(before[name]["id"])
            assert old.phase in ("Terminating", "Terminated"), (name, old.phase)
            new = client.get_job(after[name]["id"])
            assert new.phase in LIVE_PHASES
        scale = client.get_job(after["scale"]["id"])
        assert scale.spec is not None and scale.spec.resource is not None
        assert scale.spec.resource.node_count == 4
        image = client.get_job(after["image"]["id"])
        assert image.algorithm is not None and image.algorithm.engine is not None
        assert image.algorithm.engine.image_url == "org/train:1.1"
        assert len(all_jobs(client)) == 5
    state = story.jobs_in_state()
    assert {n: r["id"] for n, r in state.items()} == _outputs_by_id(after)
    story.stack.preview("--expect-no-changes")


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_refresh_records_out_of_band_terminate_and_drops_deleted_jobs(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    story.declare({"kept": job_args(), "stopped": job_args(), "deleted": job_args()})
    story.stack.up()
    ids = _outputs_by_id(story.stack.outputs())

    with emulator_client(emulator) as client:
        client.terminate_job(ids["stopped"])
        wait_until(client, ids["stopped"], lambda job: job.phase == "Terminated")
    # The raw API, as another tool or the console would do it.
    response = httpx.delete(emulator.api_url(f"/training-jobs/{ids['deleted']}"), auth=emulator.auth())
    assert response.status_code == 202

    refresh = story.stack.refresh()
    assert_no_traceback(refresh.stdout, refresh.stderr)
    assert f"training job {ids['deleted']} no longer exists" in refresh.stdout + refresh.stderr
    state = story.jobs_in_state()
    assert set(state) == {"kept", "stopped"}
    assert state["stopped"]["outputs"]["phase"] == "Terminated"
    assert state["stopped"]["outputs"]["status"]["phase"] == "Terminated"
    assert state["stopped"]["id"] == ids["stopped"]
    assert state["kept"]["outputs"]["phase"] == "Running"


@pytest.mark.parametrize("front_end", STORY_FRONT_ENDS)
def test_a_job_failing_during_the_wait_fails_up_with_its_reason_and_is_not_left_running(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    failing = job_args(
        "will run out of memory",
        annotations={
            "emulator/running-seconds": "30",
            "emulator/fail-after-seconds": "0.3",
            "emulator/exit-code": "137",
            "emulator/failure-message": "CUDA out of memory",
        },
        wait_for="completed",
    )
    story.declare({"oom": failing})

    up = story.stack.up(check=False)
    text = up.stdout + up.stderr
    assert up.returncode != 0, text
    assert "ended Failed" in text, text
    assert "phase Failed" in text, text
    assert "exit code 137" in text, text
    assert "CUDA out of memory" in text, text
    assert "waiting for: completed" in text, text
    assert_no_traceback(up.stdout, up.stderr)
    assert any("Running after" in line for line in progress_lines(text, front_end)), text
    # The report quotes the job's last log lines and its error events, in the error's own words.
    assert "log lines of task worker-0:" in text and "| RuntimeError: CUDA out of memory" in text, text
    assert "recent error events" in text, text
    assert "Unexpected <class" not in text and emulator.secret_key not in text, text

    with emulator_client(emulator) as client:
        jobs = all_jobs(client)
    assert len(jobs) == 1
    assert jobs[0].phase not in LIVE_PHASES
    # A failed create leaves nothing in the state: the next up starts over.
    assert story.jobs_in_state() == {}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_destroy_stops_running_jobs_and_tolerates_completed_terminated_and_vanished_ones(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    jobs = {
        "running": job_args(),
        "queued": job_args(annotations={"emulator/stay-pending": "true"}),
        "finished": job_args(annotations={"emulator/running-seconds": "0.2"}, wait_for="completed"),
        "stopped": job_args(),
        "vanished": job_args(),
    }
    story.declare(jobs)
    story.stack.up()
    ids = _outputs_by_id(story.stack.outputs())
    # What destroy does with the running job, changed in place: the state only, not one call to ModelArts.
    emulator.reset_stats()
    story.declare({**jobs, "running": job_args(on_destroy="delete")})
    story.stack.up()
    assert emulator.stats()["requests"] == 0, emulator.stats()
    assert _outputs_by_id(story.stack.outputs()) == ids
    with emulator_client(emulator) as client:
        assert client.get_job(ids["finished"]).phase == "Completed"
        client.terminate_job(ids["stopped"])
        client.delete_job(ids["vanished"])
        emulator.reset_stats()

        destroy = story.stack.destroy()
        assert_no_traceback(destroy.stdout, destroy.stderr)
        # on_destroy: delete: stopped, then its record deleted; the others' records are kept.
        assert ids["running"] not in {job.job_id for job in all_jobs(client)}
        assert client.get_job(ids["queued"]).phase == "Terminated"
        assert client.get_job(ids["finished"]).phase == "Completed"
        assert client.get_job(ids["stopped"]).phase == "Terminated"
        assert not [job for job in all_jobs(client) if job.phase in LIVE_PHASES]
    # Only the two live jobs needed a terminate call; one record was deleted.
    assert emulator.stats()["by_operation"]["terminate"] == 2
    assert emulator.stats()["by_operation"]["delete"] == 1
    assert f"training job {ids['vanished']} is already gone" in destroy.stdout + destroy.stderr
    assert story.jobs_in_state() == {}


def _paths_containing(value: Any, needle: str, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _paths_containing(v, needle, f"{path}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _paths_containing(v, needle, f"{path}[{i}]")]
    return [path] if isinstance(value, str) and needle in value else []


@pytest.mark.parametrize("source", ["stack-config", "environment"])
def test_credentials_never_reach_state_or_outputs(tmp_path: Path, emulator_factory: Any, source: str) -> None:
    """For both front-ends at a time: a stack holding a job of each."""
    secret = "sk-" + tmp_path.name.replace("_", "") + "-Zq7"
    emu = emulator_factory(secret_key=secret, access_key="STORYAK0123456789")
    stack = both_stack(tmp_path, emu, credentials_in_env=source == "environment", name="story")
    if source == "stack-config":
        credentials_in_config(stack, emu, secret)
        stack_config = (stack.workdir / "Pulumi.test.yaml").read_text()
        assert "modelarts:secretKey" in stack_config and secret not in stack_config
    jobs = {f"train-{fe.name}": (fe, job_args(wait_for="running")) for fe in BOTH}
    declare(stack, jobs)

    up = stack.up()
    outputs = stack.outputs()
    with emulator_client(emu) as client:
        for job in jobs:
            assert client.get_job(outputs[job]["id"]).phase == "Running"
    # The secret is really in use: the emulator accepted requests signed with it, and refused none.
    assert emu.stats()["by_status"].get("401") is None

    texts = {
        "up output": up.stdout + up.stderr,
        "stack export": json.dumps(stack.export()),
        "stack output --show-secrets --json": stack.run("stack", "output", "--show-secrets", "--json").stdout,
    }
    backend = tmp_path / "state" / "backend"
    state_files = [p for p in backend.rglob("*") if p.is_file()]
    assert any(p.name == "test.json" for p in state_files), state_files
    for path in state_files:
        texts[f"state file {path.relative_to(backend)}"] = path.read_bytes().decode("utf-8", "replace")
    for where, text in texts.items():
        assert secret not in text, f"the secret key leaked into the {where}"

    # Decrypting every secret of the stack: the engine keeps the whole stack config as the inputs of the
    # dynamic provider's default provider resource (encrypted on disk, as checked above), so a secret set
    # with `pulumi config set --secret` shows there, exactly as `pulumi config get` would show it; the native
    # plugin's default provider resource holds its own package's config the same way, by bare key. Nowhere
    # else: not in the jobs' inputs or outputs, not in the stack outputs.
    exported = stack.export(show_secrets=True)["deployment"]["resources"]
    leaks = {(r["type"], path) for r in exported for path in _paths_containing(r, secret)}
    if source == "stack-config":
        assert leaks == {
            ("pulumi:providers:modelarts", "/inputs/secretKey/plaintext"),
            ("pulumi:providers:modelarts", "/outputs/secretKey/plaintext"),
            ("pulumi:providers:pulumi-python", "/inputs/modelarts:secretKey/plaintext"),
            ("pulumi:providers:pulumi-python", "/outputs/modelarts:secretKey/plaintext"),
        }
    else:
        assert leaks == set()
    # No other credential in the jobs or the stack outputs either (the providers hold the config, as above).
    owned = json.dumps([r for r in exported if not r["type"].startswith("pulumi:providers:")])
    for value in emu.provider_env().values():
        if len(value) >= 16 and not value.startswith("http"):
            assert value not in owned

    destroy = stack.destroy()
    assert secret not in destroy.stdout + destroy.stderr
    with emulator_client(emu) as client:
        for job in jobs:
            assert client.get_job(outputs[job]["id"]).phase == "Terminated"


@pytest.mark.parametrize("front_end", STORY_FRONT_ENDS)
def test_get_reads_an_existing_job_without_owning_it(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    from pulumi_modelarts.wire.models import validate_create_request

    request = validate_create_request(
        {
            "kind": "job",
            "metadata": {"name": "made-elsewhere", "annotations": {"emulator/running-seconds": "600"}},
            "algorithm": {"engine": {"image_url": "org/train:1.0"}, "command": "python train.py"},
            "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
        },
        require_name=True,
    )
    with emulator_client(emulator) as client:
        existing = create_job(client, request)
        assert existing.job_id is not None
        wait_until(client, existing.job_id, lambda job: job.phase == "Running")

    story = new_story(tmp_path, emulator, front_end=front_end)
    story.declare({}, existing={"imported": existing.job_id})
    story.stack.up()
    assert story.stack.outputs()["imported"] == {
        "id": existing.job_id,
        "name": "made-elsewhere",
        "phase": "Running",
    }
    [resource] = story.jobs_in_state().values()
    assert resource["external"] is True
    story.stack.preview("--expect-no-changes")

    # Read-only: destroy forgets the job but does not stop it.
    story.stack.destroy()
    with emulator_client(emulator) as client:
        assert client.get_job(existing.job_id).phase == "Running"


def _changes(preview: str) -> str:
    """The "Resources:" summary of a preview or refresh."""
    found = re.search(r"Resources:\n(.*?)(?:\n\n|\Z)", preview, re.S)
    return found.group(1) if found else preview


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_one_job_up_then_an_empty_preview_and_refresh_and_no_credential_in_the_state(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    """The smallest stack: nothing to say after up. (Its edits, replacement, out-of-band terminate and destroy
    are the pull-request, refresh and destroy stories above, for every front-end and language.)"""
    story = new_story(tmp_path, emulator, front_end=front_end)
    story.declare({"train": job_args(wait_for="running")})
    up = story.stack.up()
    # Native: the plugins block in Pulumi.yaml. Dynamic: the package says it is no provider SDK (its
    # pulumi-plugin.json), and the editable test install, whose file the language host cannot see, takes no
    # plugin from PATH (pulumi_cli.pulumi_env).
    assert "warning" not in up.stdout.lower() + up.stderr.lower(), up.stdout + up.stderr
    outputs = story.stack.outputs()
    job_id = outputs["train"]["id"]
    assert outputs["train"]["phase"] == "Running"
    with emulator_client(emulator) as client:
        assert [j.job_id for j in all_jobs(client) if j.phase in LIVE_PHASES] == [job_id]

    # No change: an empty preview; refresh finds no drift.
    preview = story.stack.preview("--diff")
    assert "2 unchanged" in preview.stdout and " to " not in _changes(preview.stdout), preview.stdout
    refresh = story.stack.refresh()
    assert "2 unchanged" in refresh.stdout and " to " not in _changes(refresh.stdout), refresh.stdout
    assert story.jobs_in_state()["train"]["id"] == job_id

    # No credential anywhere in the state, secrets opened.
    state = json.dumps(story.stack.export(show_secrets=True))
    for secret in emulator.provider_env().values():
        if len(secret) >= 16 and not secret.startswith("http"):
            assert secret not in state

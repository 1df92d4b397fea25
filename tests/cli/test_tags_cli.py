"""Tags through the real CLI, for each front-end: `up` with tags, a change of tags (an in-place update
sending only the difference), a tag changed elsewhere (refresh, then a preview showing a change of `tags` and
nothing else, and an `up` putting the declared tags back), and `destroy`; and `pulumi import` of a tagged job.
From TypeScript, Go and YAML programs, tags reach the service in the create story (test_story.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from .front_ends import FRONT_ENDS, NATIVE, FrontEnd
from .story import assert_no_traceback, emulator_client, job_args, new_story


def _job_step(preview_json: str, name: str) -> dict[str, Any]:
    steps = [s for s in json.loads(preview_json)["steps"] if s["urn"].endswith(f"::{name}")]
    assert len(steps) == 1, preview_json
    return dict(steps[0])


def _top(paths: Any) -> list[str]:
    """The top-level properties of property paths (tags.team, tags["cost-center"] -> tags)."""
    return sorted({re.split(r"[.\[]", path)[0] for path in paths})


def _changed_inputs(step: dict[str, Any]) -> list[str]:
    """The inputs a preview step changes: the provider's own list when it gives one (the native provider's
    detailed diff, one path per changed value), else the stored inputs against the new ones, as the engine
    shows them."""
    if "diffs" in step:
        return _top(step["diffs"])
    old, new = step["oldState"]["inputs"], step["newState"]["inputs"]
    return sorted(k for k in {*old, *new} if old.get(k) != new.get(k))


def _changes(emu: EmulatorProcess) -> list[tuple[str, dict[str, str]]]:
    return [(c["op"], {t["key"]: t["value"] for t in c["tags"]}) for c in emu.tag_changes()]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_tags_up_change_drift_destroy(tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    first = {"team": "nlp", "cost-center": "research-42", "owner": "ana"}
    story.declare({"train": job_args(tags=first)})
    up = story.stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    job_id = story.stack.outputs()["train"]["id"]
    state = story.jobs_in_state()["train"]
    assert state["outputs"]["tags"] == first
    with emulator_client(emulator) as client:
        assert client.get_tags(job_id) == first
    assert _changes(emulator) == [("create", first)]

    # A change of tags: an update in place (same id), and only the difference is sent.
    second = {"team": "nlp", "cost-center": "research-43", "project": "bert"}
    story.declare({"train": job_args(tags=second)})
    step = _job_step(story.stack.preview("--json").stdout, "train")
    assert step["op"] == "update" and _changed_inputs(step) == ["tags"]
    story.stack.up()
    assert story.stack.outputs()["train"]["id"] == job_id
    with emulator_client(emulator) as client:
        assert client.get_tags(job_id) == second
    assert _changes(emulator)[1:] == [
        ("delete", {"cost-center": "research-42", "owner": "ana"}),
        ("create", {"cost-center": "research-43", "project": "bert"}),
    ]
    story.stack.preview("--expect-no-changes")

    # Changed elsewhere (the console, another tool): refresh records it, and the next preview shows a change
    # of tags, nothing else; up puts the declared tags back with the difference only.
    with emulator_client(emulator) as client:
        client.add_tags(job_id, {"team": "vision"})
    refresh = story.stack.refresh()
    assert_no_traceback(refresh.stdout, refresh.stderr)
    assert story.jobs_in_state()["train"]["outputs"]["tags"] == {**second, "team": "vision"}
    step = _job_step(story.stack.preview("--json").stdout, "train")
    assert step["op"] == "update" and _changed_inputs(step) == ["tags"]
    if front_end.native:
        assert list(step["detailedDiff"]) == ["tags.team"]  # the one value changed elsewhere
    story.stack.up()
    with emulator_client(emulator) as client:
        assert client.get_tags(job_id) == second
    assert _changes(emulator)[-2:] == [("delete", {"team": "vision"}), ("create", {"team": "nlp"})]
    story.stack.preview("--expect-no-changes")

    destroy = story.stack.destroy()
    assert_no_traceback(destroy.stdout, destroy.stderr)
    assert story.jobs_in_state() == {}


def test_native_import_reads_the_tags(tmp_path: Path, emulator: EmulatorProcess) -> None:
    args = job_args(wait_for="running")
    tags = {"team": "nlp", "owner": "ana"}
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        body = {"kind": "job", **args, "metadata": {**args["metadata"], "name": "tagged-import"}}
        body.pop("wait_for")
        answer = http.post(emulator.api_url("/training-jobs"), json=body)
        job_id = answer.raise_for_status().json()["metadata"]["id"]
        wire_tags = [{"key": k, "value": v} for k, v in tags.items()]
        tagged = http.post(
            emulator.api_url(f"/modelarts-training-job/{job_id}/tags/create"), json={"tags": wire_tags}
        )
        assert tagged.status_code == 204
    story = new_story(tmp_path, emulator, front_end=NATIVE)
    story.declare({})
    story.stack.run(
        "import", NATIVE.type_token, "adopted", job_id, "--generate-code=false", "--protect=false", "--yes"
    )
    [resource] = story.jobs_in_state().values()
    assert resource["inputs"]["tags"] == tags and resource["outputs"]["tags"] == tags

    # The program declaring the same tags: nothing to do; another owner: an in-place change of tags only.
    declared = {**args, "metadata": {**args["metadata"], "name": "tagged-import"}}
    story.declare({"adopted": {**declared, "tags": tags}})
    story.stack.preview("--expect-no-changes")
    story.declare({"adopted": {**declared, "tags": {**tags, "owner": "li"}}})
    step = _job_step(story.stack.preview("--json").stdout, "adopted")
    assert step["op"] == "update" and list(step["detailedDiff"]) == ["tags.owner"]
    emulator.reset_stats()
    story.stack.up()
    with emulator_client(emulator) as client:
        assert client.get_tags(job_id) == {**tags, "owner": "li"}
    assert _changes(emulator)[-2:] == [("delete", {"owner": "ana"}), ("create", {"owner": "li"})]
    story.stack.destroy()


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_refused_tags_keep_the_job_in_the_state_and_the_next_preview_shows_them(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    # The service refuses to tag this job (as without the permission to tag).
    refused = job_args(annotations={"emulator/refuse-tags": "true"}, tags={"team": "nlp"})
    story.declare({"train": refused})
    up = story.stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    said = up.stdout + up.stderr
    assert "was created but its tags were not applied" in said, said
    assert "the job is kept, and the next `pulumi up` applies them" in said
    [resource] = story.jobs_in_state().values()
    job_id = resource["id"]
    assert resource["outputs"]["tags"] == {}
    with emulator_client(emulator) as client:
        assert client.get_job(job_id).phase in ("Creating", "Pending", "Running")
    # Nothing is orphaned, and what is missing is shown: the next preview is an update of the job (the
    # native provider names tags, and only tags; the dynamic one cannot name properties, and its stored
    # inputs hold the tags as the program declared them).
    step = _job_step(story.stack.preview("--json").stdout, "train")
    assert step["op"] == "update"
    if front_end.native:
        assert _top(step["detailedDiff"]) == ["tags"]
    # Still refused: that up fails, naming the tag call; the job stays in the state, untouched.
    again = story.stack.up(check=False)
    assert again.returncode != 0
    assert f"tag training job '{job_id}'" in again.stdout + again.stderr
    assert [r["id"] for r in story.jobs_in_state().values()] == [job_id]
    story.stack.destroy()
    assert story.jobs_in_state() == {}

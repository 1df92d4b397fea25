"""Tags through the real CLI, for each front-end: `up` with tags, a change of tags (an in-place update
sending only the difference), a tag changed elsewhere (refresh, then a preview showing a change of `tags` and
nothing else, and an `up` putting the declared tags back), a job whose tags the service refuses, and
`destroy`; and `pulumi import` of a tagged job. One stack carries every step, so each `up` and preview proves
several, and it holds both front-ends' jobs (each named for its front-end: both_front_ends.py), so each step
proves both.
From TypeScript, Go and YAML programs, tags reach the service in the create story (test_story.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from .both_front_ends import BOTH, both_stack, declare, jobs_in_state
from .front_ends import NATIVE
from .story import assert_no_traceback, emulator_client, job_args

pytestmark = pytest.mark.cli

LIVE_PHASES = ("Creating", "Pending", "Running")


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


def _changes(emu: EmulatorProcess, job_id: str | None = None) -> list[tuple[str, dict[str, str]]]:
    """The tag calls the service accepted (of one job, if given)."""
    return [
        (c["op"], {t["key"]: t["value"] for t in c["tags"]})
        for c in emu.tag_changes()
        if job_id is None or c["job_id"] == job_id
    ]


def _tagged_elsewhere(emulator: EmulatorProcess, tags: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """A job made and tagged outside Pulumi, and the arguments a program declares it with."""
    args = job_args(wait_for="running")
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
    return job_id, {**args, "metadata": {**args["metadata"], "name": "tagged-import"}}


def _said_of(text: str, job_id: str) -> str:
    """The lines of a run's output naming one job (progress lines name it "training job NAME (id ID)")."""
    return "\n".join(line for line in text.splitlines() if job_id in line)


def test_tags_up_change_drift_refused_destroy(tmp_path: Path, emulator: EmulatorProcess) -> None:
    """A job per front-end ("train-dynamic", "train-native") through every step; a job tagged elsewhere
    imported into the native front-end (`pulumi import` reads its tags) and given a new owner; then a job per
    front-end the service refuses to tag."""
    stack = both_stack(tmp_path, emulator)
    # `pulumi import` of a job tagged elsewhere reads its tags; the program declaring the same tags has
    # nothing to do for it (the preview below).
    imported_tags = {"team": "nlp", "owner": "ana"}
    imported_id, adopted = _tagged_elsewhere(emulator, imported_tags)
    stack.run(
        "import",
        NATIVE.type_token,
        "adopted",
        imported_id,
        "--generate-code=false",
        "--protect=false",
        "--yes",
    )
    resource = jobs_in_state(stack, NATIVE)["adopted"]
    assert resource["inputs"]["tags"] == imported_tags and resource["outputs"]["tags"] == imported_tags

    first = {"team": "nlp", "cost-center": "research-42", "owner": "ana"}
    declared = {f"train-{fe.name}": (fe, job_args(tags=first)) for fe in BOTH}
    declared["adopted"] = (NATIVE, {**adopted, "tags": imported_tags})
    declare(stack, declared)
    summary = json.loads(stack.preview("--json").stdout)["changeSummary"]
    assert {op: n for op, n in summary.items() if op != "same"} == {"create": 2}, summary
    up = stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    ids = {fe.name: stack.outputs()[f"train-{fe.name}"]["id"] for fe in BOTH}
    for fe in BOTH:
        job_id = ids[fe.name]
        assert jobs_in_state(stack, fe)[f"train-{fe.name}"]["outputs"]["tags"] == first
        with emulator_client(emulator) as client:
            assert client.get_tags(job_id) == first
        assert _changes(emulator, job_id) == [("create", first)]

    # A change of tags: an update in place (same id), and only the difference is sent; the imported job's
    # other owner likewise.
    second = {"team": "nlp", "cost-center": "research-43", "project": "bert"}
    declared.update({f"train-{fe.name}": (fe, job_args(tags=second)) for fe in BOTH})
    declared["adopted"] = (NATIVE, {**adopted, "tags": {**imported_tags, "owner": "li"}})
    declare(stack, declared)
    preview = stack.preview("--json").stdout
    for fe in BOTH:
        step = _job_step(preview, f"train-{fe.name}")
        assert step["op"] == "update" and _changed_inputs(step) == ["tags"]
    step = _job_step(preview, "adopted")
    assert step["op"] == "update" and list(step["detailedDiff"]) == ["tags.owner"]
    stack.up()
    for fe in BOTH:
        job_id = ids[fe.name]
        assert stack.outputs()[f"train-{fe.name}"]["id"] == job_id
        with emulator_client(emulator) as client:
            assert client.get_tags(job_id) == second
        assert _changes(emulator, job_id)[1:] == [
            ("delete", {"cost-center": "research-42", "owner": "ana"}),
            ("create", {"cost-center": "research-43", "project": "bert"}),
        ]
    with emulator_client(emulator) as client:
        assert client.get_tags(imported_id) == {**imported_tags, "owner": "li"}
    assert _changes(emulator, imported_id)[-2:] == [("delete", {"owner": "ana"}), ("create", {"owner": "li"})]
    stack.preview("--expect-no-changes")

    # Changed elsewhere (the console, another tool): refresh records it, and the next preview shows a change
    # of tags, nothing else; up puts the declared tags back with the difference only.
    with emulator_client(emulator) as client:
        for job_id in ids.values():
            client.add_tags(job_id, {"team": "vision"})
    refresh = stack.refresh()
    assert_no_traceback(refresh.stdout, refresh.stderr)
    for fe in BOTH:
        assert jobs_in_state(stack, fe)[f"train-{fe.name}"]["outputs"]["tags"] == {**second, "team": "vision"}
    # The same preview and up also meet a new job the service refuses to tag (as without the permission to
    # tag).
    for fe in BOTH:
        declared[f"refused-{fe.name}"] = (
            fe,
            job_args(annotations={"emulator/refuse-tags": "true"}, tags={"team": "nlp"}),
        )
    declare(stack, declared)
    preview = stack.preview("--json").stdout
    for fe in BOTH:
        step = _job_step(preview, f"train-{fe.name}")
        assert step["op"] == "update" and _changed_inputs(step) == ["tags"]
        if fe.native:
            assert list(step["detailedDiff"]) == ["tags.team"]  # the one value changed elsewhere
        assert _job_step(preview, f"refused-{fe.name}")["op"] == "create"
    up = stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    for fe in BOTH:
        job_id = ids[fe.name]
        with emulator_client(emulator) as client:
            assert client.get_tags(job_id) == second
        assert _changes(emulator, job_id)[-2:] == [
            ("delete", {"team": "vision"}),
            ("create", {"team": "nlp"}),
        ]
    # The imported job, not changed elsewhere, is left as it was.
    with emulator_client(emulator) as client:
        assert client.get_tags(imported_id) == {**imported_tags, "owner": "li"}
    assert _changes(emulator, imported_id)[-2:] == [("delete", {"owner": "ana"}), ("create", {"owner": "li"})]

    # The refused tags: each job is kept, and said so.
    said = up.stdout + up.stderr
    refused_ids = {}
    for fe in BOTH:
        resource = jobs_in_state(stack, fe)[f"refused-{fe.name}"]
        refused_ids[fe.name] = refused_id = resource["id"]
        assert "was created but its tags were not applied" in _said_of(said, refused_id), said
        assert "the job is kept, and the next `pulumi up` applies them" in _said_of(said, refused_id)
        assert resource["outputs"]["tags"] == {}
        with emulator_client(emulator) as client:
            assert client.get_job(refused_id).phase in LIVE_PHASES
    # Nothing is orphaned, and what is missing is shown: the next preview is an update of those jobs, and of
    # nothing else (the other jobs are as declared). The native provider names tags, and only tags; the
    # dynamic one cannot name properties, and its stored inputs hold the tags as the program declared them.
    preview = stack.preview("--json").stdout
    for fe in BOTH:
        step = _job_step(preview, f"refused-{fe.name}")
        assert step["op"] == "update"
        if fe.native:
            assert _top(step["detailedDiff"]) == ["tags"]
    summary = json.loads(preview)["changeSummary"]
    assert {op: n for op, n in summary.items() if op != "same"} == {"update": 2}, summary
    # Still refused: that up fails, naming the tag call; the jobs stay in the state, untouched. (With
    # --continue-on-error, one job's failure does not stop the engine before the other's update.)
    in_state = {fe.name: {name: r["id"] for name, r in jobs_in_state(stack, fe).items()} for fe in BOTH}
    again = stack.up("--continue-on-error", check=False)
    assert again.returncode != 0
    for fe in BOTH:
        assert f"tag training job '{refused_ids[fe.name]}'" in again.stdout + again.stderr
        assert {name: r["id"] for name, r in jobs_in_state(stack, fe).items()} == in_state[fe.name]

    destroy = stack.destroy()
    assert_no_traceback(destroy.stdout, destroy.stderr)
    for fe in BOTH:
        assert jobs_in_state(stack, fe) == {}

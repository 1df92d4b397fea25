"""One Python program, both front-ends: the same plain dicts (Python's snake_case at every level, also where
the wire spells camelCase) and typed Args go up on the dynamic provider and on the native Python SDK, and a
change previews alike on both. One stack holds both front-ends' jobs (each job's name starts with its
front-end's), so every command proves both.

The jobs: Terraform's debug-job affinity (``TestAccTrainingJob_debug_job``) as plain dicts and as typed Args,
and the create examples of the API page (tests/data/seed_examples), as a program would paste them.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import FRONT_ENDS, NATIVE, FrontEnd
from .pulumi_cli import new_stack

pytestmark = pytest.mark.cli

AFFINITY = "spec.schedule_policy.required_affinity.node_affinity"
SEED_EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "seed_examples"


def program() -> str:
    examples = {
        name: json.loads((SEED_EXAMPLES / f"create_request_{name}_003.json").read_text())
        for name in ("free_flavor", "custom_image")
    }
    for body in examples.values():
        body["metadata"].pop("name", None)  # auto-named, so two stacks never share a name
    # Each front-end declares the same four jobs, its resource names prefixed with its name.
    return textwrap.dedent(
        f"""
        import copy
        import os

        import pulumi
        import pulumi_modelarts
        import pulumi_modelarts_native

        # The change a preview is shown (ZONES, set for that preview only: no `pulumi config set` run).
        zones = (os.environ.get("ZONES") or "a,b").split(",")
        algorithm = {{"engine": {{"image_url": "org/debug:1.0"}}, "command": "sleep 3600"}}
        resource = {{"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}}
        for front_end, sdk in {{"dynamic": pulumi_modelarts, "native": pulumi_modelarts_native}}.items():
            affinity_args = sdk.TrainingJobNodeAffinityArgs
            term_args = sdk.TrainingJobNodeSelectorTermArgs
            requirement_args = sdk.TrainingJobNodeSelectorRequirementArgs
            sdk.TrainingJob(
                f"{{front_end}}-debug-plain",
                algorithm=algorithm,
                spec={{
                    "resource": resource,
                    "schedule_policy": {{"required_affinity": {{"node_affinity": {{"node_selector_terms": [
                        {{"match_expressions": [{{"key": "zone", "operator": "In", "values": zones}}]}},
                        {{"match_fields": [{{"key": "gpus", "operator": "Gt", "values": ["3"]}}]}},
                    ]}}}}}},
                }},
                wait_for="none",
            )
            sdk.TrainingJob(
                f"{{front_end}}-debug-typed",
                algorithm=algorithm,
                spec={{
                    "resource": resource,
                    "schedule_policy": {{"required_affinity": {{"node_affinity": affinity_args(
                        node_selector_terms=[
                            term_args(match_expressions=[
                                requirement_args(key="zone", operator="In", values=zones),
                            ]),
                        ],
                    )}}}},
                }},
                wait_for="none",
            )
            for name, body in {examples!r}.items():
                job = f"{{front_end}}-" + name.replace("_", "-")
                sdk.TrainingJob(job, wait_for="none", **copy.deepcopy(body))
        """
    )


def changes(output: str) -> dict[str, list[str]]:
    """What `preview --diff` says changes, per job: its step (update, replace) and each value changed, as
    `path: old => new` with the path in Python's spelling (the native SDK shows the schema's camelCase, the
    dynamic provider the keys it stores). A new auto-name is left out: the dynamic provider shows every
    input, its name among them, the native one only what its diff names."""
    found: dict[str, list[str]] = {}
    job: list[str] = []
    within: list[tuple[int, str]] = []  # the changed objects and lists the next line is inside, by indent
    for line in output.splitlines():
        step = re.search(r"TrainingJob: \((update|replace)\)", line)
        if step:
            job, within = [step.group(1)], []
            continue
        urn = re.search(r"\[urn=.*TrainingJob::(.+)\]", line)
        if urn and job:
            found[urn.group(1)] = job
            continue
        marked = re.match(r"(\s*)~\s*(\[\d+\]|[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$", line)
        if not (marked and job):
            continue
        indent, key, rest = len(marked.group(1)), _snake(marked.group(2)), marked.group(3)
        within = [(i, k) for i, k in within if i < indent]
        if "=>" in rest:
            path = ".".join(k for _, k in within) + f".{key}"
            if key != "name":
                job.append(f"{path.replace('.[', '[')}: {rest}")
        else:
            within.append((indent, key))
    return found


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def test_one_program_goes_up_on_both_front_ends_and_a_change_previews_alike(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    """One stack holds each front-end's jobs: it goes up, previews and refreshes with no changes, then
    previews the same change to each front-end's jobs; what the two show of it is the same."""
    emu = emulator_factory()
    # The program imports both front-ends; the plugins block is the native one's.
    env = emulator_env(emu, "0.05")
    stack = new_stack(tmp_path / "prog", tmp_path, "rel", program(), env, project_yaml=NATIVE.project_yaml())
    stack.up()
    for param in FRONT_ENDS:
        front_end: FrontEnd = param.values[0]  # type: ignore[assignment]
        jobs = [r for r in stack.export()["deployment"]["resources"] if front_end.is_job(r)]
        assert len(jobs) == 4
        for job in jobs:
            if job["urn"].endswith(f"::{front_end.name}-debug-plain"):
                # The state holds the wire's spelling (the dynamic provider's) or the schema's (the native
                # one's), whichever the program used.
                policy = job["inputs"]["spec"]["schedulePolicy" if front_end.native else "schedule_policy"]
                affinity = (
                    policy["requiredAffinity"]["nodeAffinity"]
                    if front_end.native
                    else (policy["required_affinity"]["node_affinity"])
                )
                assert [*affinity] == ["nodeSelectorTerms"]
    stack.preview("--expect-no-changes")
    stack.refresh("--expect-no-changes")
    stack.preview("--expect-no-changes")
    found = changes(stack.run("preview", "--diff", ZONES="a,c").stdout)
    shown: dict[str, dict[str, list[str]]] = {"dynamic": {}, "native": {}}
    for name, change in found.items():
        front_end_name, _, job = name.partition("-")
        shown[front_end_name][job] = change
    assert shown["dynamic"] == shown["native"]
    assert shown["dynamic"] == {
        job: ["replace", f'{AFFINITY}.node_selector_terms[0].match_expressions[0].values[1]: "b" => "c"']
        for job in ("debug-plain", "debug-typed")
    }

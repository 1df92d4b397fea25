"""One Python program, both front-ends: the same plain dicts (Python's snake_case at every level, also where
the wire spells camelCase) and typed Args go up on the dynamic provider and on the native Python SDK, and a
change previews alike on both.

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

from .cli_helpers import make_stack
from .front_ends import FRONT_ENDS, FrontEnd

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
    return textwrap.dedent(
        f"""
        import pulumi
        from pulumi_modelarts import (
            TrainingJob, TrainingJobNodeAffinityArgs, TrainingJobNodeSelectorRequirementArgs,
            TrainingJobNodeSelectorTermArgs,
        )

        config = pulumi.Config()
        zones = (config.get("zones") or "a,b").split(",")
        algorithm = {{"engine": {{"image_url": "org/debug:1.0"}}, "command": "sleep 3600"}}
        resource = {{"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}}
        TrainingJob(
            "debug-plain",
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
        TrainingJob(
            "debug-typed",
            algorithm=algorithm,
            spec={{
                "resource": resource,
                "schedule_policy": {{"required_affinity": {{"node_affinity": TrainingJobNodeAffinityArgs(
                    node_selector_terms=[
                        TrainingJobNodeSelectorTermArgs(match_expressions=[
                            TrainingJobNodeSelectorRequirementArgs(key="zone", operator="In", values=zones),
                        ]),
                    ],
                )}}}},
            }},
            wait_for="none",
        )
        for name, body in {examples!r}.items():
            TrainingJob(name.replace("_", "-"), wait_for="none", **body)
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


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_one_program_goes_up_on_both_front_ends(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    emu = emulator_factory()
    stack = make_stack(tmp_path, emu, program(), name="one", front_end=front_end)
    stack.up()
    jobs = [r for r in stack.export()["deployment"]["resources"] if front_end.is_job(r)]
    assert len(jobs) == 4
    for job in jobs:
        if job["urn"].endswith("::debug-plain"):
            # The state holds the wire's spelling (the dynamic provider's) or the schema's (the native one's),
            # whichever the program used.
            policy = job["inputs"]["spec"]["schedulePolicy" if front_end.native else "schedule_policy"]
            affinity = policy["requiredAffinity"]["nodeAffinity"] if front_end.native else (
                policy["required_affinity"]["node_affinity"]
            )
            assert [*affinity] == ["nodeSelectorTerms"]
    stack.preview("--expect-no-changes")
    stack.refresh("--expect-no-changes")
    stack.preview("--expect-no-changes")
    stack.destroy()


def test_a_change_previews_alike_on_both_front_ends(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory()
    shown: dict[str, dict[str, list[str]]] = {}
    for param in FRONT_ENDS:
        front_end: FrontEnd = param.values[0]  # type: ignore[assignment]
        stack = make_stack(tmp_path / front_end.name, emu, program(), name="alike", front_end=front_end)
        stack.up()
        stack.config("zones", "a,c")
        preview = stack.preview("--diff")
        shown[front_end.name] = changes(preview.stdout)
        stack.destroy()
    assert shown["dynamic"] == shown["native"]
    assert shown["dynamic"] == {
        job: ["replace", f'{AFFINITY}.node_selector_terms[0].match_expressions[0].values[1]: "b" => "c"']
        for job in ("debug-plain", "debug-typed")
    }

"""What only a YAML program does with the native plugin: `getTrainingJobs` through `fn::invoke`.

The story (test_story.py), import and a failed job's report run in YAML too (front_ends.YAML, marked
`languages`); here, the lookup and the ordering quirk docs/_index.md documents: Pulumi YAML v1.25.0 (the host
set-up builds) makes a plain invoke with `options: dependsOn`, which does not wait for the resources named, so
such a lookup runs before the job exists; an argument taken from the job (its name) orders the two.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .front_ends import YAML
from .languages import schema_args, yaml_program
from .story import LIVE_PHASES, all_jobs, emulator_client, job_args, new_story

pytestmark = [pytest.mark.cli, pytest.mark.languages]

LOOKUPS = """\
variables:
  # The work-around: an argument from the job orders the lookup after it.
  byName:
    fn::invoke:
      function: modelarts:index:getTrainingJobs
      arguments:
        name: ${train.name}
        phases: [Running]
      return: jobs
  # The quirk: dependsOn alone does not (pulumi-yaml v1.25.0).
  afterDependsOn:
    fn::invoke:
      function: modelarts:index:getTrainingJobs
      arguments:
        phases: [Running]
      options:
        dependsOn:
          - ${train}
      return: jobs
"""

OUTPUTS = """\
  byName:
    fn::toJSON: ${byName}
  afterDependsOn:
    fn::toJSON: ${afterDependsOn}
"""


def test_get_training_jobs_through_fn_invoke_and_the_depends_on_quirk(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    # Some seconds in Pending: a lookup that did not wait for the job cannot find it Running.
    emulator = emulator_factory(pending_seconds=2, running_seconds=600)
    story = new_story(tmp_path, emulator, front_end=YAML)
    program = yaml_program({"train": schema_args(job_args(wait_for="running"))}, {})
    assert program.endswith("    phase: ${train.phase}\n"), program
    # The lookups before the outputs section, their answers at its end.
    program = program.replace("\noutputs:\n", "\n" + LOOKUPS + "outputs:\n") + OUTPUTS
    (story.workdir / "Main.yaml").write_text(program)

    story.stack.up()
    outputs = story.stack.outputs()
    job_id = outputs["train"]["id"]
    assert outputs["train"]["phase"] == "Running"
    by_name = json.loads(outputs["byName"])
    assert [(j["metadata"]["id"], j["status"]["phase"]) for j in by_name] == [(job_id, "Running")]
    assert by_name[0]["spec"]["resource"]["nodeCount"] == 1  # the schema's (camelCase) names
    # If a newer pulumi-yaml waits here, drop the quirk from docs/_index.md and this assertion.
    assert json.loads(outputs["afterDependsOn"]) == [], "pulumi-yaml now honours dependsOn on fn::invoke"

    story.stack.destroy()
    with emulator_client(emulator) as client:
        assert [j for j in all_jobs(client) if j.phase in LIVE_PHASES] == []

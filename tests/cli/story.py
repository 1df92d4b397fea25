"""Helpers for the used-by story: a Pulumi program whose jobs come from a jobs.json file next to it.

A test writes jobs.json, runs the real `pulumi` CLI, rewrites jobs.json (the "pull request"), runs it again,
and looks at the emulator (through the client or the raw API) and at the state (`pulumi stack export`).
The same project serves every front-end (`new_story(..., front_end=...)`, see front_ends.py), the TypeScript,
Go and YAML ones with their own program (languages.py) declaring what the same jobs.json declares.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.models import TrainingJob as WireJob
from pulumi_modelarts.wire.transport import Transport

from ..support import emulator_env, poll
from . import languages
from .front_ends import DYNAMIC, FrontEnd
from .pulumi_cli import Stack, new_stack, pulumi_env

# Every job in jobs.json becomes a TrainingJob exporting {id, name, phase}; every entry of "existing" is
# looked up read-only with TrainingJob.get and exported the same way.
PROGRAM = '''\
"""Jobs declared in jobs.json (the CLI tests rewrite it between runs)."""

import json
from pathlib import Path

import pulumi

from pulumi_modelarts import TrainingJob

declared = json.loads((Path(__file__).parent / "jobs.json").read_text())


def export(name, job):
    pulumi.export(name, {"id": job.id, "name": job.name, "phase": job.phase})


for name, args in declared.get("jobs", {}).items():
    # "custom_timeouts": {"create"|"update"|"delete": timeout} (the native provider honours them)
    timeouts = args.pop("custom_timeouts", None)
    opts = pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(**timeouts)) if timeouts else None
    export(name, TrainingJob(name, **args, opts=opts))
for name, job_id in declared.get("existing", {}).items():
    export(name, TrainingJob.get(name, job_id))
'''

POLL_ENV = {"PULUMI_MODELARTS_POLL_SECONDS": "0.05"}
LIVE_PHASES = ("Creating", "Pending", "Running")


def job_args(
    description: str = "nightly training",
    *,
    image: str = "org/train:1.0",
    node_count: int = 1,
    data_url: str = "/bucket/data/v1/",
    annotations: Mapping[str, str] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """TrainingJob arguments: a custom-image job with one OBS input, running 10 minutes by default."""
    return {
        "metadata": {
            "description": description,
            "annotations": {"emulator/running-seconds": "600", **(annotations or {})},
        },
        "algorithm": {
            "engine": {"image_url": image},
            "command": "python train.py",
            "inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": data_url}}}],
            "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": "/bucket/models/"}}}],
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.pnt1.large.eco", "node_count": node_count}},
        **settings,
    }


def emulator_client(emu: EmulatorProcess) -> ModelArtsAPI:
    return ModelArtsAPI(Transport(endpoint=emu.url, project_id=emu.project_id, auth=emu.auth(), timeout=10))


@dataclass
class StoryStack:
    stack: Stack
    workdir: Path
    front_end: FrontEnd = DYNAMIC

    def declare(self, jobs: Mapping[str, Any], existing: Mapping[str, str] | None = None) -> None:
        """Write jobs.json (jobs given with the wire names; the other languages take the schema's names)."""
        declared = dict(jobs)
        if self.front_end.language != "python":
            declared = {name: languages.schema_args(args) for name, args in jobs.items()}
        payload = {"jobs": declared, "existing": dict(existing or {})}
        (self.workdir / "jobs.json").write_text(json.dumps(payload, indent=2))
        if self.front_end.language == "yaml":  # the program is the declaration
            (self.workdir / "Main.yaml").write_text(languages.yaml_program(declared, payload["existing"]))

    def jobs_in_state(self, *, show_secrets: bool = False) -> dict[str, dict[str, Any]]:
        """TrainingJob resources in the state, by resource name."""
        deployment = self.stack.export(show_secrets=show_secrets)["deployment"]
        return {
            r["urn"].rsplit("::", 1)[-1]: r
            for r in deployment.get("resources", [])
            if self.front_end.is_job(r)
        }


def credentials_in_config(stack: Stack, emu: EmulatorProcess, secret_key: str) -> None:
    """The emulator's endpoint, project and credentials as stack config, the secret key set with --secret (the
    story's stacks otherwise take them from the environment: new_story(credentials_in_env=False))."""
    stack.config_all(
        {
            "modelarts:endpoint": emu.url,
            "modelarts:projectId": emu.project_id,
            "modelarts:accessKey": emu.access_key,
        },
        {"modelarts:secretKey": secret_key},
    )


def new_story(
    tmp_path: Path,
    emu: EmulatorProcess,
    *,
    credentials_in_env: bool = True,
    name: str = "story",
    front_end: FrontEnd = DYNAMIC,
) -> StoryStack:
    """The story's project for the given front-end (its program, and for the native one the plugins block)."""
    workdir = tmp_path / "project"
    extra = {**POLL_ENV, **(emulator_env(emu) if credentials_in_env else {})}
    if front_end.language == "python":
        stack = new_stack(
            workdir,
            tmp_path / "state",
            name,
            front_end.program(PROGRAM),
            extra,
            project_yaml=front_end.project_yaml(),
        )
    else:
        workdir.mkdir(parents=True)
        runtime = {"go": languages.GO_RUNTIME, "nodejs": languages.TS_RUNTIME}.get(
            front_end.language, f"runtime: {front_end.language}\n"
        )
        (workdir / "Pulumi.yaml").write_text(f"name: {name}\n{runtime}{front_end.project_yaml()}")
        if front_end.language == "nodejs":
            languages.write_typescript_project(workdir, languages.node_modules(languages.session_cache()))
        elif front_end.language == "yaml":
            languages.write_yaml_project(workdir)
        else:
            languages.write_go_project(workdir, languages.go_module(languages.session_cache()))
            extra.update(languages.GO_ENV)
        stack = Stack(workdir, tmp_path / "state", env=pulumi_env(tmp_path / "state", extra)).init()
    story = StoryStack(stack, workdir, front_end)
    story.declare({})
    return story


def wait_until(
    client: ModelArtsAPI, job_id: str, check: Callable[[WireJob], bool], timeout: float = 10
) -> WireJob:
    return poll(lambda: client.get_job(job_id), check, timeout=timeout, what=f"job {job_id}")


def all_jobs(client: ModelArtsAPI) -> list[WireJob]:
    return list(client.iter_jobs())


def assert_no_traceback(*texts: str) -> None:
    """No Python traceback of the program or the provider. A failed job's own log, quoted line by line
    ("| ...") in the failure report, may hold the training code's traceback: that one is the explanation."""
    for text in texts:
        unquoted = [line for line in text.splitlines() if not line.lstrip().startswith("| ")]
        assert "Traceback (most recent call last)" not in "\n".join(unquoted), text


def progress_lines(text: str, front_end: FrontEnd = DYNAMIC) -> list[str]:
    """The provider's progress lines as the CLI shows them (see FrontEnd.progress_lines)."""
    return front_end.progress_lines(text)

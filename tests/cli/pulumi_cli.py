"""Drive the real `pulumi` CLI against a throwaway local state backend.

Everything runs offline: a file backend in a temporary directory, a private PULUMI_HOME, no update
checks and no plugin downloads. The CLI, the Python language host and the dynamic-provider plugin come
from `.tools/bin` (built by scripts/setup) or from PATH.

What a test reads of a stack's state (``Stack.export``, ``Stack.outputs``, ``Stack.resources``) comes from the
local backend's checkpoint file, which is what `pulumi stack export` prints (tests/cli/test_state_reads.py
holds the two to each other); a read that shows secrets decrypted goes through the CLI. A new stack is a copy
of one `pulumi stack init` made once per process for its project and stack name. Every `pulumi` process the
tests start goes through ``pulumi_argv``, which counts it (``RUNS_FILE``: one line per run, for the summary
at the end of a pytest run).
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TOOLS_BIN = REPO / ".tools" / "bin"
PASSPHRASE = "cli-tests"
# Where each pulumi process started through pulumi_argv is counted, when set: one line per run (the test,
# then the command), appended by any process, bench/ and tests' subprocesses included.
RUNS_FILE_ENV = "PULUMI_MODELARTS_TEST_RUNS_FILE"
# What `pulumi stack output` shows for a secret value, and how the state marks one.
SECRET_SHOWN = "[secret]"
SECRET_SIG = "4dabf18193072939515e22adb298388d"


def pulumi_env(state_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([str(TOOLS_BIN), venv_bin, env.get("PATH", "")])
    env.update(
        {
            "PULUMI_PYTHON_CMD": sys.executable,
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            # As scripts/env.sh: no plugin from PATH (see there why the editable install needs it).
            "PULUMI_IGNORE_AMBIENT_PLUGINS": "true",
            "PULUMI_BACKEND_URL": f"file://{state_dir / 'backend'}",
            "PULUMI_HOME": str(state_dir / "home"),
            "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
            "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK": "true",
            "NO_COLOR": "1",
        }
    )
    # Credentials and endpoints come only from what a test passes in.
    for name in list(env):
        if name.startswith(("HW_", "HUAWEICLOUD_SDK_")):
            del env[name]
    env.update(extra or {})
    return env


def find_pulumi() -> str:
    path = shutil.which("pulumi", path=os.pathsep.join([str(TOOLS_BIN), os.environ.get("PATH", "")]))
    if path is None:
        raise RuntimeError("no pulumi CLI found: run scripts/setup first (it builds one into .tools/bin)")
    return path


def pulumi_argv(*args: str) -> list[str]:
    """The command line of one pulumi process, counted (RUNS_FILE_ENV)."""
    runs_file = os.environ.get(RUNS_FILE_ENV)
    if runs_file:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
        with open(runs_file, "a", encoding="utf-8") as runs:
            runs.write(f"{test}\t{' '.join(args[:2])}\n")
    return [find_pulumi(), *args]


def project_name(workdir: Path) -> str:
    found = re.search(r"^name:\s*(\S+)", (workdir / "Pulumi.yaml").read_text(), re.MULTILINE)
    assert found, f"{workdir / 'Pulumi.yaml'} names no project"
    return found.group(1)


def shown(value: Any) -> Any:
    """A state value as `pulumi stack output --json` shows it: each secret as "[secret]"."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG) is not None:
            return SECRET_SHOWN
        return {k: shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shown(v) for v in value]
    return value


_TEMPLATES: Path | None = None


# A directory the run's processes share for the templates (tests/conftest.py sets it): one `pulumi stack init`
# per project and stack name in a run, not one in each worker. Without it, a directory of this process's own.
TEMPLATES_ENV = "PULUMI_MODELARTS_TEST_STACK_TEMPLATES"


def _templates() -> Path:
    global _TEMPLATES
    if _TEMPLATES is None:
        shared = os.environ.get(TEMPLATES_ENV)
        if shared:
            _TEMPLATES = Path(shared)
            _TEMPLATES.mkdir(parents=True, exist_ok=True)
        else:
            _TEMPLATES = Path(tempfile.mkdtemp(prefix="pulumi-stack-templates-"))
            atexit.register(shutil.rmtree, _TEMPLATES, True)
    return _TEMPLATES


def _stack_template(project: str, stack: str, env: Mapping[str, str]) -> Path:
    """A backend and stack settings file holding a new stack of this project and name, as `pulumi stack init`
    made them (once per run or process, for each project, stack name and passphrase)."""
    key = hashlib.sha256(f"{project}\0{stack}\0{env.get('PULUMI_CONFIG_PASSPHRASE')}".encode()).hexdigest()
    template = _templates() / key[:16]
    if (template / "done").exists():
        return template
    with open(_templates() / f"{key[:16]}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (template / "done").exists():
            shutil.rmtree(template, ignore_errors=True)
            (template / "project").mkdir(parents=True)
            (template / "project" / "Pulumi.yaml").write_text(f"name: {project}\nruntime: python\n")
            (template / "backend").mkdir()
            made = Stack(
                template / "project",
                template,
                stack,
                {
                    **env,
                    "PULUMI_BACKEND_URL": f"file://{template / 'backend'}",
                    "PULUMI_HOME": str(template / "home"),
                },
            )
            made.run("stack", "init", stack)
            (template / "done").touch()
    return template


@dataclass
class Stack:
    """One Pulumi project directory with one stack in a private backend."""

    workdir: Path
    state_dir: Path
    name: str = "test"
    env: dict[str, str] = field(default_factory=dict)

    def run(
        self, *args: str, check: bool = True, timeout: float = 600, **env: str
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            pulumi_argv(*args, "--non-interactive"),
            cwd=self.workdir,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"pulumi {' '.join(args)} exited {proc.returncode}\n"
                f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
            )
        return proc

    @property
    def backend(self) -> Path:
        url = self.env.get("PULUMI_BACKEND_URL", "")
        assert url.startswith("file://"), f"not a local backend: {url!r}"
        return Path(url.removeprefix("file://"))

    def init(self) -> Stack:
        """The stack, new and selected: what `pulumi stack init` leaves, copied from a stack it made."""
        project = project_name(self.workdir)
        template = _stack_template(project, self.name, self.env)
        shutil.copytree(template / "backend", self.backend, dirs_exist_ok=True)
        settings = f"Pulumi.{self.name}.yaml"
        shutil.copy(template / "project" / settings, self.workdir / settings)
        # The stack selected for this project directory (the workspace file `pulumi stack init` writes).
        home = Path(self.env["PULUMI_HOME"]) / "workspaces"
        home.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(str(self.workdir / "Pulumi.yaml").encode()).hexdigest()
        selected = {"stacks": {self.env["PULUMI_BACKEND_URL"]: f"organization/{project}/{self.name}"}}
        (home / f"{project}-{digest}-workspace.json").write_text(json.dumps(selected, indent=4))
        return self

    def config(self, key: str, value: str, *, secret: bool = False) -> None:
        self.run("config", "set", key, value, *(["--secret"] if secret else []))

    def config_all(self, plain: Mapping[str, str], secret: Mapping[str, str] | None = None) -> None:
        """Several config values in one `pulumi config set-all` (plain ones with --plaintext)."""
        args = [f"--plaintext={k}={v}" for k, v in plain.items()]
        args += [f"--secret={k}={v}" for k, v in (secret or {}).items()]
        self.run("config", "set-all", *args)

    def up(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("up", "--yes", "--skip-preview", *args, check=check)

    def preview(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("preview", *args, check=check)

    def refresh(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("refresh", "--yes", "--skip-preview", *args, check=check)

    def destroy(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("destroy", "--yes", "--skip-preview", *args, check=check)

    def checkpoint(self) -> dict[str, Any]:
        """The stack's checkpoint file in the local backend, as the last command left it."""
        stacks = self.backend / ".pulumi" / "stacks" / project_name(self.workdir)
        result: dict[str, Any] = json.loads((stacks / f"{self.name}.json").read_text())
        return result

    def outputs(self, *, show_secrets: bool = False) -> dict[str, Any]:
        """The stack's outputs, as `pulumi stack output --json` shows them (secrets as "[secret]"); with
        show_secrets, `pulumi stack output --json --show-secrets` itself."""
        if show_secrets:
            return self.cli_outputs(show_secrets=True)
        latest = self.checkpoint()["checkpoint"].get("latest") or {}
        stack = [r for r in latest.get("resources") or [] if r["type"] == "pulumi:pulumi:Stack"]
        result: dict[str, Any] = shown(stack[0].get("outputs") or {}) if stack else {}
        return result

    def export(self, *, show_secrets: bool = False) -> dict[str, Any]:
        """What `pulumi stack export` prints (secrets encrypted); with show_secrets, `pulumi stack export
        --show-secrets` itself."""
        if show_secrets:
            return self.cli_export(show_secrets=True)
        checkpoint = self.checkpoint()
        return {"version": checkpoint["version"], "deployment": checkpoint["checkpoint"]["latest"]}

    def cli_outputs(self, *, show_secrets: bool = False) -> dict[str, Any]:
        args = ["stack", "output", "--json", *(["--show-secrets"] if show_secrets else [])]
        result: dict[str, Any] = json.loads(self.run(*args).stdout)
        return result

    def cli_export(self, *, show_secrets: bool = False) -> dict[str, Any]:
        args = ["stack", "export", *(["--show-secrets"] if show_secrets else [])]
        result: dict[str, Any] = json.loads(self.run(*args).stdout)
        return result

    def resources(self, type_suffix: str = "dynamic:Resource") -> list[dict[str, Any]]:
        deployment = self.export()["deployment"]
        return [r for r in deployment.get("resources", []) if r["type"].endswith(type_suffix)]


def write_project(workdir: Path, name: str, program: str, project_yaml: str = "") -> None:
    """A Python project: Pulumi.yaml (plus project_yaml, e.g. a plugins section) and its __main__.py."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n{project_yaml}")
    (workdir / "__main__.py").write_text(program)


def new_stack(
    workdir: Path,
    state_dir: Path,
    name: str,
    program: str,
    extra_env: Mapping[str, str] | None = None,
    *,
    project_yaml: str = "",
) -> Stack:
    """A project written to workdir, with a new stack in a private backend under state_dir."""
    write_project(workdir, name, program, project_yaml)
    return Stack(workdir, state_dir, env=pulumi_env(state_dir, extra_env)).init()

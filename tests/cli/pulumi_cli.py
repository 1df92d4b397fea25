"""Drive the real `pulumi` CLI against a throwaway local state backend.

Everything runs offline: a file backend in a temporary directory, a private PULUMI_HOME, no update
checks and no plugin downloads. The CLI, the Python language host and the dynamic-provider plugin come
from `.tools/bin` (built by scripts/setup) or from PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TOOLS_BIN = REPO / ".tools" / "bin"
PASSPHRASE = "cli-tests"


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
            [find_pulumi(), *args, "--non-interactive"],
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

    def init(self) -> Stack:
        (self.state_dir / "backend").mkdir(parents=True, exist_ok=True)
        self.run("stack", "init", self.name)
        return self

    def config(self, key: str, value: str, *, secret: bool = False) -> None:
        self.run("config", "set", key, value, *(["--secret"] if secret else []))

    def up(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("up", "--yes", "--skip-preview", *args, check=check)

    def preview(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("preview", *args, check=check)

    def refresh(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("refresh", "--yes", "--skip-preview", *args, check=check)

    def destroy(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("destroy", "--yes", "--skip-preview", *args, check=check)

    def outputs(self, *, show_secrets: bool = False) -> dict[str, Any]:
        args = ["stack", "output", "--json", *(["--show-secrets"] if show_secrets else [])]
        result: dict[str, Any] = json.loads(self.run(*args).stdout)
        return result

    def export(self, *, show_secrets: bool = False) -> dict[str, Any]:
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

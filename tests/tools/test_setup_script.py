"""scripts/setup uses a Pulumi of the right version already on PATH, and builds its own otherwise."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..cli.pulumi_cli import REPO, TOOLS_BIN

pytestmark = pytest.mark.cli


def _sandbox(tmp_path: Path) -> Path:
    """A copy of what set-up reads, with .venv pointing at this test run's (already set up) environment."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "scripts", root / "scripts")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copy(REPO / "constraints.txt", root / "constraints.txt")
    (root / "emulator").mkdir()
    shutil.copy(REPO / "emulator" / "pyproject.toml", root / "emulator" / "pyproject.toml")
    (root / ".venv").mkdir()
    (root / ".venv" / "bin").symlink_to(REPO / ".venv" / "bin")
    stamped = b"".join(
        (root / name).read_bytes()
        for name in ("pyproject.toml", "emulator/pyproject.toml", "constraints.txt")
    )
    digest = hashlib.sha256(stamped).hexdigest()
    (root / ".venv" / ".setup-stamp").write_text(digest + "\n")
    return root


def _run_setup(root: Path, path_dirs: list[Path]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    # Only the given directories, Python and Go: no other pulumi can be found.
    go = shutil.which("go")
    assert go, "Go is needed to build the CLI"
    tools = [str(Path(sys.executable).parent), str(Path(go).parent), "/usr/bin", "/bin"]
    env["PATH"] = os.pathsep.join([*map(str, path_dirs), *tools])
    return subprocess.run(
        ["bash", "scripts/setup"], cwd=root, env=env, capture_output=True, text=True, timeout=900, check=True
    )


def test_a_matching_pulumi_on_path_is_used_as_it_is(tmp_path: Path) -> None:
    on_path = tmp_path / "installed"
    on_path.mkdir()
    for tool in TOOLS_BIN.iterdir():
        (on_path / tool.name).symlink_to(tool)
    root = _sandbox(tmp_path)
    result = _run_setup(root, [on_path])
    assert f"using Pulumi v{_pinned()} from PATH ({on_path / 'pulumi'})" in result.stderr
    assert not (root / ".tools").exists()


def test_a_pulumi_of_another_version_is_not_used(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    for name in ("pulumi", "pulumi-language-python"):
        script = other / name
        script.write_text("#!/bin/sh\necho v3.100.0\n")
        script.chmod(0o755)
    root = _sandbox(tmp_path)
    result = _run_setup(root, [other])
    assert "building pulumi" in result.stderr
    built = subprocess.run(
        [str(root / ".tools" / "bin" / "pulumi"), "version"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"},
    )
    assert built.stdout.strip() == f"v{_pinned()}"
    for name in (
        "pulumi-language-python",
        "pulumi-language-python-exec",
        "pulumi-resource-pulumi-python",
        "pulumi-language-nodejs",
        "pulumi-language-go",
        "pulumi-language-yaml",
    ):
        assert os.access(root / ".tools" / "bin" / name, os.X_OK), name
    assert "built pulumi-language-nodejs in " in result.stderr, result.stderr
    assert "built pulumi-language-go in " in result.stderr, result.stderr
    # The YAML host comes from its own module (not github.com/pulumi/pulumi/sdk/v3, as the other two).
    assert "pulumi-language-yaml from github.com/pulumi/pulumi-yaml v1." in result.stderr, result.stderr
    assert "built pulumi-language-yaml in " in result.stderr, result.stderr
    # A second run builds nothing.
    again = _run_setup(root, [other])
    assert "building" not in again.stderr and "built" not in again.stderr, again.stderr
    assert ".tools/bin has pulumi-language-nodejs" in again.stderr, again.stderr
    assert ".tools/bin has pulumi-language-yaml" in again.stderr, again.stderr


def _pinned() -> str:
    from importlib.metadata import version

    return version("pulumi")

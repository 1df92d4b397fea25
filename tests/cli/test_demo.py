"""The README's main command, scripts/demo, runs the quickstart through up, an empty preview and destroy."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .pulumi_cli import REPO

pytestmark = pytest.mark.cli


def test_demo_script(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HW_", "HUAWEICLOUD_SDK_", "PULUMI_"))}
    # A private backend and Pulumi home; scripts/env.sh keeps values that are already set.
    env.update(
        PULUMI_BACKEND_URL=f"file://{tmp_path / 'backend'}",
        PULUMI_HOME=str(tmp_path / "home"),
        STACK="demo-test",
    )
    (tmp_path / "backend").mkdir()
    try:
        proc = subprocess.run(
            ["bash", "scripts/demo"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
    finally:
        # The stack's settings file (its encryption salt) is the only thing the demo leaves in the checkout.
        (REPO / "Pulumi.demo-test.yaml").unlink(missing_ok=True)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "demo: emulator at http://127.0.0.1:" in output
    assert "+ 2 created" in output
    assert "2 unchanged" in output  # the preview after up
    assert "- 2 deleted" in output
    assert "Traceback" not in output
    assert "warning:" not in output  # e.g. the engine's "using pulumi-resource-modelarts from $PATH"

"""The hand-run path of docs/examples.md, pasted into bash as a new user would, commands read from the page.

The repository's files are copied to a temporary directory (a fresh clone, with this checkout's `.venv` and
`.tools` linked in so nothing is rebuilt) and the page's code block runs there in a non-interactive bash
whose PATH has neither `pulumi` nor the virtualenv: whatever the block needs, it must set up itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .pulumi_cli import REPO

pytestmark = pytest.mark.cli

LINKED = (".venv", ".tools")


def hand_run_block() -> str:
    page = (REPO / "docs" / "examples.md").read_text()
    start = page.index("To run one by hand")
    match = re.compile(r"```bash\n(.*?)```", re.DOTALL).search(page, start)
    assert match is not None, "the hand-run paragraph is followed by a ```bash block"
    return match.group(1)


def fresh_copy(dest: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if name in LINKED or not source.is_file():
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    for name in LINKED:
        (dest / name).symlink_to(REPO / name)
    return dest


def bare_env(tmp_path: Path) -> dict[str, str]:
    """The caller's environment without Pulumi, the virtualenv or any HW_* setting, plus a private backend."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HW_", "HUAWEICLOUD_SDK_", "PULUMI_", "VIRTUAL_ENV", "PYTHON"))
    }
    path = [d for d in env.get("PATH", "").split(os.pathsep) if d and not _has_our_tools(Path(d))]
    env["PATH"] = os.pathsep.join(path)
    (tmp_path / "backend").mkdir()
    env.update(PULUMI_BACKEND_URL=f"file://{tmp_path / 'backend'}", PULUMI_HOME=str(tmp_path / "home"))
    return env


def _has_our_tools(directory: Path) -> bool:
    return any(
        (directory / tool).exists() for tool in ("pulumi", "modelarts-emulator", "pulumi-language-python")
    )


def bash(
    script: str, cwd: Path, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[Path]:
    root = fresh_copy(tmp_path / "clone")
    yield root
    # Whatever happened, no emulator outlives the test.
    subprocess.run(["bash", "scripts/emulator", "stop"], cwd=root, capture_output=True, timeout=60)


def test_the_hand_run_block_works_when_pasted(tmp_path: Path, clone: Path) -> None:
    block = hand_run_block()
    env = bare_env(tmp_path)
    assert shutil.which("pulumi", path=env["PATH"]) is None

    proc = bash(block, clone, env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "+ 2 to create" in output  # preview
    assert "+ 2 created" in output  # up
    assert "- 2 deleted" in output  # destroy
    assert "Traceback" not in output
    assert "emulator: stopped" in output
    assert not (clone / ".pulumi-state" / "emulator-bg" / "pid").exists()
    # The stack lives in the backend the caller chose, and holds no job after destroy.
    assert list((tmp_path / "backend" / ".pulumi" / "stacks").rglob("dev.json*"))


def test_second_shell_joins_the_running_emulator(tmp_path: Path, clone: Path) -> None:
    env = bare_env(tmp_path)
    first = bash("bash scripts/emulator start", clone, env, timeout=120)
    assert first.returncode == 0, first.stderr
    pid = (clone / ".pulumi-state" / "emulator-bg" / "pid").read_text().strip()
    # A new shell: the lines again, pointing at the same emulator, and no second process.
    second = bash("bash scripts/emulator start", clone, env, timeout=120)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert f"already running (pid {pid}" in second.stderr
    # Other flags for a running emulator are refused rather than silently ignored.
    refused = bash("bash scripts/emulator start --running-seconds 1", clone, env, timeout=120)
    assert refused.returncode == 1 and refused.stdout == ""

    # What the eval runs: pulumi and the HW_* settings, from a shell that had neither.
    probe = bash(
        'eval "$(bash scripts/emulator start)"; command -v pulumi python; '
        'echo "$HW_MODELARTS_ENDPOINT $HW_ACCESS_KEY $HW_PROJECT_ID ${HW_SECRET_KEY:+secret-set}"; '
        'python -c "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())" '
        '"$HW_MODELARTS_ENDPOINT/_emulator/health"',
        clone,
        env,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    lines = probe.stdout.splitlines()
    assert lines[:2] == [str(clone / ".tools" / "bin" / "pulumi"), str(clone / ".venv" / "bin" / "python")]
    endpoint, access_key, project_id, secret = lines[2].split()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", endpoint)
    assert (access_key, secret) == ("EMULATORAK000000000", "secret-set")
    assert project_id == "0123456789abcdef0123456789abcdef"
    assert '"ok"' in lines[3]

    stop = bash("bash scripts/emulator stop", clone, env, timeout=60)
    assert stop.returncode == 0 and f"stopped (pid {pid})" in stop.stderr
    assert not Path(f"/proc/{pid}").exists() or "modelarts-emulator" not in Path(
        f"/proc/{pid}/cmdline"
    ).read_bytes().decode(errors="replace")
    again = bash("bash scripts/emulator stop", clone, env, timeout=60)
    assert again.returncode == 0 and "not running" in again.stderr

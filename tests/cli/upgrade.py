"""The first release (0.1.0) as a wheel, and environments that hold it, for the upgrade tests.

The wheel is built from the release's commit when the clone has it (``git archive`` of ``RELEASE_COMMIT``,
then ``pip wheel``); a shallow clone (a CI checkout of depth 1) does not, and then the committed copy
``tests/fixtures/upgrade/pulumi_modelarts-0.1.0-py3-none-any.whl`` is used, which
``python -m tests.cli.upgrade`` writes from the same commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from .pulumi_cli import REPO

RELEASE = "0.1.0"
RELEASE_COMMIT = "d9883c7"
FIXTURE = REPO / "tests" / "fixtures" / "upgrade" / f"pulumi_modelarts-{RELEASE}-py3-none-any.whl"
CONSTRAINTS = REPO / "constraints.txt"
PIP_OPTIONS = ("--quiet", "--disable-pip-version-check")
PIP = (sys.executable, "-m", "pip", *PIP_OPTIONS)
# No bytecode compiled at install (most of an install's CPU); the processes compile what they import, once.
INSTALL_OPTIONS = (*PIP_OPTIONS, "--no-compile")


def _pip_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PIP_CONSTRAINT", "VIRTUAL_ENV")}


def release_in_history() -> bool:
    found = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", f"{RELEASE_COMMIT}^{{commit}}"], capture_output=True
    )
    return found.returncode == 0


def build_release_wheel(dest: Path) -> Path:
    """The release's wheel, built from its commit, in dest."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        source.mkdir()
        archive = Path(tmp) / "release.tar"
        subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), RELEASE_COMMIT], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(source, filter="data")
        subprocess.run(
            [*PIP, "wheel", "--no-deps", "-w", str(dest), str(source)],
            check=True,
            env=_pip_env(),
        )
    (wheel,) = dest.glob(f"pulumi_modelarts-{RELEASE}-*.whl")
    return wheel


def release_wheel(dest: Path) -> Path:
    """The release's wheel: from history when the clone has it, else the committed fixture."""
    if release_in_history():
        return build_release_wheel(dest)
    assert FIXTURE.exists(), f"{RELEASE_COMMIT} is not in this clone and {FIXTURE} is missing"
    return FIXTURE


def venv_with_release(target: Path, wheel: Path) -> Path:
    """A new environment with the release installed as a user installs it (development pins for its deps)."""
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    python = target / "bin" / "python"
    pip_install(python, str(wheel))
    return python


def pip_install(python: Path, *args: str) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "install", *INSTALL_OPTIONS, "-c", str(CONSTRAINTS), *args],
        check=True,
        env=_pip_env(),
    )


def upgrade_to_current(python: Path) -> None:
    """This checkout installed over the release (built as a wheel, not editable), as a user upgrades.

    Reinstalled by force: until the version is raised the checkout carries the release's version number, which
    ``pip install --upgrade`` would take as already installed. The second step installs what the checkout
    requires and the release did not.
    """
    pip_install(python, "--force-reinstall", "--no-deps", str(REPO))
    pip_install(python, str(REPO))


def has_module(python: Path, module: str) -> bool:
    found = subprocess.run(
        [str(python), "-c", f"import importlib.util as u, sys; sys.exit(u.find_spec({module!r}) is None)"],
        capture_output=True,
    )
    return found.returncode == 0


def installed_version(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "from importlib.metadata import version; print(version('pulumi-modelarts'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


if __name__ == "__main__":
    # Write the committed fixture wheel from the release's commit.
    with tempfile.TemporaryDirectory() as out:
        built = build_release_wheel(Path(out))
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, FIXTURE)
    print(FIXTURE)

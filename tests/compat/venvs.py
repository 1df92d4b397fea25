"""Environments with another Pulumi Python SDK than the development one, for the compatibility tests.

``ensure_venv(pulumi_version)`` builds ``.venv-pulumi-<version>`` at the repository root: that ``pulumi`` from
the package index, this package, the emulator and the native SDK (``sdk/python``) editable, and what the tests
need. A stamp (as scripts/setup keeps) makes a second call a no-op until an input changes.

Two steps, so that pulumi's own dependency ranges decide its dependencies (an old SDK needs an old grpcio and
protobuf, which the development pins in ``constraints.txt`` exclude):

1. ``pip install pulumi==<version>`` and nothing else, unconstrained;
2. the package, the emulator and the test tools, constrained by ``constraints.txt`` minus every distribution
   step 1 installed (so pulumi's dependencies stay as its ranges chose them) and minus ``floors``, which
   replace pins by exact versions (the oldest environment also takes httpx and pydantic at their floors),
   and the distributions these require exactly (``COUPLED``).

The native SDK (``sdk/python``) is installed with its dependencies: its declared pulumi range (the schema's
``language.python.requires``, which scripts/generate takes from pyproject.toml) must admit both SDKs too.

Run as a script to build one by hand: ``.venv/bin/python -m tests.compat.venvs 3.171.0``.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the development environment is 3.11
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "constraints.txt"
VERSIONS_FILE = Path(__file__).with_name("pulumi-versions.toml")
# mypy: test_resource type-checks a program against the installed pulumi.
TEST_TOOLS = ("pytest", "pytest-timeout", "hypothesis", "mypy")
# A distribution taken at another version than its pin releases the pins of those it requires exactly.
COUPLED = {"pydantic": ("pydantic-core",), "httpx": ("httpcore",)}


def _name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def declared_floor(distribution: str) -> str:
    """The lowest version pyproject.toml's dependencies allow for a distribution (its ``>=`` bound)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"]:
        if _name(requirement) == distribution:
            match = re.search(r">=\s*([0-9][0-9.]*)", requirement)
            assert match, f"pyproject.toml declares no floor for {distribution}: {requirement!r}"
            return match.group(1)
    raise AssertionError(f"pyproject.toml does not depend on {distribution}")


def pinned(distribution: str) -> str:
    """The development version of a distribution, from constraints.txt."""
    for line in CONSTRAINTS.read_text().splitlines():
        if line.strip() and not line.startswith("#") and _name(line) == distribution:
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"constraints.txt does not pin {distribution}")


def newest_tested() -> str:
    """The newest pulumi SDK the compatibility tests run against (pulumi-versions.toml)."""
    return str(tomllib.loads(VERSIONS_FILE.read_text())["newest"])


def venv_dir(pulumi_version: str) -> Path:
    return REPO / f".venv-pulumi-{pulumi_version}"


def _pip(python: Path, *args: str) -> None:
    # This environment's pip installs into the other (--python) and compiles nothing: ensurepip and the
    # bytecode of whole distributions were most of a build's CPU; the tests compile what they import, once.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-compile",
            "--disable-pip-version-check",
            *args,
        ],
        cwd=REPO,
        check=True,
        env={k: v for k, v in os.environ.items() if k not in ("PIP_CONSTRAINT", "VIRTUAL_ENV")},
    )


def _installed(python: Path) -> set[str]:
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {_name(line) for line in listed.splitlines() if line.strip()}


def ensure_venv(pulumi_version: str, floors: Mapping[str, str] | None = None) -> Path:
    """The Python of an environment with this pulumi SDK (built, or reused when its stamp matches)."""
    floors = dict(floors or {})
    target = venv_dir(pulumi_version)
    python = target / "bin" / "python"
    # This file is the recipe: changing it rebuilds the environments too.
    inputs = [Path(__file__), REPO / "pyproject.toml", REPO / "emulator" / "pyproject.toml", CONSTRAINTS]
    if (REPO / "sdk" / "python" / "pyproject.toml").exists():
        inputs.append(REPO / "sdk" / "python" / "pyproject.toml")
    digest = hashlib.sha256()
    for path in inputs:
        digest.update(path.read_bytes())
    digest.update(repr(sorted(floors.items())).encode())
    stamp_value = digest.hexdigest()
    stamp = target / ".compat-stamp"
    if python.exists() and stamp.exists() and stamp.read_text().strip() == stamp_value:
        return python

    subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", str(target)], check=True)
    # pip too, within pulumi's range of it: the Python language host lists the environment's packages with it.
    _pip(python, f"pulumi=={pulumi_version}", "pip")
    from_pulumi = _installed(python)
    released = from_pulumi | set(floors) | {dep for name in floors for dep in COUPLED.get(name, ())}
    kept = [
        line
        for line in CONSTRAINTS.read_text().splitlines()
        if line.strip() and not line.startswith("#") and _name(line) not in released
    ]
    constraints = target / "constraints.txt"
    constraints.write_text("".join(f"{line}\n" for line in kept))
    exact = [f"{name}=={version}" for name, version in sorted(floors.items())]
    native_sdk = ["-e", "./sdk/python"] if (REPO / "sdk" / "python" / "pyproject.toml").exists() else []
    editables = ["-e", ".", "-e", "./emulator[testing]", *native_sdk]
    # The editables are built with the environment's own setuptools (a build environment each took longer).
    _pip(python, "-c", str(constraints), "setuptools")
    _pip(python, "-c", str(constraints), "--no-build-isolation", *exact, *editables, *TEST_TOOLS)
    # Step 2 must not have moved pulumi (it would, for a version below pyproject.toml's floor).
    got = installed_version(python, "pulumi")
    if got != pulumi_version:
        raise RuntimeError(f"{target.name} has pulumi {got}: pyproject.toml does not allow {pulumi_version}")
    stamp.write_text(stamp_value + "\n")
    return python


def installed_version(python: Path, distribution: str) -> str:
    return subprocess.run(
        [str(python), "-c", f"from importlib.metadata import version; print(version({distribution!r}))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


if __name__ == "__main__":
    version = sys.argv[1]
    extra = dict(arg.split("==", 1) for arg in sys.argv[2:])
    print(ensure_venv(version, extra))

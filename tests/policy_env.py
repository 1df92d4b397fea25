"""The environment the policy pack (policy/) runs in for the tests, as policy/requirements.txt describes it:
pulumi-policy (which pins protobuf 5.29, where constraints.txt pins 6.33 for the suite's own environment) and
this checkout's package, with httpx and pydantic at the versions constraints.txt pins."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACK = REPO / "policy"


def requirements() -> list[str]:
    """What pip installs: policy/requirements.txt without the package itself (this checkout's provider/ is put
    on the path instead), and the package's own dependencies pinned as constraints.txt pins them."""
    lines = (PACK / "requirements.txt").read_text().splitlines()
    wanted = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    assert "pulumi-modelarts" in wanted, wanted
    constraints = (REPO / "constraints.txt").read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", constraints, re.MULTILINE))
    own = [f"{name}=={pins[name]}" for name in ("httpx", "pydantic")]
    return [r for r in wanted if r != "pulumi-modelarts"] + own


def build(root: Path) -> None:
    """A virtualenv at root holding requirements() and this checkout's package (a .pth to provider/)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-compile"]
    subprocess.run([*pip, "--disable-pip-version-check", *requirements()], check=True)
    [site] = root.glob("lib/python3*/site-packages")
    (site / "pulumi_modelarts.pth").write_text(f"{REPO / 'provider'}\n")

"""The emulator is its own distribution: a command and a module that import nothing of the client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import modelarts_emulator

EMULATOR_ROOT = Path(modelarts_emulator.__file__).resolve().parents[1]


def test_it_imports_nothing_of_the_client_package() -> None:
    code = (
        "import sys, pkgutil, importlib, modelarts_emulator\n"
        "for m in pkgutil.iter_modules(modelarts_emulator.__path__):\n"
        "    importlib.import_module('modelarts_emulator.' + m.name)\n"
        "client = ('pulumi_modelarts', 'pulumi', 'pydantic')\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] in client))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_its_distribution_declares_itself() -> None:
    pyproject = (EMULATOR_ROOT / "pyproject.toml").read_text()
    assert 'name = "modelarts-emulator"' in pyproject
    assert 'modelarts-emulator = "modelarts_emulator.__main__:main"' in pyproject
    assert (EMULATOR_ROOT / "modelarts_emulator" / "py.typed").exists()


def test_command_and_module_both_run() -> None:
    script = Path(sys.executable).parent / "modelarts-emulator"
    for argv in ([str(script), "--help"], [sys.executable, "-m", "modelarts_emulator", "--help"]):
        result = subprocess.run(argv, capture_output=True, text=True, check=True)
        assert "usage: modelarts-emulator" in result.stdout


def test_it_plays_the_same_phase_vocabulary_as_the_client() -> None:
    from modelarts_emulator import lifecycle
    from pulumi_modelarts.wire import phases

    assert lifecycle.PHASES == phases.Phase.ALL
    assert lifecycle.TERMINABLE == phases.TERMINABLE_PHASES

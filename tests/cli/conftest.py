"""The CLI tests' session-wide state (one directory for the TypeScript and Go programs' dependencies) and the
`languages` marker of their TypeScript, Go and YAML cases (`-m languages`, `-m "not languages"`)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import languages
from .cli_helpers import plugin_processes


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "languages: a CLI test's TypeScript, Go and YAML cases (the Node.js, Go and YAML language hosts)",
    )


@pytest.fixture(scope="session", autouse=True)
def _program_dependencies(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Prepared on first use (languages.node_modules, languages.go_module), shared by every stack after it,
    in every worker of a parallel run (their base directories share a parent; the builders take a lock)."""
    root = tmp_path_factory.getbasetemp()
    shared = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    languages.use_session_cache(shared / "program-dependencies")


@pytest.fixture(autouse=True)
def no_leftover_processes(tmp_path: Path) -> Iterator[None]:
    """After each test, stop what its pulumi commands started and left running.

    A test that kills `pulumi` outright (SIGKILL of its process group) leaves the plugins the engine started
    in their own process groups: the native plugin, and the dynamic provider host, which waits forever for
    an engine that is gone. They are recognised by this test's private state directory in their environment.
    """
    yield
    for pid in plugin_processes(tmp_path):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

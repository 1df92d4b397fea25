"""The CLI tests' session-wide state: one directory for the TypeScript and Go programs' dependencies."""

from __future__ import annotations

import pytest

from . import languages


@pytest.fixture(scope="session", autouse=True)
def _program_dependencies(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Prepared on first use (languages.node_modules, languages.go_module), shared by every stack after it."""
    languages.use_session_cache(tmp_path_factory.mktemp("program-dependencies"))

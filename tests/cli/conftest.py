"""The CLI tests' session-wide state (one directory for the TypeScript and Go programs' dependencies) and the
`languages` marker of their TypeScript and Go cases (`-m languages`, `-m "not languages"`)."""

from __future__ import annotations

import pytest

from . import languages


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "languages: a CLI test's TypeScript and Go cases (the Node.js and Go language hosts)"
    )


@pytest.fixture(scope="session", autouse=True)
def _program_dependencies(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Prepared on first use (languages.node_modules, languages.go_module), shared by every stack after it."""
    languages.use_session_cache(tmp_path_factory.mktemp("program-dependencies"))

"""The account room's fixture: process caches emptied around a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pulumi_modelarts.account import projects, session


@pytest.fixture
def fresh_process_caches() -> Iterator[None]:
    """Projects found and keys fetched are kept per process: each test starts without any."""
    projects.clear_cache()
    session.forget_keys()
    yield
    projects.clear_cache()
    session.forget_keys()

"""Real create requests (tests/fixtures/real_requests/*.json): requests the real service accepted, or the API
pages' own examples, written as this provider's inputs.

Each file holds ``source`` (where the request comes from), ``warnings`` (the paths the provider is expected to
warn about: advice of the API pages the request ignores) and ``inputs`` (the TrainingJob's inputs, wire
names). They are used by tests/wire/test_real_requests.py (check, the emulator's checks and a create) and by
tests/cli/test_real_requests_cli.py (both front-ends through the real CLI).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "real_requests"


@dataclass(frozen=True)
class RealRequest:
    name: str
    source: str
    warnings: list[str]
    inputs: dict[str, Any]


def real_requests() -> list[RealRequest]:
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert set(data) == {"source", "warnings", "inputs"}, path
        assert data["source"].strip(), f"{path} names no source"
        found.append(RealRequest(path.stem, data["source"], list(data["warnings"]), data["inputs"]))
    return found

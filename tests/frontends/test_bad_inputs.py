"""Every wrong input of tests/bad_inputs.py, checked by both front-ends in process: a failure (or, for the
advice the service does not enforce, a warning and no failure) naming the field path as the user wrote it.

The CLI's preview (tests/cli/test_bad_input.py) shows the cases whose message the engine prints differently
(a top-level property, a nested path, a key spelled wrong, a map key, two problems, warnings); the check that
decides each case is the same call there as here.
"""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.provider.experimental.provider import CheckRequest

from pulumi_modelarts.frontends import plugin
from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.frontends.native_values import property_map
from pulumi_modelarts.generated import schema_names

from ..bad_inputs import (
    CASES,
    NATIVE_TWO_PROBLEMS_NESTED,
    TWO_PROBLEMS_NESTED,
    WARNED,
    arguments,
    field,
)
from ..plugin_support import engine_log, run

# The Python SDK of the native provider sends its keyword arguments in the schema's names (the generated
# table: wire name -> (schema name, type)).
SCHEMA_ARGUMENT = {wire: schema for wire, (schema, _type) in schema_names.TYPES[schema_names.INPUTS].items()}


def _dynamic(name: str, case: dict[str, Any]) -> list[tuple[str, str]]:
    result = TrainingJobProvider().check({}, {**arguments(case), "name_prefix": name})
    return [(f.property, f.reason) for f in result.failures]


def _native(name: str, case: dict[str, Any]) -> list[tuple[str, str]]:
    news = {SCHEMA_ARGUMENT.get(k, k): v for k, v in arguments(case).items()}
    urn = f"urn:pulumi:dev::proj::modelarts:index:TrainingJob::{name}"
    answer = run(plugin.ModelArtsProvider().check(CheckRequest(urn, {}, property_map(news), b"")))
    return [(f.property, f.reason) for f in answer.failures]


def _names(failures: list[tuple[str, str]], path: str) -> bool:
    """A failure names path: as the property (top-level) or leading its reason (a nested path)."""
    return any(prop == path or reason.startswith(f"{path}: ") for prop, reason in failures)


@pytest.mark.parametrize("name", list(CASES))
def test_a_wrong_input_fails_check_naming_its_field_on_both_front_ends(name: str) -> None:
    case, _ = CASES[name]
    dynamic, native = _dynamic(name, case), _native(name, case)
    assert _names(dynamic, field(name, native=False)), dynamic
    assert _names(native, field(name, native=True)), native
    # The engine prints a nested property's value as "{<nil>}": only top-level inputs are named as properties.
    for prop, _reason in dynamic + native:
        assert "." not in prop and "[" not in prop, (prop, dynamic, native)


def test_both_problems_of_one_resource_are_reported() -> None:
    case, _ = CASES["two-problems"]
    path, reason = TWO_PROBLEMS_NESTED
    assert ("", f"{path}: {reason}") in _dynamic("two-problems", case)
    assert ("", f"{NATIVE_TWO_PROBLEMS_NESTED}: {reason}") in _native("two-problems", case)


@pytest.mark.parametrize("name", list(WARNED))
def test_advice_the_service_does_not_enforce_passes_check_with_a_warning_naming_the_field(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case, _ = WARNED[name]
    assert _dynamic(name, case) == []
    printed = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert any(field(name, native=False) in line for line in printed), printed

    logged = engine_log(monkeypatch)
    assert _native(name, case) == []
    warnings = [line for _urn, line, warning in logged if warning]
    assert any(field(name, native=True) in line for line in warnings), logged

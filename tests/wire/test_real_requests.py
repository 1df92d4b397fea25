"""Requests the real service accepts must pass the provider's check (at most with warnings), the emulator's
own checks, and a create against the emulator."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from modelarts_emulator import checks as emulator_checks
from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.job import core, normalising
from pulumi_modelarts.job.normalising import NOT_KNOWN
from pulumi_modelarts.wire import models
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.transport import Transport

from ..client_support import create_job
from ..real_requests import RealRequest, real_requests

REQUESTS = real_requests()
IDS = [r.name for r in REQUESTS]


def test_the_fixtures_hold_the_requests_that_were_refused() -> None:
    # The Terraform acceptance test jobs that the former rules refused are among them.
    names = set(IDS)
    assert {"tf_basic_existing_algorithm", "tf_basic_custom_algorithm", "tf_debug_job"} <= names
    assert {"seed_003_free_flavor", "seed_003_custom_image"} <= names


@pytest.mark.parametrize("real", REQUESTS, ids=IDS)
def test_check_passes_with_the_expected_warnings(real: RealRequest) -> None:
    checked = core.check({}, copy.deepcopy(real.inputs))
    assert checked.failures == []
    assert [w.path for w in checked.warnings] == real.warnings
    for warning in checked.warnings:
        assert "API pages" in warning.reason, warning
    # The dynamic front-end's check answers the same: no failure.
    assert TrainingJobProvider().check({}, copy.deepcopy(real.inputs)).failures == []


def _at(body: Any, path: str) -> Any:
    for part in path.split("."):
        body = body[part]
    return body


@pytest.mark.parametrize(
    "real", [r for r in REQUESTS if r.warnings], ids=[r.name for r in REQUESTS if r.warnings]
)
def test_the_request_sent_is_the_request_written(real: RealRequest) -> None:
    # Advice changes nothing in what is sent: the fields the pages say to leave blank go as written.
    checked = core.check({}, copy.deepcopy(real.inputs))
    sent = models.to_wire(models.validate_create_request(normalising.job_body(checked.inputs)))
    for path in real.warnings:
        assert _at(sent, path) == _at(real.inputs, path), path


@pytest.mark.parametrize("real", REQUESTS, ids=IDS)
def test_the_emulator_checks_accept_it(real: RealRequest) -> None:
    assert emulator_checks.create_problems(copy.deepcopy(real.inputs)) == []


def test_the_emulator_creates_every_one(emulator: EmulatorProcess) -> None:
    client = ModelArtsAPI(
        Transport(endpoint=emulator.url, project_id=emulator.project_id, auth=emulator.auth(), timeout=10)
    )
    with client:
        for real in REQUESTS:
            request = models.validate_create_request(copy.deepcopy(real.inputs))
            created = create_job(client, request)
            assert created.metadata.id, real.name
            found = client.get_job(created.metadata.id)
            assert found.metadata.name == real.inputs["metadata"]["name"], real.name


def test_a_warning_names_what_the_service_uses_instead() -> None:
    by_name = {r.name: r for r in REQUESTS}
    checked = core.check({}, copy.deepcopy(by_name["tf_basic_existing_algorithm"].inputs))
    reasons = dict((w.path, w.reason) for w in checked.warnings)
    assert "the algorithm brings its own" in reasons["algorithm.code_dir"]
    checked = core.check({}, copy.deepcopy(by_name["tf_basic_custom_algorithm"].inputs))
    reasons = dict((w.path, w.reason) for w in checked.warnings)
    assert "engine_id chooses the engine" in reasons["algorithm.engine.engine_name"]


def test_a_value_not_known_at_preview_neither_fails_nor_warns_on_what_it_may_settle() -> None:
    # Terraform's job takes the algorithm id from another resource: unknown at preview. Without the id the
    # rest would read as own code without an engine; that failure and the advice both wait for the value.
    inputs = copy.deepcopy({r.name: r for r in REQUESTS}["tf_basic_existing_algorithm"].inputs)
    inputs["algorithm"]["id"] = NOT_KNOWN
    checked = core.check({}, inputs)
    assert checked.failures == []
    assert [w.path for w in checked.warnings if w.path.startswith("algorithm.")] == []
    # Likewise an engine id not known yet beside engine_name and engine_version.
    inputs = copy.deepcopy({r.name: r for r in REQUESTS}["tf_basic_custom_algorithm"].inputs)
    inputs["algorithm"]["engine"]["engine_id"] = NOT_KNOWN
    checked = core.check({}, inputs)
    assert checked.failures == [] and checked.warnings == []

"""A create's wait ends on time whatever the service says: a poll answered 429 with ``Retry-After: 3600``
pauses the account's calls (up to the client's cap), but the wait still ends about when its wait_timeout
says, names the wait and the service's pause, and says honestly what became of the job (seen stopped, or
kept in the state as one that may still run)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pulumi_modelarts.job import core
from pulumi_modelarts.job.errors import ProvisioningError
from pulumi_modelarts.job.waiting.giving_up import JobMayStillRun

from ..httpserver import Recorded, Reply, ScriptedServer, json_reply
from ..support import ProgressLines
from .core_support import JOB_ID, inputs, scripted

pytestmark = pytest.mark.usefixtures("fast_polls")

WAIT_SECONDS = 2.0
# What the create may take past its wait_timeout: the service's pause (60 s once capped) outlasts the wait,
# its last read's allowance (waiting.LAST_READ_SECONDS) and the terminate's (reports.TERMINATE_SECONDS), so
# nothing is slept out and no call is sent after the wait's end; this is only the test machine's slack. The
# real bounds are used: before they held, the same create took 120 s.
MARGIN_SECONDS = 3.0

THROTTLED = {"error_code": "APIG.0308", "error_msg": "The request is throttled."}


def job(phase: str) -> dict[str, Any]:
    return {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": phase}}


def paused_for_an_hour(server: ScriptedServer, terminate: Reply | None) -> None:
    """The create answered 201; every read and search 429 APIG.0308 with Retry-After: 3600; the terminate
    answered terminate (None: throttled too)."""

    def answer(request: Recorded) -> Reply:
        if request.method == "POST" and request.path.endswith("/actions") and terminate is not None:
            return terminate
        return json_reply(THROTTLED, 429, **{"Retry-After": "3600"})

    server.queue(json_reply(job("Creating"), 201))
    server.handler = answer


def create_paused(terminate: Reply | None) -> tuple[ProvisioningError, float, list[Recorded]]:
    with ScriptedServer() as server:
        paused_for_an_hour(server, terminate)
        with scripted(server) as http, pytest.raises(ProvisioningError) as info:
            started = time.monotonic()
            try:
                core.create(
                    inputs(wait_for="running", wait_timeout=f"{WAIT_SECONDS}s"), http, ProgressLines()
                )
            finally:
                took = time.monotonic() - started
        return info.value, took, list(server.requests)


def says_the_wait_timed_out_for_the_pause(text: str) -> None:
    assert f"did not reach running within {WAIT_SECONDS:.1f}s" in text, text
    assert "the service asked to pause" in text, text
    assert "ThrottledError" not in text and "could not be watched any more" not in text, text


def test_a_wait_paused_by_the_service_for_an_hour_ends_on_time_and_says_the_job_may_still_run() -> None:
    # The terminate is throttled too: the account stays paused, and the create says so at once.
    error, took, requests = create_paused(terminate=None)
    text = str(error)
    assert [r.method for r in requests][:2] == ["POST", "GET"], requests  # created, then one poll refused
    assert took < WAIT_SECONDS + MARGIN_SECONDS, (took, text)
    says_the_wait_timed_out_for_the_pause(text)
    assert isinstance(error, JobMayStillRun), text
    assert error.job_id == JOB_ID
    assert "the job could NOT be terminated and may still be running" in text, text
    assert f"(id {JOB_ID})" in text and f"/training-jobs/{JOB_ID}/actions" in text, text
    assert "it is kept in the Pulumi state" in text, text


def test_a_wait_paused_by_the_service_ends_on_time_without_sending_a_terminate_into_the_pause() -> None:
    # The service would accept the terminate, but the account's pause (60 s once capped) outlasts the
    # terminate's own bound (reports.TERMINATE_SECONDS): it is not sent, nor slept for, and the job is kept.
    error, took, requests = create_paused(terminate=json_reply(job("Terminating"), 202))
    text = str(error)
    assert took < WAIT_SECONDS + MARGIN_SECONDS, (took, text)
    says_the_wait_timed_out_for_the_pause(text)
    assert not [r for r in requests if r.path.endswith("/actions")], requests
    assert isinstance(error, JobMayStillRun), text
    assert error.job_id == JOB_ID
    assert "the account's calls are paused for" in text and "it was not sent" in text, text
    assert "may still be running" in text and "nothing is left running" not in text, text
    assert "it is kept in the Pulumi state" in text, text

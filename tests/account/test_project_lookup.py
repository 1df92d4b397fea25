"""IAM's slowness costs once per process: the project lookup is made once for every job waiting on it, its
failure is their common answer for a while (``FAILURE_MEMORY_SECONDS``), each job waits only within its own
deadline, and a process that is stopping (Ctrl-C) does not wait for IAM.

Observed before: the lookup held a lock through IAM's three 30 s attempts and remembered no failure, so the
jobs of one `pulumi up` failed one after another, at 93 s, 186 s...; and the dynamic provider host, its
worker threads queued on that lock, did not stop on SIGINT until they were all done.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest

import pulumi_modelarts
from pulumi_modelarts.account import projects, shared_lookups
from pulumi_modelarts.account.errors import AccountError
from pulumi_modelarts.account.iam import IAM_ATTEMPTS, Iam
from pulumi_modelarts.account.shared_lookups import FAILURE_MEMORY_SECONDS, SharedLookups

from ..support import poll

pytestmark = pytest.mark.usefixtures("fresh_process_caches")


def test_jobs_waiting_on_a_failing_iam_get_its_one_answer_together() -> None:
    started = threading.Event()
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        started.wait(10)  # IAM is slow: it answers once every job has asked
        raise httpx.ConnectTimeout("timed out")

    iam = Iam("https://iam.r.example.com", transport=httpx.MockTransport(answer), sleep=lambda _s: None)
    said: list[str] = []

    def job() -> None:
        try:
            projects.find_project(iam, httpx.Auth(), "r", identity="slow", region="r")
        except AccountError as exc:
            said.append(str(exc))

    jobs = [threading.Thread(target=job) for _ in range(6)]
    for thread in jobs:
        thread.start()
    started.set()
    for thread in jobs:
        thread.join(10)
    assert len(asked) == IAM_ATTEMPTS  # one lookup's attempts, not six lookups one after another
    assert len(said) == 6 and len(set(said)) == 1
    assert "looking up the region r's project 'r' in IAM failed: no answer from IAM" in said[0]
    with pytest.raises(AccountError, match="no answer from IAM"):
        projects.find_project(iam, httpx.Auth(), "r", identity="slow", region="r")  # a job a moment later
    assert len(asked) == IAM_ATTEMPTS


def test_a_failure_is_the_answer_for_a_while_and_an_answer_for_good() -> None:
    clock = [100.0]
    lookups: SharedLookups[str] = SharedLookups(clock=lambda: clock[0])
    made: list[str] = []

    def refused() -> str:
        made.append("refused")
        raise AccountError("looking up the project 'r' in IAM failed: IAM answered HTTP 401")

    for _ in range(3):
        with pytest.raises(AccountError, match="HTTP 401"):
            lookups.get("key", refused, what="looking up")
    assert made == ["refused"]
    assert FAILURE_MEMORY_SECONDS == 30.0
    clock[0] += FAILURE_MEMORY_SECONDS
    assert lookups.get("key", lambda: made.append("found") or "p1", what="looking up") == "p1"
    clock[0] += 1e6
    assert lookups.get("key", refused, what="looking up") == "p1" and made == ["refused", "found"]


def test_a_job_waits_for_iam_only_within_its_own_deadline() -> None:
    answered = threading.Event()

    def answer(_request: httpx.Request) -> httpx.Response:
        answered.wait(10)
        return httpx.Response(200, json={"projects": [{"id": "p1", "name": "r"}]})

    iam = Iam("https://iam.r.example.com", transport=httpx.MockTransport(answer))
    started = time.monotonic()
    with pytest.raises(AccountError) as caught:
        projects.find_project(iam, httpx.Auth(), "r", identity="hung", within=0.2)
    assert time.monotonic() - started < 2.0
    assert "looking up the project 'r' in IAM did not end within the 0.2s this operation allows" in str(
        caught.value
    )
    answered.set()  # IAM answers after all: the lookup went on, for the operations after it
    found = poll(
        lambda: projects.find_project(iam, httpx.Auth(), "r", identity="hung", within=5),
        bool,
        timeout=5,
        what="the project found by the lookup that went on",
    )
    assert found == "p1"


# The dynamic provider host's shape: a pool of worker threads serving the engine's calls, the main thread
# waiting until SIGINT, then returning (and the interpreter waiting for the workers before it exits).
HOST = textwrap.dedent(
    """
    import concurrent.futures, threading
    import httpx
    from pulumi_modelarts.account import projects, shared_lookups
    from pulumi_modelarts.account.iam import Iam

    asked = threading.Event()

    def never_answers(request):
        asked.set()
        threading.Event().wait()

    iam = Iam("https://iam.r.example.com", transport=httpx.MockTransport(never_answers))
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)
    for _ in range(4):
        pool.submit(projects.find_project, iam, httpx.Auth(), "r", identity="i")
    asked.wait()
    try:  # "asking" inside: a SIGINT sent as soon as it is read must find the handler in place
        print("asking", flush=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)


def test_a_cancelled_deployment_ends_the_waits_on_iam_at_once() -> None:
    asked, answered = threading.Event(), threading.Event()

    def answer(_request: httpx.Request) -> httpx.Response:
        asked.set()
        answered.wait(10)
        return httpx.Response(200, json={"projects": [{"id": "p1", "name": "r"}]})

    iam = Iam("https://iam.r.example.com", transport=httpx.MockTransport(answer))
    errors: list[str] = []

    def job() -> None:
        try:
            projects.find_project(iam, httpx.Auth(), "r", identity="cancelled")
        except AccountError as exc:
            errors.append(str(exc))

    waiting = [threading.Thread(target=job) for _ in range(3)]
    try:
        for thread in waiting:
            thread.start()
        assert asked.wait(5)  # IAM is asked (once); a job not waiting yet meets the cancellation at once
        shared_lookups.cancel_waits()  # the engine's Cancel, as the native plugin hears Ctrl-C
        for thread in waiting:
            thread.join(2)
        assert not any(thread.is_alive() for thread in waiting)
        assert len(errors) == 3 and all("the deployment was cancelled" in e for e in errors), errors
        with pytest.raises(AccountError, match="cancelled"):
            projects.find_project(iam, httpx.Auth(), "r", identity="later")  # later ones at once
    finally:
        shared_lookups.resume_waits()
        answered.set()


def test_ctrl_c_stops_a_process_whose_workers_wait_for_iam() -> None:
    provider = str(Path(pulumi_modelarts.__file__).resolve().parents[1])  # the package these tests import
    process = subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {provider!r})\n{HOST}"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "asking"
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)
        stopped = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0 and stopped < 5

"""Starting the emulator as a separate server process, the way users run it, for tests and demos.

    with start_emulator(creating_seconds=0.2, pending_seconds=0.2, running_seconds=0.2) as emu:
        client = httpx.Client(base_url=emu.url, auth=emu.auth())

Keyword flags map to command-line flags (`running_seconds=0.2` -> `--running-seconds 0.2`); None leaves a
flag out, a list repeats it (`sub_project=["ml"]`), False turns off an on-by-default one
(`metadata_tokens=False` -> `--no-metadata-tokens`).
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import threading
from collections.abc import Generator
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx

from . import signing
from .__main__ import READY_PREFIX

STARTUP_TIMEOUT_SECONDS = 20.0


class EmulatorStartError(RuntimeError):
    pass


class EmulatorAuth(httpx.Auth):
    """Signs httpx requests with SDK-HMAC-SHA256 for talking to an emulator in tests (host, content type,
    date, project id and security token are signed; an X-Sdk-Date already on the request is kept). With a
    ``security_token`` (temporary keys) it is sent as ``X-Security-Token``."""

    requires_request_body = True
    #: The headers signed when present (a subclass may sign fewer, to test a signature that leaves one out).
    SIGNED = frozenset(
        {"host", "content-type", signing.DATE_HEADER.lower(), "x-project-id", "x-security-token"}
    )

    def __init__(self, access_key: str, secret_key: str, security_token: str | None = None) -> None:
        self._access_key = access_key
        self._secret_key = secret_key
        self._security_token = security_token

    def __repr__(self) -> str:
        return f"EmulatorAuth(access_key={self._access_key!r})"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers.setdefault(signing.DATE_HEADER, signing.sdk_date(datetime.now(timezone.utc)))
        if self._security_token is not None:
            request.headers["X-Security-Token"] = self._security_token
        headers = {name.lower(): value for name, value in request.headers.items()}
        signed = sorted(name for name in headers if name in self.SIGNED)
        signature = signing.sign(
            self._secret_key,
            method=request.method,
            raw_path=request.url.raw_path.decode("ascii").partition("?")[0],
            raw_query=request.url.query.decode("ascii"),
            headers=headers,
            signed=signed,
            body=request.content,
        )
        request.headers["Authorization"] = (
            f"{signing.ALGORITHM} Access={self._access_key}, SignedHeaders={';'.join(signed)}, "
            f"Signature={signature}"
        )
        yield request


class EmulatorProcess:
    """A running emulator subprocess; a context manager that stops it on exit."""

    def __init__(
        self, process: subprocess.Popen[str], ready: dict[str, Any], output: collections.deque[str]
    ) -> None:
        self.process = process
        self.url: str = ready["url"]
        self.access_key: str = ready["access_key"]
        self.secret_key: str = ready["secret_key"]
        self.project_id: str = ready["project_id"]
        self.data_dir: str | None = ready["data_dir"]
        self.region: str = ready.get("region", "")
        self.domain_id: str = ready.get("domain_id", "")
        self._output = output

    def __repr__(self) -> str:
        return f"EmulatorProcess(url={self.url!r}, project_id={self.project_id!r}, pid={self.process.pid})"

    def auth(self) -> EmulatorAuth:
        """Signs httpx requests for this emulator."""
        return EmulatorAuth(self.access_key, self.secret_key)

    def temporary_auth(self, credential: dict[str, str]) -> EmulatorAuth:
        """Signs with temporary keys: the ``credential`` object IAM or the metadata service answered."""
        return EmulatorAuth(credential["access"], credential["secret"], credential["securitytoken"])

    def credentials(self) -> dict[str, Any]:
        """Temporary keys issued (``issued`` by method), refusals of expired ones, IAM and metadata calls."""
        return dict(httpx.get(f"{self.url}/_emulator/credentials", timeout=10).raise_for_status().json())

    def expire_temporary_keys(self) -> int:
        """Every temporary key and token issued so far expires now; how many keys were still live."""
        answer = httpx.post(f"{self.url}/_emulator/credentials/expire", timeout=10).raise_for_status()
        return int(answer.json()["expired"])

    def provider_env(self) -> dict[str, str]:
        """The environment variables that point the provider (and the client's settings) at this emulator."""
        return {
            "HW_MODELARTS_ENDPOINT": self.url,
            "HW_ACCESS_KEY": self.access_key,
            "HW_SECRET_KEY": self.secret_key,
            "HW_PROJECT_ID": self.project_id,
        }

    def api_url(self, suffix: str = "") -> str:
        """URL of `/v2/{project_id}` plus suffix, e.g. api_url("/training-jobs")."""
        return f"{self.url}/v2/{self.project_id}{suffix}"

    def stats(self) -> dict[str, Any]:
        return dict(httpx.get(f"{self.url}/_emulator/stats", timeout=10).raise_for_status().json())

    def tag_changes(self) -> list[dict[str, Any]]:
        """Every tag create and delete the emulator accepted since the last reset, with what each sent."""
        return list(httpx.get(f"{self.url}/_emulator/tag-changes", timeout=10).raise_for_status().json())

    def reset_stats(self) -> None:
        httpx.post(f"{self.url}/_emulator/stats/reset", timeout=10).raise_for_status()

    def reset(self) -> None:
        """Make the running emulator as good as new: no jobs, zero stats, the fault seed restarted."""
        httpx.post(f"{self.url}/_emulator/reset", timeout=10).raise_for_status()

    def running(self) -> bool:
        return self.process.poll() is None

    def output(self) -> str:
        """What the process printed so far (most recent lines), for test failure messages."""
        return "".join(self._output)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> EmulatorProcess:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# Flags that are on unless turned off (--no-...).
NEGATABLE_FLAGS = frozenset({"unique_names", "metadata_tokens", "metadata_agency"})


def _argv(flags: dict[str, Any]) -> list[str]:
    argv: list[str] = []
    for key, value in flags.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):  # a repeatable flag: sub_project=["ml", "dev"]
            for item in value:
                argv += ["--" + key.replace("_", "-"), str(item)]
            continue
        if value is False:
            if key in NEGATABLE_FLAGS:  # on by default: False turns it off
                argv.append("--no-" + key.replace("_", "-"))
            continue
        argv.append("--" + key.replace("_", "-"))
        if value is not True:
            argv.append(str(value))
    return argv


def _drain(stream: IO[str], sink: collections.deque[str], ready: list[str], seen: threading.Event) -> None:
    for line in stream:
        sink.append(line)
        if line.startswith(READY_PREFIX) and not ready:
            ready.append(line[len(READY_PREFIX) :])
            seen.set()
    seen.set()  # the stream closed: the process ended


def start_emulator(**flags: Any) -> EmulatorProcess:
    """Start `python -m modelarts_emulator --port 0 ...` and wait until it is ready."""
    flags = {"port": 0, **flags}
    if isinstance(flags.get("data_dir"), Path):
        flags["data_dir"] = str(flags["data_dir"])
    env = dict(os.environ)
    # Make the package importable in the child even when it is not installed (e.g. run from a checkout).
    package_root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "modelarts_emulator", *_argv(flags)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    output: collections.deque[str] = collections.deque(maxlen=500)
    ready: list[str] = []
    seen = threading.Event()
    assert process.stdout is not None
    threading.Thread(target=_drain, args=(process.stdout, output, ready, seen), daemon=True).start()
    if not seen.wait(STARTUP_TIMEOUT_SECONDS) or not ready:
        process.kill()
        process.wait(timeout=10)
        raise EmulatorStartError("the emulator did not become ready:\n" + "".join(output))
    return EmulatorProcess(process, json.loads(ready[0]), output)

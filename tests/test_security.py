"""Item 6: credentials stay out of state, outputs, error messages and logs; transport and signing rules hold.

The CLI cases run the real `pulumi` against an emulator started with a distinctive secret key and DEBUG
logging, then search everything a user or an attacker with the state file could read for it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest

from modelarts_emulator.__main__ import READY_PREFIX
from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.wire import auth
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.api_errors import AuthenticationError
from pulumi_modelarts.wire.errors import TransportError, UnusableValueError
from pulumi_modelarts.wire.transport import Transport

from .cli.cli_helpers import jobs_program, make_stack
from .cli.opened_state import opened_outputs
from .httpserver import ScriptedServer, json_reply, self_signed_certificate

SECRET = "S3cr3t-Only-Here-7f9d2c"
ACCESS = "SECURITYTESTAK0000000"


def emulator_output_after_banner(emu: EmulatorProcess) -> str:
    # The ready banner prints the emulator's own demo credentials on purpose; everything after it is logs.
    text = emu.output()
    return text.split(READY_PREFIX, 1)[1].split("\n", 1)[1] if READY_PREFIX in text else text


def state_files_text(tmp_path: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in (tmp_path / "backend").rglob("*") if p.is_file())


@pytest.mark.cli
@pytest.mark.parametrize("path", ["config", "environment"])
def test_secret_key_never_in_state_outputs_or_logs(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], path: str
) -> None:
    emu = emulator_factory(secret_key=SECRET, access_key=ACCESS, log_level="DEBUG")
    program = jobs_program(2, wait_for="running").replace(
        'pulumi.export("ids", [j.id for j in jobs])',
        'pulumi.export("ids", [j.id for j in jobs])\npulumi.export("jobs", jobs)',
    )
    stack = make_stack(tmp_path, emu, program, env={} if path == "environment" else {"HW_SECRET_KEY": ""})
    if path == "config":
        stack.config("modelarts:secretKey", SECRET, secret=True)
    up = stack.up()
    # The engine keeps the stack config (--secret values encrypted) as the default provider's inputs; the
    # jobs' own state, even with secrets opened, must not hold the key.
    opened_export = stack.export(show_secrets=True)
    opened = opened_export["deployment"]["resources"]
    jobs_state = json.dumps([r for r in opened if r["type"].endswith("modelarts:TrainingJob")])
    assert len(jobs_state) > 1000
    exported = json.dumps(stack.export())
    # What `pulumi stack output --show-secrets` shows (tests/cli/test_state_reads.py holds the two alike).
    outputs = json.dumps(opened_outputs(opened_export))
    assert '"jobs"' in outputs  # the outputs were read (the check is not vacuous)
    everything = [up.stdout, up.stderr, jobs_state, exported, outputs, state_files_text(tmp_path)]
    everything.append(emulator_output_after_banner(emu))
    assert "GET /v2/" in everything[-1], "DEBUG request logs were written (the check is not vacuous)"
    for text in everything:
        assert SECRET not in text

    # Pulumi's own verbose log and gRPC debug log (docs/installation-configuration.md#credentials) hold the
    # key when it comes from the stack config (the engine logs the configuration it sends the provider,
    # decrypted), and do not when it comes from the environment; the display never does. (The native
    # front-end's cases: tests/cli/test_config_secrets.py.)
    grpc_log = tmp_path / "grpc.log"
    destroy = stack.run(
        "destroy", "--yes", "--skip-preview", "-v=9", "--logtostderr", PULUMI_DEBUG_GRPC=str(grpc_log)
    )
    assert SECRET not in destroy.stdout
    assert "modelarts" in grpc_log.read_text()  # the gRPC log was written (the check is not vacuous)
    assert (SECRET in destroy.stderr + grpc_log.read_text()) is (path == "config")


@pytest.mark.cli
def test_temporary_keys_never_in_state_outputs_or_logs(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    # Keys from the instance metadata service, an agency's on top; the project found in IAM with them.
    emu = emulator_factory(log_level="DEBUG")
    env = {"HW_ACCESS_KEY": "", "HW_SECRET_KEY": "", "HW_PROJECT_ID": "", "HW_REGION_NAME": emu.region,
           "HW_AUTH_URL": emu.url, "HW_USE_INSTANCE_METADATA": "true", "HW_METADATA_ENDPOINT": emu.url,
           "HW_ASSUME_ROLE_AGENCY_NAME": "modelarts_agency",
           "HW_ASSUME_ROLE_DOMAIN_NAME": "emulator_partner"}  # fmt: skip
    program = jobs_program(2, wait_for="running") + 'pulumi.export("jobs", jobs)\n'
    stack = make_stack(tmp_path, emu, program, env=env)
    up = stack.up()
    ledger = emu.credentials()
    assert ledger["issued"].get("metadata") and ledger["issued"].get("assume_role"), ledger
    # The metadata service hands out the same key until half its life (a day) has passed: the one in use.
    with httpx.Client(base_url=emu.url, timeout=10) as http:
        token = http.put("/meta-data/latest/api/token", headers={"X-Metadata-Token-Ttl-Seconds": "60"}).text
        base = http.get("/openstack/latest/securitykey", headers={"X-Metadata-Token": token}).json()
    assert base["credential"]["access"] in {key["access"] for key in ledger["keys"]}
    secrets = [base["credential"][name] for name in ("access", "secret", "securitytoken")]
    secrets += [key["access"] for key in ledger["keys"]]  # the agency's access keys
    secrets.append("emulator-sts-")  # every security token the emulator issues starts so
    opened_export = stack.export(show_secrets=True)
    opened = json.dumps(opened_export)
    # What `pulumi stack output --show-secrets` shows (tests/cli/test_state_reads.py holds the two alike).
    outputs = json.dumps(opened_outputs(opened_export))
    assert '"jobs"' in outputs  # the outputs were read (the check is not vacuous)
    destroy = stack.destroy()
    everything = [up.stdout, up.stderr, opened, outputs, state_files_text(tmp_path), destroy.stdout]
    everything += [destroy.stderr, emulator_output_after_banner(emu)]
    assert "POST /v3.0/OS-CREDENTIAL/securitytokens" in everything[-1], "the emulator's log is not vacuous"
    for text in everything:
        for secret in secrets:
            assert secret not in text


@pytest.mark.cli
def test_wrong_secret_fails_once_with_a_clean_message(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory(secret_key=SECRET, access_key=ACCESS)
    wrong = "Wr0ng-Secret-Value-123"
    stack = make_stack(tmp_path, emu, jobs_program(1, wait_for="none"), env={"HW_SECRET_KEY": wrong})
    emu.reset_stats()
    up = stack.up(check=False)
    output = up.stdout + up.stderr
    assert up.returncode != 0
    assert "APIG.0301" in output and "Traceback" not in output
    assert wrong not in output and SECRET not in output
    # Not retried: five failures in a row lock an access key. The catalogue check of the new job is refused
    # too (once; the preview goes on without it), then the create.
    assert emu.stats()["by_operation"] == {"flavors": 1, "create": 1}
    assert "the flavors were not checked against the catalogue" in output


@pytest.mark.cli
def test_plain_http_to_a_remote_host_is_refused_before_any_call(tmp_path: Path) -> None:
    env = {
        "HW_MODELARTS_ENDPOINT": "http://modelarts.example.com",
        "HW_ACCESS_KEY": ACCESS,
        "HW_SECRET_KEY": SECRET,
        "HW_PROJECT_ID": "0123456789abcdef0123456789abcdef",
    }
    stack = make_stack(tmp_path, None, jobs_program(1, wait_for="none"), env=env)
    up = stack.up(check=False)
    output = up.stdout + up.stderr
    assert up.returncode != 0
    assert "only https is allowed" in output and "Traceback" not in output
    assert SECRET not in output


def test_tls_verification_is_on_for_https_endpoints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Both halves of verification, against a loopback HTTPS server: its certificate must come from a trusted
    # CA (a self-signed one is refused) and must name the host (a trusted one for another name is refused).
    loopback = self_signed_certificate(tmp_path / "loopback")
    elsewhere = self_signed_certificate(tmp_path / "elsewhere", "DNS:modelarts.example.com")
    for certificate, trusted in ((loopback, None), (elsewhere, elsewhere), (loopback, loopback)):
        if trusted is not None:
            monkeypatch.setenv("SSL_CERT_FILE", str(trusted.cert))
        with ScriptedServer(tls=certificate) as server:
            server.handler = lambda _r: json_reply({"metadata": {"id": "j1"}, "status": {"phase": "Running"}})
            client = ModelArtsAPI(
                Transport(endpoint=server.url, project_id="p", auth=auth.TokenAuth("t"), max_attempts=1)
            )
            with client:
                if certificate is trusted is loopback:
                    assert client.get_job("j1").metadata.id == "j1"  # the control: this server is fine
                else:
                    with pytest.raises(TransportError, match="could not connect"):
                        client.get_job("j1")
                    assert server.requests == []
    with pytest.raises(UnusableValueError):
        ModelArtsAPI(Transport(endpoint="http://10.0.0.1", project_id="p", auth=auth.TokenAuth("t")))


def test_every_request_is_signed_with_a_fresh_timestamp() -> None:
    started = datetime.now(timezone.utc)
    seconds = itertools.count()

    def clock() -> datetime:  # a second later at each reading: a date kept from an earlier request shows
        return started + timedelta(seconds=next(seconds))

    with ScriptedServer() as server:
        server.handler = lambda _r: json_reply({"metadata": {"id": "j1"}, "status": {"phase": "Running"}})
        for signer in (auth.AkSkAuth(ACCESS, SECRET, clock=clock), auth.AkSkAuth(ACCESS, SECRET)):
            with ModelArtsAPI(Transport(endpoint=server.url, project_id="p1", auth=signer)) as client:
                client.get_job("j1")
                client.get_job("j1")
    dates = [r.headers["x-sdk-date"] for r in server.requests]
    assert len(set(dates[:2])) == 2, "each request gets its own X-Sdk-Date"
    now = datetime.now(timezone.utc)
    for request, date in zip(server.requests, dates, strict=True):
        stamp = datetime.strptime(date, auth.DATE_FORMAT).replace(tzinfo=timezone.utc)
        assert abs((now - stamp).total_seconds()) < 30
        parts = auth.parse_authorization(request.headers["authorization"])
        assert parts is not None and "x-sdk-date" in parts.signed_headers
        assert SECRET not in json.dumps(request.headers)


def _signed(emu: EmulatorProcess, path: str, *, secret: str, sdk_date: str | None = None) -> httpx.Response:
    url = f"{emu.url}{path}"
    date = sdk_date or auth.utc_sdk_date()
    host = httpx.URL(url).netloc.decode()
    headers = {"host": host, auth.DATE_HEADER.lower(): date, "content-type": "application/json"}
    signed = sorted(headers)
    signature = auth.sign_request_parts(
        secret_key=secret, method="GET", path=path, raw_query="", headers=headers, signed_headers=signed,
        body=b"", sdk_date=date,
    )  # fmt: skip
    authorization = auth.authorization_value(emu.access_key, signed, signature)
    return httpx.get(url, headers={**headers, "Authorization": authorization}, timeout=10)


def test_emulator_refuses_other_projects_and_bad_or_stale_signatures(emulator: EmulatorProcess) -> None:
    mine = f"/v2/{emulator.project_id}/training-jobs/none"
    assert _signed(emulator, mine, secret=emulator.secret_key).json()["error_code"] == "ModelArts.2775"
    other = _signed(
        emulator, "/v2/ffffffffffffffffffffffffffffffff/training-jobs/none", secret=emulator.secret_key
    )
    assert other.status_code == 403 and other.json()["error_code"] == "ModelArts.0105"
    wrong = _signed(emulator, mine, secret="not-the-secret")
    assert wrong.status_code == 401 and wrong.json()["error_code"] == "APIG.0301"
    stale = _signed(emulator, mine, secret=emulator.secret_key, sdk_date="20200101T000000Z")
    assert stale.status_code == 401 and "X-Sdk-Date" in stale.json()["error_msg"]


def test_authentication_failures_are_not_retried_by_the_client() -> None:
    with ScriptedServer() as server:
        server.handler = lambda _r: json_reply({"error_code": "APIG.0301", "error_msg": "bad"}, 401)
        with (
            ModelArtsAPI(
                Transport(
                    endpoint=server.url, project_id="p1", auth=auth.AkSkAuth(ACCESS, SECRET), max_attempts=10
                )
            ) as client,
            pytest.raises(AuthenticationError) as caught,
        ):
            client.get_job("j1")
    assert len(server.requests) == 1
    assert SECRET not in str(caught.value) and ACCESS not in str(caught.value)

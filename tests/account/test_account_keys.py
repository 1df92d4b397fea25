"""Temporary keys renewed (ahead of expiry, under one lock, and after an APIG.0307 refusal: a create only
after its job was looked for), the private CA trusted (verification kept on), and renewed keys scrubbed.

Against the emulator and scripted servers on loopback only (``loopback_only``, as
tests/emulator/test_emulator_iam.py).
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.account import projects
from pulumi_modelarts.account.errors import AccountError
from pulumi_modelarts.account.iam import Iam, OidcKeys
from pulumi_modelarts.account.keys import (
    RENEW_AHEAD_SECONDS,
    RenewingAuth,
    RenewingKeys,
    TemporaryKeys,
    renewal_time,
)
from pulumi_modelarts.account.session import open_api
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.api_errors import AuthenticationError
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.errors import CertificateError, UnusableValueError
from pulumi_modelarts.wire.models import CreateTrainingJobRequest
from pulumi_modelarts.wire.transport import Transport

from ..client_support import create_job
from ..httpserver import Certificate, ScriptedServer, json_reply
from ..support import minimal_job, poll
from .account_support import AGENCY, keyless, settings_for

pytestmark = pytest.mark.usefixtures("loopback_only", "fresh_process_caches")

# -- renewal -------------------------------------------------------------------------------------------------


class Counting:
    """A key source that hands out keys of a given lifetime on a fake clock, counting fetches; a fetch answers
    once `answer_when` holds."""

    name = "a test source"

    def __init__(self, clock: list[float], lifetime: float, fail: bool = False) -> None:
        self.clock, self.lifetime, self.fail, self.fetched = clock, lifetime, fail, 0
        self.answer_when: Callable[[], bool] = lambda: True

    def fetch(self) -> TemporaryKeys:
        if self.fail:
            raise AccountError("the source is down")
        self.fetched += 1
        poll(self.answer_when, bool, timeout=5, what="the fetch's moment to answer")
        return TemporaryKeys(f"AK{self.fetched}", "sk", "st", self.clock[0] + self.lifetime)

    def secrets(self) -> tuple[str, ...]:
        return ()


def test_keys_are_renewed_ahead_of_expiry_by_the_margin() -> None:
    assert renewal_time(0, 86400) == 86400 - RENEW_AHEAD_SECONDS  # a metadata key: 10 minutes ahead
    assert renewal_time(0, 900) == 600  # IAM's shortest agency key: at two thirds of its life
    assert renewal_time(0, 3) == 2  # an emulator's few seconds
    clock = [1000.0]
    source = Counting(clock, 900)
    keys = RenewingKeys(source, clock=lambda: clock[0])
    assert keys.current().access == "AK1"
    clock[0] += 599
    assert keys.current().access == "AK1"
    clock[0] += 1
    assert keys.current().access == "AK2"


def test_a_failed_renewal_keeps_keys_that_still_work_and_retries_soon() -> None:
    clock = [0.0]
    source = Counting(clock, 900)
    keys = RenewingKeys(source, clock=lambda: clock[0])
    keys.current()
    source.fail, clock[0] = True, 700.0
    assert keys.current().access == "AK1"  # still 200 s to go
    source.fail, clock[0] = False, 730.0
    assert keys.current().access == "AK2"  # tried again within 30 s
    source.fail, clock[0] = True, 2000.0
    with pytest.raises(AccountError, match="down"):
        keys.current()  # expired: nothing to fall back on


def test_calls_sign_with_keys_that_still_work_while_one_thread_renews_them() -> None:
    clock = [0.0]
    source = Counting(clock, 900)
    keys = RenewingKeys(source, clock=lambda: clock[0])
    assert keys.current().access == "AK1"
    clock[0] = 700.0  # due for renewal, 200 s still to go
    fetching, answer = threading.Event(), threading.Event()
    source.answer_when = lambda: fetching.set() or answer.is_set()
    renewing = threading.Thread(target=keys.current)
    renewing.start()
    assert fetching.wait(5)
    # The renewal hangs on its source: other calls are not held, they sign with the keys that still work.
    assert keys.current().access == "AK1"
    answer.set()
    renewing.join(5)
    assert keys.current().access == "AK2" and source.fetched == 2


def test_keys_about_to_expire_wait_for_the_renewal() -> None:
    clock = [0.0]
    source = Counting(clock, 900)
    keys = RenewingKeys(source, clock=lambda: clock[0])
    keys.current()
    clock[0] = 899.5  # less than MIN_KEY_SECONDS left: no call may go out with them
    assert keys.current().access == "AK2"


def test_threads_share_one_renewal() -> None:
    clock = [0.0]
    source = Counting(clock, 900)
    keys = RenewingKeys(source, clock=lambda: clock[0])
    seen: list[str] = []
    asking: list[int] = []

    def ask() -> None:
        asking.append(1)
        seen.append(keys.current().access)

    # The first fetch answers only once every thread is asking: the others pile up on the lock meanwhile.
    source.answer_when = lambda: len(asking) == 16
    threads = [threading.Thread(target=ask) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert source.fetched == 1 and set(seen) == {"AK1"}
    # A refusal of the current keys fetches new ones once; of older ones, none (another call renewed).
    assert keys.renew("AK1") and source.fetched == 2
    assert keys.renew("AK1") and source.fetched == 2


def test_keys_refused_as_expired_are_renewed_and_the_call_sent_again(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(running_seconds=60)
    said: list[str] = []
    with open_api(settings_for(emu, assume_role=AGENCY), log=said.append) as client:
        job = create_job(
            client, CreateTrainingJobRequest.model_validate(minimal_job(metadata={"name": "one"}))
        )
        emu.expire_temporary_keys()  # the keys this process holds are still good, by their expiry
        assert client.get_job(job.metadata.id or "").metadata.id == job.metadata.id
        assert any("temporary keys had expired; sending again" in line for line in said)
        emu.expire_temporary_keys()
        emu.reset_stats()
        second = create_job(
            client, CreateTrainingJobRequest.model_validate(minimal_job(metadata={"name": "two"}))
        )
        # The create was looked for (a search) before it was posted again.
        assert emu.stats()["by_operation"] == {"create": 2, "search": 1}
        names = [j.metadata.name for j in client.iter_jobs()]
    assert second.metadata.name == "two" and names.count("two") == 1  # one job of that name
    assert emu.credentials()["refused"] == {"expired_key": 2}


def test_static_keys_refused_as_expired_are_not_retried() -> None:
    refusal = json_reply({"error_code": "APIG.0307", "error_msg": "The token must be updated."}, 401)
    with ScriptedServer() as server:
        server.queue(refusal)
        static = AkSkAuth("AK", "SKSKSK", security_token="given-token")
        with (
            ModelArtsAPI(Transport(endpoint=server.url, project_id="p", auth=static)) as client,
            pytest.raises(AuthenticationError, match=r"APIG\.0307"),
        ):
            client.get_job("j1")
        assert len(server.requests) == 1  # nothing to renew them with: refused once, as before


# -- the private CA ------------------------------------------------------------------------------------------


def openssl(*args: str) -> None:
    command = shutil.which("openssl")
    assert command, "the TLS tests need the openssl command"
    subprocess.run([command, *args], check=True, capture_output=True)


def make_ca(directory: Path) -> Certificate:
    """A certificate authority made for the test (its certificate is the PEM a CA file holds)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = Certificate(directory / "ca.pem", directory / "ca-key.pem")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
            "-keyout", str(ca.key), "-out", str(ca.cert))  # fmt: skip
    return ca


def signed_by(ca: Certificate, directory: Path, subject_alt_name: str = "IP:127.0.0.1") -> Certificate:
    """A server certificate for subject_alt_name that ca signed."""
    directory.mkdir(parents=True, exist_ok=True)
    made = Certificate(directory / "cert.pem", directory / "key.pem")
    request, extensions = directory / "cert.csr", directory / "ext.cnf"
    extensions.write_text(f"subjectAltName={subject_alt_name}\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=server", "-keyout", str(made.key),
            "-out", str(request))  # fmt: skip
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca.cert), "-CAkey", str(ca.key),
            "-CAcreateserial", "-days", "2", "-extfile", str(extensions), "-out", str(made.cert))  # fmt: skip
    return made


def test_a_private_ca_file_is_trusted_and_verification_stays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    ca = make_ca(tmp_path / "ca")
    server_cert = signed_by(ca, tmp_path / "good")
    elsewhere = signed_by(ca, tmp_path / "elsewhere", "DNS:modelarts.example.com")
    job = {"metadata": {"id": "j1"}, "status": {"phase": "Running"}}

    def client(url: str, ca_file: str | None) -> ModelArtsAPI:
        return ModelArtsAPI(
            Transport(endpoint=url, project_id="p", auth=httpx.Auth(), max_attempts=1, ca_cert_file=ca_file)
        )

    with ScriptedServer(tls=server_cert) as server:
        server.handler = lambda _r: json_reply(job)
        with client(server.url, None) as plain, pytest.raises(CertificateError):
            plain.get_job("j1")  # the control: the CA is not trusted without the setting
        with client(server.url, str(ca.cert)) as trusting:
            assert trusting.get_job("j1").metadata.id == "j1"
    with (
        ScriptedServer(tls=elsewhere) as server,
        client(server.url, str(ca.cert)) as trusting,
        pytest.raises(CertificateError, match="not issued"),
    ):
        trusting.get_job("j1")  # signed by the trusted CA, but for another host: still refused
    with pytest.raises(UnusableValueError, match="HW_CACERT_FILE"):
        client("https://127.0.0.1:1", str(tmp_path / "missing.pem"))
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(UnusableValueError, match="no usable PEM"):
        client("https://127.0.0.1:1", str(tmp_path / "junk.pem"))


def test_iam_calls_trust_the_private_ca_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    ca = make_ca(tmp_path / "ca")
    with ScriptedServer(tls=signed_by(ca, tmp_path / "server")) as server:
        server.handler = lambda _r: json_reply({"projects": [{"id": "p9", "name": "r"}]})
        with pytest.raises(AccountError, match="caCertFile"):
            projects.find_project(Iam(server.url), httpx.Auth(), "r", identity="a")
        trusting = Iam(server.url, ca_cert_file=str(ca.cert))
        assert projects.find_project(trusting, httpx.Auth(), "r", identity="a") == "p9"


# -- secrets -------------------------------------------------------------------------------------------------


def test_renewed_keys_and_tokens_are_scrubbed(emulator: EmulatorProcess) -> None:
    settings = keyless(emulator, use_instance_metadata=True, metadata_endpoint=emulator.url)
    with open_api(settings) as client:
        assert isinstance(client.transport.auth, RenewingAuth)
        first = client.transport.auth.keys.current()
        assert list(client.iter_jobs()) == []  # signed with the first keys
        emulator.expire_temporary_keys()
        assert client.transport.auth.renew()  # as after an APIG.0307 refusal of that search
        second = client.transport.auth.keys.current()
        assert second.access != first.access
        for value in (*first.values(), *second.values()):
            assert client.transport.scrub(f"echo {value} back") == "echo *** back"
    assert "emulator-sts-" not in repr(client.transport.auth) and second.secret not in repr(second)


def test_oidc_sources_never_quote_the_token_file(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("  \n")
    iam = Iam("https://iam.r.example.com", transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    with pytest.raises(AccountError, match="is empty"):
        OidcKeys(iam, "idp", str(tmp_path / "empty")).fetch()
    with pytest.raises(AccountError, match="cannot read"):
        OidcKeys(iam, "idp", str(tmp_path / "absent")).fetch()

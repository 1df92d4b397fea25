"""A certificate that fails verification is one clear error, at once: never retried (the next attempt meets
the same certificate), named as a certificate problem with what to do. Verification itself stays on.

Against real HTTPS servers on 127.0.0.1 with self-signed certificates made by the openssl command.
"""

from __future__ import annotations

import pickle
import ssl
from pathlib import Path

import pytest

from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.errors import CertificateError, TransportError, certificate_problem
from pulumi_modelarts.wire.transport import Transport

from ..httpserver import ScriptedServer, json_reply, self_signed_certificate

AK, SK = "AKTLS0123456789", "SkTlsSecretValue0123456789"


def client_for(url: str, sleeps: list[float]) -> ModelArtsAPI:
    return ModelArtsAPI(
        Transport(
            endpoint=url,
            project_id="p1",
            auth=AkSkAuth(AK, SK),
            secrets=(AK, SK),
            max_attempts=10,
            sleep=sleeps.append,
        )
    )


def test_a_self_signed_certificate_is_refused_once_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    sleeps: list[float] = []
    with ScriptedServer(tls=self_signed_certificate(tmp_path)) as server:
        server.handler = lambda _r: json_reply({"metadata": {"id": "j1"}, "status": {"phase": "Running"}})
        with client_for(server.url, sleeps) as client, pytest.raises(CertificateError) as caught:
            client.get_job("j1")
        assert server.requests == []  # refused in the handshake: nothing was sent
    text = str(caught.value)
    assert sleeps == []  # no retry, no pause
    assert caught.value.attempts == 1 and "attempts" not in text
    assert "get training job 'j1'" in text and server.url in text
    assert "certificate" in text and "self-signed" in text
    assert "SSL_CERT_FILE" in text and "issuer" in text
    assert "modelarts:caCertFile" in text and "HW_CACERT_FILE" in text  # the setting for a private CA
    assert isinstance(caught.value, TransportError)  # callers that handle transport failures still do
    assert AK not in text and SK not in text
    assert str(pickle.loads(pickle.dumps(caught.value))) == text


def test_a_certificate_for_another_host_names_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trusted (it is the CA file), but issued for another name than the endpoint's host.
    elsewhere = self_signed_certificate(tmp_path, "DNS:modelarts.example.com")
    monkeypatch.setenv("SSL_CERT_FILE", str(elsewhere.cert))
    sleeps: list[float] = []
    with ScriptedServer(tls=elsewhere) as server:
        with client_for(server.url, sleeps) as client, pytest.raises(CertificateError) as caught:
            client.get_job("j1")
        assert server.requests == []
    text = str(caught.value)
    assert sleeps == []
    assert "not issued for the host 127.0.0.1" in text and "endpoint" in text


def test_the_trusted_certificate_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The control: the same kind of server, its certificate trusted, answers.
    certificate = self_signed_certificate(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate.cert))
    with ScriptedServer(tls=certificate) as server:
        server.handler = lambda _r: json_reply({"metadata": {"id": "j1"}, "status": {"phase": "Running"}})
        with client_for(server.url, []) as client:
            assert client.get_job("j1").metadata.id == "j1"


def test_a_plain_http_server_behind_an_https_endpoint_is_a_handshake_failure_retried_once() -> None:
    sleeps: list[float] = []
    with ScriptedServer() as server:
        https = server.url.replace("http://", "https://")
        with client_for(https, sleeps) as client, pytest.raises(TransportError) as caught:
            client.get_job("j1")
    assert not isinstance(caught.value, CertificateError)
    assert "TLS handshake failed" in str(caught.value)
    assert len(sleeps) == 1  # like a refused connection: one quick retry, not ten


@pytest.mark.parametrize(
    ("code", "message", "words"),
    [
        (18, "self-signed certificate", ["self-signed", "SSL_CERT_FILE"]),
        (19, "self-signed certificate in certificate chain", ["self-signed", "SSL_CERT_FILE"]),
        (20, "unable to get local issuer certificate", ["issuer is not an authority", "SSL_CERT_FILE"]),
        (10, "certificate has expired", ["expired", "clock"]),
        (9, "certificate is not yet valid", ["not valid yet", "clock"]),
        (62, "Hostname mismatch", ["not issued for the host h.example", "endpoint"]),
        (64, "IP address mismatch", ["not issued for the host h.example"]),
        (999, "something new", ["something new", "verify code 999", "SSL_CERT_FILE"]),
    ],
)
def test_each_verify_code_is_explained(code: int, message: str, words: list[str]) -> None:
    text = certificate_problem(code, message, "h.example")
    for word in words:
        assert word in text, text
    assert f"(OpenSSL: {message})" in text


def test_verification_is_what_refused_it() -> None:
    # The client's context verifies (an error of this type is what a failed verification raises).
    assert issubclass(ssl.SSLCertVerificationError, ssl.SSLError)
    from pulumi_modelarts.wire.transport import verifying_ssl_context

    context = verifying_ssl_context()
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname

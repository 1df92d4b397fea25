"""Per-call overheads of the client stay off the hot path without weakening TLS."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest

from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.errors import UnusableValueError
from pulumi_modelarts.wire.tls import ssl_context_for, verifying_ssl_context
from pulumi_modelarts.wire.transport import Transport

from ..httpserver import ScriptedServer, json_reply, self_signed_certificate


def test_clients_share_one_verifying_ssl_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    certificate = self_signed_certificate(tmp_path)
    # A CA file of its own makes this process build a new context (one per SSL_CERT_FILE) for these clients.
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate.cert))
    built: list[ssl.SSLContext] = []
    create = httpx.create_ssl_context

    def counting(*args: object, **kwargs: object) -> ssl.SSLContext:
        built.append(create(*args, **kwargs))  # type: ignore[arg-type]
        return built[-1]

    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    auth = AkSkAuth("AK", "SK")
    with ScriptedServer(tls=certificate) as server:
        server.handler = lambda _r: json_reply({"metadata": {"id": "j1"}, "status": {"phase": "Running"}})
        for _ in range(2):
            with ModelArtsAPI(Transport(endpoint=server.url, project_id="p", auth=auth)) as client:
                assert client.get_job("j1").metadata.id == "j1"
    assert len(built) == 1  # the CA bundle is loaded once per process, not per client
    context = built[0]
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname is True
    assert context.get_ca_certs() or context.cert_store_stats()["x509_ca"] > 0


def test_a_plain_http_client_loads_no_authority_and_still_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A loopback endpoint over plain http (the emulator) makes no handshake: its client's context loads no CA
    # bundle (httpx builds the context with the client, whether or not it is used), and trusts nobody.
    built: list[object] = []

    def counting(*args: object, **kwargs: object) -> ssl.SSLContext:
        built.append(args)
        return ssl.create_default_context()

    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    auth = AkSkAuth("AK", "SK")
    with ScriptedServer() as server:
        server.handler = lambda _r: json_reply({"metadata": {"id": "j1"}, "status": {"phase": "Running"}})
        assert server.url.startswith("http://127.0.0.1")
        with ModelArtsAPI(Transport(endpoint=server.url, project_id="p", auth=auth)) as client:
            assert client.get_job("j1").metadata.id == "j1"
    assert built == []
    context = ssl_context_for(server.url)
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname is True
    assert context.get_ca_certs() == [] and context.cert_store_stats()["x509_ca"] == 0
    # https keeps the verifying context, and a CA file given with a plain http endpoint is still checked.
    assert ssl_context_for("https://modelarts.example") is verifying_ssl_context()
    unusable = tmp_path / "ca.pem"
    unusable.write_text("not a certificate")
    with pytest.raises(UnusableValueError, match="holds no usable PEM certificate"):
        ssl_context_for(server.url, str(unusable))

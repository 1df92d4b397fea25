"""Per-call overheads of the client stay off the hot path without weakening TLS."""

from __future__ import annotations

import ssl

from pulumi_modelarts.auth import AkSkAuth
from pulumi_modelarts.client import ModelArtsClient


def _context(client: ModelArtsClient) -> ssl.SSLContext:
    context = client._http._transport._pool._ssl_context  # type: ignore[attr-defined]
    assert isinstance(context, ssl.SSLContext)
    return context


def test_clients_share_one_verifying_ssl_context() -> None:
    auth = AkSkAuth("AK", "SK")
    with (
        ModelArtsClient(endpoint="https://modelarts.example.com", project_id="p", auth=auth) as one,
        ModelArtsClient(endpoint="https://modelarts.example.com", project_id="p", auth=auth) as two,
    ):
        context = _context(one)
        assert _context(two) is context  # the CA bundle is loaded once per process, not per client
        assert context.verify_mode is ssl.CERT_REQUIRED
        assert context.check_hostname is True
        assert context.get_ca_certs() or context.cert_store_stats()["x509_ca"] > 0

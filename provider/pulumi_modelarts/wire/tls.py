"""The TLS context every HTTPS call verifies with: the system's trusted roots, plus a private CA's when given.

Verification always stays on: a private or corporate authority (a TLS-inspecting proxy, a private deployment)
is trusted by adding its certificate (``caCertFile`` / ``HW_CACERT_FILE``), never by turning checks off.
"""

from __future__ import annotations

import functools
import os
import ssl
import threading

import httpx

from .errors import UnusableValueError

__all__ = ["CA_CERT_SETTINGS", "ssl_context_for", "verifying_ssl_context"]

CA_CERT_SETTINGS = "modelarts:caCertFile or HW_CACERT_FILE"

_SSL_LOCK = threading.Lock()
_SSL_CONTEXTS: dict[tuple[str, str, str, float], ssl.SSLContext] = {}


def verifying_ssl_context(ca_cert_file: str | None = None) -> ssl.SSLContext:
    """httpx's default verifying context, built once per process (per SSL_CERT_FILE/SSL_CERT_DIR), with the
    certificates of ``ca_cert_file`` (PEM: a private or corporate authority) added to its trusted roots.

    Building one loads the whole CA bundle (about 20 ms of CPU); the provider opens a client per
    resource call, so a shared context keeps that cost off every create, read and delete. A CA file that
    changes on disk makes a new one. UnusableValueError names a CA file that cannot be read or used.
    """
    what = f"the CA file {ca_cert_file} ({CA_CERT_SETTINGS})"
    try:
        changed = os.stat(ca_cert_file).st_mtime if ca_cert_file else 0.0
    except OSError as exc:
        raise UnusableValueError(f"{what} cannot be read: {exc.strerror}") from None
    env = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
    key = (*env, ca_cert_file or "", changed)
    with _SSL_LOCK:
        context = _SSL_CONTEXTS.get(key)
        if context is None:
            context = httpx.create_ssl_context()
            if ca_cert_file:
                try:
                    context.load_verify_locations(cafile=ca_cert_file)
                except (OSError, ssl.SSLError) as exc:
                    reason = getattr(exc, "reason", None) or type(exc).__name__
                    raise UnusableValueError(f"{what} holds no usable PEM certificate ({reason})") from None
            _SSL_CONTEXTS[key] = context
        return context


def ssl_context_for(url: str, ca_cert_file: str | None = None) -> ssl.SSLContext:
    """The context a client of ``url`` verifies with: ``verifying_ssl_context`` for https; for plain http (a
    loopback endpoint: the settings refuse it anywhere else) one that trusts no authority at all.

    A plain http client makes no handshake, but httpx builds its context when the client is made: the
    verifying one loads the CA bundle (about 90 ms of CPU in a new plugin process), this one nothing. It
    still verifies, so a TLS peer it ever met would be refused, never trusted.
    """
    if not url.lower().startswith("http://"):
        return verifying_ssl_context(ca_cert_file)
    if ca_cert_file:
        verifying_ssl_context(ca_cert_file)  # a CA file given is still read and named when unusable
    return _trusts_nobody()


@functools.cache
def _trusts_nobody() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, hostnames checked, no authority loaded

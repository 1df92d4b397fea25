"""A scripted HTTP/1.1 server on 127.0.0.1 for client tests.

Each request is recorded, then answered by the next queued `Reply` (or by `handler`, if set, when the queue is
empty). A reply can also drop the connection without answering, or wait before answering, to reproduce lost
answers and timeouts with a real socket. With `tls`, it speaks HTTPS with a certificate made by
`self_signed_certificate`. `serving_the_provider` points the dynamic provider's settings at one.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON; str/bytes -> as is; None -> empty
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # read the request, then close the connection without a word
    delay: float = 0.0  # seconds to wait before answering

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if isinstance(self.body, (dict, list)):
            data = json.dumps(self.body, ensure_ascii=False).encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        elif isinstance(self.body, str):
            data = self.body.encode("utf-8")
        elif isinstance(self.body, bytes):
            data = self.body
        else:
            data = b""
        return data, headers


def json_reply(body: Any, status: int = 200, **headers: str) -> Reply:
    return Reply(status=status, body=body, headers={k.replace("_", "-"): v for k, v in headers.items()})


@dataclass
class Recorded:
    method: str
    path: str
    query: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


@dataclass(frozen=True)
class Certificate:
    cert: Path  # PEM certificate, also usable as the only trusted CA (SSL_CERT_FILE)
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context


def self_signed_certificate(directory: Path, subject_alt_name: str = "IP:127.0.0.1") -> Certificate:
    """A fresh self-signed certificate (openssl) for subject_alt_name, such as "IP:127.0.0.1" or "DNS:x"."""
    openssl = shutil.which("openssl")
    assert openssl, "the TLS tests need the openssl command"
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test",
         "-addext", f"subjectAltName={subject_alt_name}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return Certificate(cert, key)


class ScriptedServer:
    def __init__(self, tls: Certificate | None = None) -> None:
        self._tls = tls
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.handler: Callable[[Recorded], Reply] | None = None
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                # Headers and body go out in separate writes; without this, Nagle plus delayed ACKs add 40 ms.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                recorded = Recorded(
                    method=self.command,
                    path=parts.path,
                    query=parts.query,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                reply = server._next_reply(recorded)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    return
                data, headers = reply.encoded()
                self.send_response(reply.status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        if tls is not None:
            # Each accepted connection does its handshake first; a client refusing the certificate ends it.
            self._httpd.socket = tls.server_context().wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    def _next_reply(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if self.replies:
                return self.replies.popleft()
        if self.handler is not None:
            return self.handler(recorded)
        return json_reply({"error_code": "Test.0000", "error_msg": "no scripted answer left"}, status=418)

    @property
    def url(self) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self._httpd.server_address[1]}"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def serving_the_provider(
    monkeypatch: pytest.MonkeyPatch, *, access_key: str, secret_key: str, project: str
) -> Iterator[ScriptedServer]:
    """A ScriptedServer that the provider's settings point at, from the environment alone (no other HW_ or
    HUAWEICLOUD_SDK_ variable, no provider config): it polls every 0.01 s, and its client retries as often
    as ever without the pause between tries."""
    from pulumi_modelarts.frontends import (
        dynamic as provider,  # provider code, loaded only by the tests using this
    )
    from pulumi_modelarts.job import core  # provider code, loaded only by the tests using this
    from pulumi_modelarts.job.waiting import (  # provider code, loaded only by the tests using this
        polling as wait,
    )
    from pulumi_modelarts.wire.api import ModelArtsAPI

    for name in list(os.environ):
        if name.startswith(("HW_", "HUAWEICLOUD_SDK_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv(wait.POLL_SECONDS_ENV, "0.01")
    opening = core.open_client

    def without_pauses(*args: Any, **kwargs: Any) -> ModelArtsAPI:
        # Retries keep their real count; only the pause between them goes (the client's base_delay knob).
        client = opening(*args, **kwargs)
        client.transport.base_delay = 0.0
        return client

    monkeypatch.setattr(core, "open_client", without_pauses)
    with ScriptedServer() as srv:
        monkeypatch.setenv("HW_MODELARTS_ENDPOINT", srv.url)
        monkeypatch.setenv("HW_ACCESS_KEY", access_key)
        monkeypatch.setenv("HW_SECRET_KEY", secret_key)
        monkeypatch.setenv("HW_PROJECT_ID", project)
        provider.set_config({})
        yield srv

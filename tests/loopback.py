"""Tests that talk to loopback only: no proxy from the environment, no other address, no name lookup.

The official SDK reaches for real endpoints unless told otherwise (IAM, the metadata service at
169.254.169.254): ``keep_to_loopback`` refuses any other address before a socket connects or a name is looked
up, so a forgotten endpoint fails the test instead of calling out. The ``loopback_only`` fixture
(tests/conftest.py) applies it.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import Any

import pytest

__all__ = ["keep_to_loopback", "loopback_problem"]


def loopback_problem(host: str) -> str | None:
    """Why a connection to ``host`` must not be made (None for a loopback address)."""
    try:
        if ipaddress.ip_address(host.split("%")[0]).is_loopback:
            return None
    except ValueError:
        if host == "localhost":
            return None
    return f"refused to reach {host!r}: tests talk to loopback only"


def keep_to_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until monkeypatch is undone: nothing leaves loopback, and the official SDK remembers no project id."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost,::1")
    for name in ("HUAWEICLOUD_SDK_IAM_ENDPOINT", "HUAWEICLOUD_SDK_AK", "HUAWEICLOUD_SDK_SK"):
        monkeypatch.delenv(name, raising=False)
    connect = socket.socket.connect
    getaddrinfo = socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            problem = loopback_problem(str(address[0]))
            if problem:
                raise OSError(problem)
        connect(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        problem = loopback_problem(host.decode() if isinstance(host, bytes) else str(host))
        if problem:
            raise OSError(problem)
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    # The SDK caches project ids per access key and region across instances; each test starts empty. An SDK
    # not imported yet has no cache to empty (and a test that needs no SDK does not load it for this).
    credentials = sys.modules.get("huaweicloudsdkcore.auth.credentials")
    if credentials is not None:
        monkeypatch.setattr(credentials.Credentials, "_CACHE", {})

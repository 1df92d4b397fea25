"""Keys that can be renewed: how the transport recognises a signer that renews its keys, and the refusal of
expired keys (the gateway's APIG.0307, "The token must be updated") that fresh keys cure.

The renewing signer itself lives with the account (``account.keys.RenewingAuth``): the wire knows only this
protocol.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["KEY_EXPIRED_CODE", "RenewableAuth"]

KEY_EXPIRED_CODE = "APIG.0307"


@runtime_checkable
class RenewableAuth(Protocol):
    """A signer whose keys can be renewed: a call refused with APIG.0307 gets fresh keys and is sent again;
    a create only after its job was looked for (``Transport.request_or_find``)."""

    def renew(self) -> bool:
        """Fresh keys after the request this thread last sent was refused as expired; False when there are
        none (the refusal then stands)."""
        ...

"""The base of every error this package raises about talking to ModelArts, and the two rules of their texts:
a known secret never appears (``redact``), and what the service wrote is kept short (``shorten``).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ModelArtsError", "redact", "shorten"]

_MAX_TEXT = 500


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace every occurrence of each (non-trivial) secret in text with "***"."""
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def shorten(text: str, limit: int = _MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ModelArtsError(Exception):
    """Base class of everything this package raises about talking to ModelArts."""

"""The base of every error this package raises about talking to ModelArts, and the rules of their texts: a
known secret never appears (``redact``), and whatever an error quotes that it did not write (a service's
message or body, a list an answer or a file gave) is cut to ``QUOTED_CHARS`` with a count of what was left
out (``shorten`` for a text, ``listing`` for a list): an IAM listing 10,000 projects, none matching, must not
print them all.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["QUOTED_CHARS", "ModelArtsError", "listing", "redact", "shorten"]

# The most characters of a quoted text or list in an error, the note of what was left out included.
QUOTED_CHARS = 500


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace every occurrence of each (non-trivial) secret in text with "***"."""
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def shorten(text: str, limit: int = QUOTED_CHARS) -> str:
    """text on one line, cut to at most limit characters saying how many were left out."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    # The note's width with the largest count it can show, so that the result never passes limit.
    keep = limit - len(f"… ({len(text)} more characters)")
    if keep <= 0:
        return text[: limit - 1] + "…"
    return f"{text[:keep]}… ({len(text) - keep} more characters)"


def listing(items: Iterable[str], limit: int = QUOTED_CHARS, separator: str = ", ") -> str:
    """items joined, as many whole ones as fit in limit characters with the note of how many were left out
    (the first one cut short when even it does not fit)."""
    names = [" ".join(str(item).split()) for item in items]
    width = 0
    for count, name in enumerate(names):
        width += len(separator) * bool(count) + len(name)
        left = len(names) - count - 1
        if width + (len(f"{separator}and {left} more") if left else 0) > limit:
            break
    else:
        return separator.join(names)
    if count == 0:
        note = f"{separator}and {len(names) - 1} more" if len(names) > 1 else ""
        return shorten(names[0], max(1, limit - len(note))) + note
    return f"{separator.join(names[:count])}{separator}and {len(names) - count} more"


class ModelArtsError(Exception):
    """Base class of everything this package raises about talking to ModelArts."""

"""What the engine shows of an operation, alike for both front-ends: a check failure (``engine_failure``), a
warning (``warning_line``) and a failed operation's error (``error_text``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["engine_failure", "error_text", "warning_line"]


def engine_failure(path: str, reason: str) -> tuple[str, str]:
    """A check failure as the engine should print it: (property, reason).

    The engine looks a failure's property up among the top-level inputs and prints its value, so a nested
    path ("spec.resource.node_count") would show as ``{<nil>}``: it leads the reason instead.
    """
    if path and "." not in path and "[" not in path:
        return path, reason
    return "", f"{path}: {reason}" if path else reason


def warning_line(path: str, reason: str, job: str | None = None) -> str:
    """A warning (advice the service does not enforce), naming the job where the line is not under it."""
    named = f"training job {job}: " if job else ""
    return f"{named}{path}: {reason}" if path else f"{named}{reason}"


def error_text(exc: BaseException, *data: Mapping[str, Any]) -> str:
    """What the engine shows of a failed operation: this package's errors are written for users and go as
    they are; anything else is a bug, named by its type.

    data: the operation's inputs or outputs, when the front-end has them: their secret values are hidden, a
    last net behind the client's own scrubbing (``Transport.hide``).
    """
    from ..job.normalising import secret_values
    from ..wire.errors import ModelArtsError, redact

    text = str(exc) if isinstance(exc, ModelArtsError) else f"{type(exc).__name__}: {exc}"
    hidden: set[str] = set()
    for given in data:
        hidden |= secret_values(given)
    return redact(text, hidden) if hidden else text

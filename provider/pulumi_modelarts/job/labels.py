"""How progress lines and errors name things: a job ("training job NAME (id ID)"), how a user stops one
this provider could not, an elapsed time, one of this package's errors in one line, and an exception of any
kind in words fit for a message (scrubbed, bounded).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..wire.api_errors import APIError
from ..wire.errors import ModelArtsError, shorten

if TYPE_CHECKING:
    from ..wire.models import TrainingJob

__all__ = ["brief", "describe_job", "described", "format_elapsed", "how_to_stop", "job_label"]

# An exception's text in a message: enough for a reader, never a page of nested JSON.
DESCRIBED_CHARS = 300


def job_label(job: TrainingJob, fallback_id: str | None = None) -> str:
    """How progress lines and errors name a job: "training job NAME (id ID)" (``describe_job``)."""
    return describe_job(job.name, job.job_id or fallback_id)


def brief(exc: BaseException) -> str:
    """An error in one line: the service's code and message for an API error, else its text."""
    if isinstance(exc, APIError) and exc.error_code:
        return f"{exc.error_code}: {exc.error_msg or exc.describe_kind()}"
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # an exception whose text cannot even be built: its type is all there is
        return type(exc).__name__


def described(exc: BaseException, scrub: Callable[[str], str]) -> str:
    """Any exception in one line for a message: this package's errors as written, anything else (ours, httpx,
    a credential source, a parser) as "Type: text"; scrub hides the credentials and values the client knows.

    Never raises: a text that cannot be built or scrubbed (a credential source failing again under scrub) is
    left out, and only the exception's type is named.
    """
    kind = type(exc).__name__
    try:
        text = str(exc) if isinstance(exc, ModelArtsError) else f"{kind}: {exc}"
        return shorten(scrub(text), DESCRIBED_CHARS)
    except Exception:
        return f"{kind} (its text is left out: it could not be checked for credentials)"


def format_elapsed(seconds: float) -> str:
    """Compact elapsed time for progress lines: 0.4s, 12s, 3m05s, 1h02m."""
    if seconds < 10:
        return f"{max(seconds, 0.0):.1f}s"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def describe_job(name: str | None, job_id: str | None) -> str:
    if name and job_id:
        return f"training job {name} (id {job_id})"
    if job_id:
        return f"training job {job_id}"
    return f"training job {name or '(unnamed)'}"


def how_to_stop(name: str | None, job_id: str | None) -> str:
    """How a user stops a job this provider could not: the console, or the terminate API, naming the job."""
    segment = job_id or "{job_id}"
    return (
        f"stop {describe_job(name, job_id)} in the ModelArts console, or with the terminate API "
        f'(POST /v2/{{project_id}}/training-jobs/{segment}/actions, body {{"action_type": "terminate"}})'
    )

"""What a training job's phase means for a deployment: pure rules, no network.

- wait_for targets (`parse_wait_for`) and `classify`: is a job that is in a given phase done, still on its
  way, or lost?
  (The phase names and what they mean on their own are in ``phases``.)
- `backoff`: the schedule of pauses between status polls.
- `parse_duration`: wait_timeout values such as 90, "90s", "30m", "1h30m".
- `describe_failure`: the one error text a failed, abnormal or timed-out job turns into.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, TypeAlias

from ..generated.fields import SETTING_CHOICES, SETTING_DEFAULTS
from ..wire.phases import Phase, is_failure, is_stopped

# The longest wait_timeout accepted: a week covers any sane deployment and keeps arithmetic finite.
MAX_WAIT_TIMEOUT_SECONDS = 7 * 24 * 3600.0


#: The wait_for targets: the choices of the settings model (``ProviderSettings.wait_for``, via fields.py).
WAIT_FOR_CHOICES: Final = SETTING_CHOICES["wait_for"]
#: A wait_for target, one of WAIT_FOR_CHOICES (``parse_wait_for``); ``classify`` says what each means.
WaitFor: TypeAlias = str


def _choice(value: object, choices: tuple[str, ...]) -> str:
    """The choice named by value (case-insensitive); ValueError listing the choices otherwise."""
    if isinstance(value, str) and value.strip().lower() in choices:
        return value.strip().lower()
    listed = ", ".join(repr(choice) for choice in choices)
    raise ValueError(f"must be one of {listed}, got {_short_repr(value)}")


def parse_wait_for(value: object) -> WaitFor:
    """The target named by value (case-insensitive); ValueError listing the choices otherwise."""
    return _choice(value, WAIT_FOR_CHOICES)


# The defaults are declared once, on the settings model (generated into fields.SETTING_DEFAULTS).
DEFAULT_WAIT_FOR: Final = parse_wait_for(SETTING_DEFAULTS["wait_for"])

#: What destroy may do with a job: the choices of the settings model (``ProviderSettings.on_destroy``).
ON_DESTROY_CHOICES: Final = SETTING_CHOICES["on_destroy"]


def parse_on_destroy(value: object) -> str:
    """The choice named by value (case-insensitive); ValueError listing the choices otherwise."""
    return _choice(value, ON_DESTROY_CHOICES)


def deletes_record(declared: Mapping[str, Any]) -> bool:
    """Whether destroying the job declared so deletes its record too: ``on_destroy: delete``, or its older
    spelling ``keep_record: false``. (The declared value stays as written: any case.)"""
    chosen = declared.get("on_destroy")
    if isinstance(chosen, str) and chosen.strip().lower() == "delete":
        return True
    return declared.get("keep_record") is False


class Verdict(enum.Enum):
    WAIT = "wait"  # not there yet: poll again
    DONE = "done"  # the target was reached
    FAILED = "failed"  # the job failed or was stopped: it will never reach the target


def classify(phase: str | None, wait_for: WaitFor, secondary_phase: str | None = None) -> Verdict:
    """Whether a job in `phase` (and `secondary_phase`) has reached `wait_for`.

    The targets: "none" (the service accepted the job), "pending" (past Creating: scheduled or queued, the
    default), "running" (its containers run, or it already finished successfully), "completed" (it finished
    successfully).

    A job that ended Failed or Abnormal, or whose creation failed (secondary phase CreateFailed), has failed;
    so has one that is Terminating or Terminated while we wait for it (someone stopped it). A Completed job
    satisfies every target: it got past Creating, it ran, and it completed. Phases this code does not know are
    waited on, so a new in-progress phase the service might add does not break deployments; the wait timeout
    bounds that, and a wait that ends on such a phase terminates the job (``phases.may_still_run``).
    """
    if wait_for == "none":
        return Verdict.DONE
    if is_failure(phase, secondary_phase) or is_stopped(phase):
        return Verdict.FAILED
    if phase == Phase.COMPLETED:
        return Verdict.DONE
    if wait_for == "pending":
        return Verdict.DONE if phase in (Phase.PENDING, Phase.RUNNING) else Verdict.WAIT
    if wait_for == "running":
        return Verdict.DONE if phase == Phase.RUNNING else Verdict.WAIT
    if wait_for == "completed":
        return Verdict.WAIT
    # A choice the settings model gained without a rule here (tests/test_generate.py tries every choice).
    raise ValueError(f"no rule for wait_for {wait_for!r}")


def backoff(initial: float = 1.0, cap: float = 15.0, factor: float = 1.5) -> Iterator[float]:
    """Pauses between polls: initial, then growing by factor, never above cap (an endless iterator)."""
    if not (initial > 0 and cap > 0 and factor >= 1):
        raise ValueError("backoff needs initial > 0, cap > 0 and factor >= 1")
    delay = min(initial, cap)
    while True:
        yield delay
        delay = min(delay * factor, cap)


_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)(h|m|s)")


def parse_duration(value: object) -> float:
    """Seconds in value: a positive number of seconds, or a string like "90", "90s", "30m", "1h30m", "1.5h".

    Raises ValueError in plain words otherwise (zero, negative, infinite, unknown units, over a week).
    """
    if isinstance(value, bool):
        raise ValueError(f'must be a number of seconds or a duration such as "30m", got {value!r}')
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        if not text:
            raise ValueError('must not be empty: give seconds or a duration such as "30m" or "1h30m"')
        try:
            seconds = float(text)
        except ValueError:
            seconds = _parse_units(text, value)
    else:
        raise ValueError(f'must be a number of seconds or a duration such as "30m", got {_short_repr(value)}')
    if math.isnan(seconds) or math.isinf(seconds):
        raise ValueError(f"must be a finite duration, got {_short_repr(value)}")
    if seconds <= 0:
        raise ValueError(f"must be positive, got {_short_repr(value)}")
    if seconds > MAX_WAIT_TIMEOUT_SECONDS:
        raise ValueError(f"must be at most one week (604800 seconds), got {_short_repr(value)}")
    return seconds


def _parse_units(text: str, original: object) -> float:
    pos = 0
    total = 0.0
    seen: list[str] = []
    for match in _DURATION_RE.finditer(text):
        if match.start() != pos:
            break
        unit = match.group(2)
        if unit in seen or (seen and "hms".index(unit) <= "hms".index(seen[-1])):
            raise ValueError(
                f"{_short_repr(original)} is not a duration: "
                "use the units h, m and s at most once each, in that order"
            )
        seen.append(unit)
        total += float(match.group(1)) * {"h": 3600.0, "m": 60.0, "s": 1.0}[unit]
        pos = match.end()
    if pos != len(text) or not seen:
        raise ValueError(
            f"{_short_repr(original)} is not a duration: use seconds (e.g. 90) or units h/m/s "
            '(e.g. "90s", "30m", "1h30m")'
        )
    return total


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


def unknown_phase(phase: str | None) -> str:
    """Why a job in a phase this code does not know may still run (``phases.may_still_run``)."""
    return (
        f"phase {phase or '(none)'} is not one this provider knows (the service adds phases over time), "
        "so it cannot tell whether the job still runs"
    )


def describe_failure(
    *,
    name: str | None,
    job_id: str | None,
    status: Mapping[str, Any] | None,
    reason: str,
    terminated: bool | None,
    wait_for: WaitFor | None = None,
    notes: Sequence[str] = (),
    terminating: bool = False,
    recorded: bool = False,
) -> str:
    """One error text for a job that failed or timed out during create.

    reason says what went wrong ("ended Failed", "did not reach Running within 30m"); terminated tells the
    reader whether this provider stopped the job (True: its terminate was accepted and the job then read in
    a final phase), found it ended (False: a caller passes it only when the service said so), or did not see
    it stop (None: then how to stop it; terminating: its terminate was accepted, yet it was not seen
    stopped) — so they know whether anything is still running and billing. notes (why not) come before that
    line; recorded adds that the job is kept in the state (a front-end records it as a resource whose
    creation failed).
    """
    status = status or {}
    phase = _text(status.get("phase")) or "unknown"
    secondary = _text(status.get("secondary_phase"))
    lines = [f"{describe_job(name, job_id)} {reason}."]
    phase_text = f"phase {phase}" + (f", secondary phase {secondary}" if secondary else "")
    duration = status.get("duration")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration > 0:
        phase_text += f", ran {format_elapsed(duration / 1000.0)}"
    lines.append(f"  last status: {phase_text}")
    for task_line in task_lines(status.get("task_statuses")):
        lines.append(f"  {task_line}")
    if wait_for is not None:
        lines.append(f"  waiting for: {wait_for}")
    lines.extend(f"  {note}" for note in notes)
    if terminated is True:
        lines.append("  the job was terminated, so nothing is left running outside the Pulumi state.")
    elif terminated is False:
        lines.append("  the job is no longer running, so nothing is left running outside the Pulumi state.")
    elif terminating:
        lines.append(
            "  terminate accepted (Terminating), but the job was not seen stopped, so it may still be "
            f"running: {how_to_stop(name, job_id)}."
        )
    else:
        lines.append(
            f"  the job could NOT be terminated and may still be running: {how_to_stop(name, job_id)}."
        )
    if terminated is None and recorded:
        lines.append(
            "  it is kept in the Pulumi state as a resource whose creation failed: `pulumi destroy` stops "
            "it, and the next `pulumi up` reads it again."
        )
    return "\n".join(lines)


def task_lines(task_statuses: object) -> list[str]:
    """'task worker-0: exit code 137, message OOMKilled' for each task status that says something."""
    if not isinstance(task_statuses, Sequence) or isinstance(task_statuses, (str, bytes)):
        return []
    out: list[str] = []
    for entry in task_statuses:
        if not isinstance(entry, Mapping):
            continue
        task = _text(entry.get("task")) or "(unnamed task)"
        parts = []
        code = entry.get("exit_code")
        if isinstance(code, (int, float)) and not isinstance(code, bool):
            parts.append(f"exit code {int(code)}")
        message = _text(entry.get("message"))
        if message:
            parts.append(f"message {message}")
        if parts:
            out.append(f"task {task}: " + ", ".join(parts))
    return out


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())[:500]
    return None


def _short_repr(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


DEFAULT_WAIT_TIMEOUT_SECONDS = parse_duration(SETTING_DEFAULTS["wait_timeout"])

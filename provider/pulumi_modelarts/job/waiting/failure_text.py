"""The one error text a job that failed, ended abnormally or timed out during create turns into
(``describe_failure``, with its tasks' exit codes and messages), and why a job in a phase this code does not
know may still run (``unknown_phase``). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..labels import describe_job, format_elapsed, how_to_stop
from ..setting_values import WaitFor

__all__ = ["describe_failure", "task_lines", "unknown_phase"]


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

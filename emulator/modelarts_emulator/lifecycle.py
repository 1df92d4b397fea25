"""A job's status as a pure function of its timing plan and the current time.

Nothing runs in the background: each answer computes the phase from timestamps, so a restarted emulator (with
--data-dir) carries on where it stopped and tests can reason about phases exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .config import Timing

# metadata.annotations keys that steer a job in the emulator only (documented in the package docstring).
FAIL_AFTER = "emulator/fail-after-seconds"
EXIT_CODE = "emulator/exit-code"
FAILURE_MESSAGE = "emulator/failure-message"
STAY_PENDING = "emulator/stay-pending"
RUNNING_SECONDS = "emulator/running-seconds"
HOOK_PREFIX = "emulator/"

TERMINABLE = frozenset({"Creating", "Pending", "Running"})


@dataclass(frozen=True)
class Plan:
    """Everything that decides a job's phases, fixed when the job is created (times in epoch seconds)."""

    created_at: float
    creating: float
    pending: float
    running: float
    terminating: float
    stay_pending: bool = False
    fail_after: float | None = None
    exit_code: int = 1
    failure_message: str = "the training process exited with an error (emulated)"
    terminated_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def hook_problems(annotations: Mapping[str, str]) -> list[tuple[str, str]]:
    """Unusable values of the emulator's annotation hooks, as (field path, message)."""
    out: list[tuple[str, str]] = []
    for key in (FAIL_AFTER, RUNNING_SECONDS):
        if key in annotations:
            try:
                if float(annotations[key]) < 0:
                    raise ValueError
            except ValueError:
                out.append((f"metadata.annotations.{key}", "must be a number of seconds, 0 or more"))
    if EXIT_CODE in annotations:
        try:
            int(annotations[EXIT_CODE])
        except ValueError:
            out.append((f"metadata.annotations.{EXIT_CODE}", "must be an integer"))
    return out


def make_plan(timing: Timing, annotations: Mapping[str, str], now: float) -> Plan:
    """The plan for a new job; call hook_problems first (values here are assumed valid)."""
    running = float(annotations[RUNNING_SECONDS]) if RUNNING_SECONDS in annotations else timing.running
    fail_after = float(annotations[FAIL_AFTER]) if FAIL_AFTER in annotations else None
    return Plan(
        created_at=now,
        creating=timing.creating,
        pending=timing.pending,
        running=running,
        terminating=timing.terminating,
        stay_pending=annotations.get(STAY_PENDING, "").lower() == "true",
        fail_after=fail_after,
        exit_code=int(annotations.get(EXIT_CODE, "1")),
        failure_message=annotations.get(FAILURE_MESSAGE, Plan.failure_message),
    )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


@dataclass(frozen=True)
class _Natural:
    """Where the job would be without any terminate request."""

    phase: str
    secondary: str
    start: float | None  # when Running began
    end: float | None  # when it finished (Completed or Failed)


def _natural(plan: Plan, now: float) -> _Natural:
    start = plan.created_at + plan.creating + plan.pending
    if now < plan.created_at + plan.creating:
        return _Natural("Creating", "Creating", None, None)
    if plan.stay_pending or now < start:
        return _Natural("Pending", "Queuing", None, None)
    if plan.fail_after is not None and plan.fail_after < plan.running:
        if now >= start + plan.fail_after:
            return _Natural("Failed", "Failed", start, start + plan.fail_after)
    elif now >= start + plan.running:
        return _Natural("Completed", "Completed", start, start + plan.running)
    return _Natural("Running", "Running", start, None)


def phase_at(plan: Plan, now: float) -> str:
    return str(status_at(plan, now, ["worker-0"])["phase"])


def status_at(plan: Plan, now: float, tasks: list[str]) -> dict[str, Any]:
    """The status object (as the service shapes it) of a job with this plan at time `now`."""
    terminated = plan.terminated_at is not None and now >= plan.terminated_at
    nat = _natural(plan, plan.terminated_at if terminated and plan.terminated_at is not None else now)
    phase, secondary, end = nat.phase, nat.secondary, nat.end
    if terminated and plan.terminated_at is not None:
        end = plan.terminated_at if nat.start is not None else None
        done = now >= plan.terminated_at + plan.terminating
        phase = secondary = "Terminated" if done else "Terminating"
    status: dict[str, Any] = {
        "phase": phase,
        "secondary_phase": secondary,
        "duration": _ms(((end if end is not None else now) - nat.start) if nat.start is not None else 0),
        "start_time": _ms(nat.start) if nat.start is not None else 0,
        "node_count_metrics": None,
        "tasks": list(tasks),
    }
    if nat.start is not None:
        record: dict[str, Any] = {"start_at": int(nat.start), "start_type": "init_or_rescheduled"}
        if end is not None:
            record["end_at"] = int(end)
            record["end_reason"] = {
                "Completed": "job completed",
                "Failed": f"exit with {plan.exit_code}",
            }.get(nat.phase, "job terminated")
        status["running_records"] = [record]
    if phase == "Failed":
        status["task_statuses"] = [
            {"task": task, "exit_code": plan.exit_code, "message": plan.failure_message} for task in tasks
        ]
    elif phase == "Completed":
        status["task_statuses"] = [{"task": task, "exit_code": 0, "message": ""} for task in tasks]
    return status

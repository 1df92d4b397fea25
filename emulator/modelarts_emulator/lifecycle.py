"""A job's life as a pure function of its timing plan and the current time.

Nothing runs in the background: each answer computes the phase (and the log and events) from timestamps, so a
restarted emulator (with --data-dir) carries on where it stopped and tests can reason about phases exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .config import Timing

# Level-1 phases (status.phase) as the API pages list them; the emulator plays all but Abnormal.
CREATING = "Creating"
PENDING = "Pending"
RUNNING = "Running"
FAILED = "Failed"
COMPLETED = "Completed"
TERMINATING = "Terminating"
TERMINATED = "Terminated"
ABNORMAL = "Abnormal"
PHASES = frozenset({CREATING, PENDING, RUNNING, FAILED, COMPLETED, TERMINATING, TERMINATED, ABNORMAL})
# Only Creating, Waiting (Pending) and Running jobs can be terminated (terminate page).
TERMINABLE = frozenset({CREATING, PENDING, RUNNING})
SECONDARY = {PENDING: "Queuing"}  # the level-2 phase where it differs from the level-1 one

# metadata.annotations keys that steer a job in the emulator only (documented in the package docstring).
HOOK_PREFIX = "emulator/"
FAIL_AFTER = "emulator/fail-after-seconds"
EXIT_CODE = "emulator/exit-code"
FAILURE_MESSAGE = "emulator/failure-message"
STAY_PENDING = "emulator/stay-pending"
RUNNING_SECONDS = "emulator/running-seconds"
LOG_TAIL = "emulator/log-tail"
LOGS_CLEARED_AFTER = "emulator/logs-cleared-after-seconds"
TERMINATING_SECONDS = "emulator/terminating-seconds"
THROTTLE_UPDATES = "emulator/throttle-updates"
REFUSE_TAGS = "emulator/refuse-tags"
LOG_ECHO_ENV = "emulator/log-echo-env"
REPORT_PHASE = "emulator/report-phase"
REPORT_PHASE_AFTER = "emulator/report-phase-after-seconds"
REPORT_PHASE_TERMINABLE = "emulator/report-phase-terminable"
_SECONDS_HOOKS = (FAIL_AFTER, RUNNING_SECONDS, LOGS_CLEARED_AFTER, TERMINATING_SECONDS, REPORT_PHASE_AFTER)


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
    log_tail: str | None = None
    logs_cleared_after: float | None = None
    throttle_updates: bool = False
    refuse_tags: bool = False
    # A phase the API pages do not list, reported instead of Creating, Pending or Running from reported_after
    # seconds after creation (``shown_phase``): the service adds phases over time.
    reported_phase: str | None = None
    reported_after: float = 0.0
    reported_terminable: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        # Plans stored by older emulators lack newer fields; those take their defaults.
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def hook_problems(annotations: Mapping[str, str]) -> list[tuple[str, str]]:
    """Unusable values of the emulator's annotation hooks, as (field path, message)."""
    out: list[tuple[str, str]] = []
    for key in _SECONDS_HOOKS:
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
    if REPORT_PHASE in annotations and not annotations[REPORT_PHASE].strip():
        out.append((f"metadata.annotations.{REPORT_PHASE}", "must name a phase"))
    return out


def make_plan(timing: Timing, annotations: Mapping[str, str], now: float) -> Plan:
    """The plan for a new job; call hook_problems first (values here are assumed valid)."""
    running = float(annotations[RUNNING_SECONDS]) if RUNNING_SECONDS in annotations else timing.running
    fail_after = float(annotations[FAIL_AFTER]) if FAIL_AFTER in annotations else None
    cleared = annotations.get(LOGS_CLEARED_AFTER)
    terminating = annotations.get(TERMINATING_SECONDS)
    return Plan(
        created_at=now,
        creating=timing.creating,
        pending=timing.pending,
        running=running,
        terminating=float(terminating) if terminating is not None else timing.terminating,
        stay_pending=annotations.get(STAY_PENDING, "").lower() == "true",
        fail_after=fail_after,
        exit_code=int(annotations.get(EXIT_CODE, "1")),
        failure_message=annotations.get(FAILURE_MESSAGE, Plan.failure_message),
        log_tail=annotations.get(LOG_TAIL),
        logs_cleared_after=float(cleared) if cleared is not None else None,
        throttle_updates=annotations.get(THROTTLE_UPDATES, "").lower() == "true",
        refuse_tags=annotations.get(REFUSE_TAGS, "").lower() == "true",
        reported_phase=annotations.get(REPORT_PHASE),
        reported_after=float(annotations.get(REPORT_PHASE_AFTER, "0")),
        reported_terminable=annotations.get(REPORT_PHASE_TERMINABLE, "").lower() == "true",
    )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


@dataclass(frozen=True)
class Run:
    """The job's one run: when it started, and when and how it ended (end is None while it runs)."""

    start: float
    end: float | None
    outcome: str | None  # Completed, Failed or Terminated once ended


def _natural_end(plan: Plan) -> tuple[float, str] | None:
    """When and how the run would end without a terminate request (None: it never starts or never ends)."""
    if plan.stay_pending:
        return None
    start = plan.created_at + plan.creating + plan.pending
    if plan.fail_after is not None and plan.fail_after < plan.running:
        return start + plan.fail_after, FAILED
    return start + plan.running, COMPLETED


def run_at(plan: Plan, now: float) -> Run | None:
    """The run as seen at `now`; None while (or if) the job never started running."""
    if plan.stay_pending:
        return None
    start = plan.created_at + plan.creating + plan.pending
    cut = plan.terminated_at
    if now < start or (cut is not None and cut <= start):
        return None
    natural = _natural_end(plan)
    assert natural is not None
    end, outcome = natural
    if cut is not None and cut < end:
        end, outcome = cut, TERMINATED
    if now < end:
        return Run(start, None, None)
    return Run(start, end, outcome)


def transitions(plan: Plan, now: float) -> list[tuple[float, str]]:
    """The phases the job entered by `now`, oldest first, as (epoch seconds, phase)."""
    start = plan.created_at + plan.creating + plan.pending
    steps: list[tuple[float, str]] = [(plan.created_at, CREATING), (plan.created_at + plan.creating, PENDING)]
    natural = _natural_end(plan)
    if natural is not None:
        steps += [(start, RUNNING), natural]
    if plan.terminated_at is not None:
        steps = [step for step in steps if step[0] < plan.terminated_at or step[0] == plan.created_at]
        steps += [(plan.terminated_at, TERMINATING), (plan.terminated_at + plan.terminating, TERMINATED)]
    return [step for step in steps if step[0] <= now]


def phase_at(plan: Plan, now: float) -> str:
    """The job's phase in the emulator's own state machine (what decides its log, events and terminate)."""
    return transitions(plan, now)[-1][1]


def shown_phase(plan: Plan, now: float) -> str:
    """The phase the job reports: phase_at, or the report-phase hook's phase while the job is live (Creating,
    Pending or Running, not terminated) from its start time on; once it ends or is terminated, the real
    one."""
    phase = phase_at(plan, now)
    reported = plan.reported_phase
    if reported and phase in TERMINABLE and now >= plan.created_at + plan.reported_after:
        return reported
    return phase


def reported_refusal(plan: Plan, now: float) -> str | None:
    """The phase a terminate is refused for because the job reports a phase the pages do not list, or None.

    The terminate page says only Creating, Pending and Running jobs can be terminated, so by default a job in
    any other phase is refused (409 ModelArts.2796), as the documented rule says. A real service that added a
    phase would more likely let a job running under it be stopped, yet nothing documents that: under the
    documented rule such a job could not be stopped through the API at all until its phase moves on (only the
    console, or waiting, would end it). ``emulator/report-phase-terminable`` plays the other answer (the
    terminate is accepted as for the phase underneath), so clients are tested against both.
    """
    shown = shown_phase(plan, now)
    if shown != phase_at(plan, now) and not plan.reported_terminable:
        return shown
    return None


def stopped_at(plan: Plan, now: float) -> float | None:
    """When the job reached its final phase (Completed, Failed or Terminated), or None while it goes on."""
    at, phase = transitions(plan, now)[-1]
    return at if phase in (COMPLETED, FAILED, TERMINATED) else None


def status_at(plan: Plan, now: float, tasks: list[str]) -> dict[str, Any]:
    """The status object (as the service shapes it) of a job with this plan at time `now`."""
    phase = shown_phase(plan, now)
    run = run_at(plan, now)
    status: dict[str, Any] = {
        "phase": phase,
        "secondary_phase": SECONDARY.get(phase, phase),
        "duration": _ms(((run.end if run.end is not None else now) - run.start) if run else 0),
        "start_time": _ms(run.start) if run else 0,
        "node_count_metrics": None,
        "tasks": list(tasks),
    }
    if run is not None:
        record: dict[str, Any] = {"start_at": int(run.start), "start_type": "init_or_rescheduled"}
        if run.end is not None:
            record["end_at"] = int(run.end)
            record["end_reason"] = {
                COMPLETED: "job completed",
                FAILED: f"exit with {plan.exit_code}",
            }.get(str(run.outcome), "job terminated")
            if run.outcome == FAILED:
                record["end_related_task"] = tasks[0]
        # No fault-tolerance policy is ever applied here, so no recovery is recorded.
        record["recover_records"] = []
        status["running_records"] = [record]
    if phase == FAILED:
        status["task_statuses"] = [
            {"task": task, "exit_code": plan.exit_code, "message": plan.failure_message} for task in tasks
        ]
    elif phase == COMPLETED:
        status["task_statuses"] = [{"task": task, "exit_code": 0, "message": ""} for task in tasks]
    return status

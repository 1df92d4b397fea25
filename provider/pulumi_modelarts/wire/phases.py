"""The training-job phase vocabulary and what each phase means. Pure: imports nothing.

One vocabulary for the wire models, the core and the emulator. ``status.phase`` is the stable level-1 phase;
``status.secondary_phase`` is detail the API pages say may change, except ``CreateFailed``, which ends a job
whatever its level-1 phase says (the service reports it as ``Abnormal`` / ``CreateFailed``).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "FAILURE_PHASES",
    "STOPPED_PHASES",
    "TERMINABLE_PHASES",
    "TERMINAL_PHASES",
    "TERMINAL_SECONDARY_PHASES",
    "Phase",
    "SecondaryPhase",
    "is_failure",
    "is_known",
    "is_stopped",
    "is_terminable",
    "is_terminal",
    "may_still_run",
    "parse_phase",
]


class Phase:
    """Level-1 job phases (``status.phase``), as the API pages list them."""

    CREATING: Final = "Creating"
    PENDING: Final = "Pending"
    RUNNING: Final = "Running"
    FAILED: Final = "Failed"
    COMPLETED: Final = "Completed"
    TERMINATING: Final = "Terminating"
    TERMINATED: Final = "Terminated"
    ABNORMAL: Final = "Abnormal"

    ALL: Final = frozenset({CREATING, PENDING, RUNNING, FAILED, COMPLETED, TERMINATING, TERMINATED, ABNORMAL})


class SecondaryPhase:
    """Level-2 phases (``status.secondary_phase``); use them for detail only, except ``CREATE_FAILED``."""

    CREATING: Final = "Creating"
    QUEUING: Final = "Queuing"
    RUNNING: Final = "Running"
    FAILED: Final = "Failed"
    COMPLETED: Final = "Completed"
    TERMINATING: Final = "Terminating"
    TERMINATED: Final = "Terminated"
    CREATE_FAILED: Final = "CreateFailed"
    TERMINATED_FAILED: Final = "TerminatedFailed"
    UNKNOWN: Final = "Unknown"
    LOST: Final = "Lost"


#: Only Creating, Waiting (Pending) and Running jobs can be terminated (terminate API page).
TERMINABLE_PHASES: Final = frozenset({Phase.CREATING, Phase.PENDING, Phase.RUNNING})
#: Phases a job never leaves on its own.
TERMINAL_PHASES: Final = frozenset({Phase.COMPLETED, Phase.FAILED, Phase.TERMINATED, Phase.ABNORMAL})
#: Secondary phases that end a job whatever the level-1 phase says.
TERMINAL_SECONDARY_PHASES: Final = frozenset({SecondaryPhase.CREATE_FAILED})
#: Level-1 phases of a job that ended badly.
FAILURE_PHASES: Final = frozenset({Phase.FAILED, Phase.ABNORMAL})
#: Someone (a user, a replacement, a destroy) stopped the job.
STOPPED_PHASES: Final = frozenset({Phase.TERMINATING, Phase.TERMINATED})


def is_terminable(phase: str | None) -> bool:
    """True when the terminate action is allowed for a job in this phase."""
    return phase in TERMINABLE_PHASES


def is_terminal(phase: str | None, secondary_phase: str | None = None) -> bool:
    """True when a job in this phase will not change any more (finished, failed, stopped or broken)."""
    return phase in TERMINAL_PHASES or secondary_phase in TERMINAL_SECONDARY_PHASES


def is_failure(phase: str | None, secondary_phase: str | None = None) -> bool:
    """True when the job ended badly (Failed, Abnormal, or its creation failed)."""
    return phase in FAILURE_PHASES or secondary_phase in TERMINAL_SECONDARY_PHASES


def is_known(phase: str | None) -> bool:
    """True for a level-1 phase the API pages list (``Phase.ALL``); the service adds phases over time."""
    return phase in Phase.ALL


def may_still_run(phase: str | None, secondary_phase: str | None = None) -> bool:
    """True unless the phase says the job has ended or is being stopped: a terminable phase, or one this code
    does not know (no phase at all included). A phase the service added may be a running one, so a job in it
    is treated as running until the service says otherwise: try to terminate it, never claim it has ended.
    A secondary phase CreateFailed ends a job whatever its level-1 phase says.
    """
    if is_terminable(phase):
        return True
    return not is_known(phase) and secondary_phase not in TERMINAL_SECONDARY_PHASES


def is_stopped(phase: str | None) -> bool:
    """True when the job is being or has been terminated."""
    return phase in STOPPED_PHASES


def parse_phase(value: object) -> str:
    """The level-1 phase named by value in any case ("running" -> "Running"); ValueError listing the phases.

    The search API matches phases exactly, so a phase in the wrong case would silently match nothing.
    """
    if isinstance(value, str):
        wanted = value.strip().lower()
        for phase in Phase.ALL:
            if phase.lower() == wanted:
                return phase
    choices = ", ".join(sorted(Phase.ALL))
    raise ValueError(f"unknown training job phase {value!r}; expected one of {choices} (any case)")

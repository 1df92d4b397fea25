"""A task's training log as a pure function of the job, its plan and the current time.

The log starts when the job starts running, gains a progress line every tenth of the running time, and ends
the way the run ended: a completion line, a traceback with the failure message, or the terminate signal. The
``emulator/log-tail`` hook replaces that ending with its own lines. Nothing secret is written (environment
variables stay out), unless the ``emulator/log-echo-env: NAME`` hook asks every progress line to print the
job's environment variable NAME, as a careless training script would.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from .lifecycle import COMPLETED, FAILED, LOG_ECHO_ENV, Plan, run_at

STEPS = 10
MAX_PREVIEW_BYTES = 5 * 1024 * 1024  # the preview returns at most the latest 5 MB
SERVICE = "[ModelArts Service Log]"


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _boot_file(algorithm: Mapping[str, Any]) -> str:
    """Where the boot file lands in the container (the code directory is downloaded there)."""
    name = str(algorithm.get("boot_file") or "train.py").rstrip("/").rsplit("/", 1)[-1]
    return f"/home/ma-user/modelarts/user-job-dir/code/{name}"


def _command(algorithm: Mapping[str, Any]) -> str:
    return str(algorithm["command"]) if algorithm.get("command") else f"python {_boot_file(algorithm)}"


def log_text(job: Mapping[str, Any], plan: Plan, task: str, now: float) -> str | None:
    """The task's log at `now`, or None when the job has not started running (so there is no log)."""
    run = run_at(plan, now)
    if run is None:
        return None
    metadata = job["metadata"]
    algorithm: Mapping[str, Any] = job.get("algorithm") or {}
    resource = (job.get("spec") or {}).get("resource") or {}
    lines = [
        f"{_stamp(run.start)} {SERVICE}[init] training job {metadata['name']} ({metadata['id']}), "
        f"task {task}, flavor {resource.get('flavor_id') or resource.get('pool_id') or 'default'}",
    ]
    if algorithm.get("code_dir"):
        lines.append(f"{_stamp(run.start)} {SERVICE}[init] downloaded code from {algorithm['code_dir']}")
    for channel in algorithm.get("inputs") or []:
        where = channel.get("local_dir")
        lines.append(f"{_stamp(run.start)} {SERVICE}[init] input {channel.get('name')} -> {where}")
    lines.append(f"{_stamp(run.start)} {SERVICE} running: {_command(algorithm)}")
    last = run.end if run.end is not None else now
    echoed = _echoed(metadata, algorithm)
    for step in range(1, STEPS + 1):
        at = run.start + plan.running * step / STEPS
        # A run that failed or was stopped at a step's time did not get to log that step.
        if at > last + 1e-9 or (run.outcome not in (None, COMPLETED) and at >= last):
            break
        lines.append(f"{_stamp(at)} step {step}/{STEPS} loss={2.0 * 0.75**step:.4f}{echoed}")
    if run.end is not None:
        lines += _ending(plan, run.outcome, algorithm, run.end)
    return "\n".join(lines) + "\n"


def _echoed(metadata: Mapping[str, Any], algorithm: Mapping[str, Any]) -> str:
    """What the log-echo-env hook adds to each progress line: a space and NAME=value ("" without the hook)."""
    name = (metadata.get("annotations") or {}).get(LOG_ECHO_ENV)
    environments = algorithm.get("environments") or {}
    if isinstance(environments, list):  # the answer's shape: a list of maps
        environments = {k: v for entry in environments for k, v in entry.items()}
    return f" {name}={environments.get(name, '')}" if name else ""


def _ending(plan: Plan, outcome: str | None, algorithm: Mapping[str, Any], at: float) -> list[str]:
    if plan.log_tail is not None:
        return plan.log_tail.splitlines()
    if outcome == COMPLETED:
        return [f"{_stamp(at)} training finished", f"{_stamp(at)} {SERVICE} training completed, exit code 0"]
    if outcome == FAILED:
        return [
            "Traceback (most recent call last):",
            f'  File "{_boot_file(algorithm)}", line 42, in <module>',
            "    main()",
            f"RuntimeError: {plan.failure_message}",
            f"{_stamp(at)} {SERVICE} training failed, exit code {plan.exit_code}",
        ]
    return [f"{_stamp(at)} {SERVICE} received SIGTERM: the training job was terminated"]


def preview(text: str) -> dict[str, Any]:
    """The preview answer: the whole log, or its latest 5 MB when it is longer."""
    data = text.encode()
    shown = data[-MAX_PREVIEW_BYTES:]
    return {
        "content": shown.decode(errors="ignore"),
        "current_size": len(shown),
        "full_size": len(data),
    }

"""Find training jobs a stack created but its state does not know (after an interrupted ``pulumi up``).

When ``pulumi up`` dies after the create request reached ModelArts but before the provider could answer the
engine (SIGKILL, a crashed CI runner, a lost machine), the job exists and runs, while the state only holds a
*pending create* for its resource: the inputs, including the job name chosen at check time, but no id.
A later ``pulumi up`` creates the resource again under a new name, and the first job keeps running unseen.

    pulumi stack export --file state.json
    modelarts-orphans --stack-export state.json                              # list them
    modelarts-orphans --stack-export state.json --adopt-to adopted.json      # or keep them
    modelarts-orphans --stack-export state.json --terminate                  # or stop them

For each pending create of a ``TrainingJob`` (of either front-end: the dynamic provider or the native plugin)
the job of that exact name is looked up; jobs whose id the state does not hold are reported. Either adopt
them (``--adopt-to adopted.json``, then ``pulumi stack import --file adopted.json`` and ``pulumi refresh``: no
second job is created) or stop them (``--terminate``, then ``pulumi refresh --clear-pending-creates``).
(``pulumi refresh --import-pending-creates URN ID`` would be the natural tool, but in Pulumi 3.259 a
non-interactive refresh drops the imported entries instead of keeping them.)

Before asking ModelArts, the finder reports what the killed ``pulumi`` left on this machine, where it can see
it (``leftovers``): the stack's lock file (a file backend named by ``PULUMI_BACKEND_URL``; ``pulumi stack
export`` ignores the lock, ``pulumi stack import``, ``refresh`` and ``up`` refuse to run until ``pulumi
cancel`` deletes it), and the plugin processes (language host, provider) still running in the project
directory with no ``pulumi`` above them (Linux ``/proc``). What the export says, and the export with the
orphans adopted, is ``stack_export``'s; this module is the command line, the search and the terminate.

Connection settings come from the environment, as for the provider (``HW_MODELARTS_ENDPOINT`` or
``HW_REGION_NAME``, ``HW_PROJECT_ID``, ``HW_ACCESS_KEY``, ``HW_SECRET_KEY``, ...), and, with ``--config
FILE``, from the output of ``pulumi config --json --show-secrets`` (``modelarts:*`` keys).
Exit status: see ``EXIT_STATUS``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..account.session import open_api
from ..account.settings import resolve_settings
from ..wire.api import ModelArtsAPI
from ..wire.api_errors import NotFoundError, NotTerminableError
from ..wire.errors import ModelArtsError
from ..wire.models import SearchFilter
from ..wire.phases import may_still_run
from .leftovers import LeftoverProcess, StackLock, leftover_processes, stack_locks
from .stack_export import Orphan, adopted_export, import_arguments, pending_creates, state_job_ids

__all__ = ["EXIT_STATUS", "find_orphans", "main"]

EXIT_CLEAN = 0
EXIT_FOUND = 3
EXIT_PROBLEM = 2
EXIT_STATUS = f"""\
exit status:
  {EXIT_CLEAN}  no training job is missing from the state, or --adopt-to wrote every missing one into
     FILE (then: pulumi stack import --file FILE, pulumi refresh --yes)
  {EXIT_FOUND}  training jobs are missing from the state: listed, or terminated with --terminate (then:
     pulumi refresh --yes --clear-pending-creates); or several jobs match one pending create,
     so --adopt-to could not take them all
  {EXIT_PROBLEM}  a usage, file, settings or connection problem
"""


def find_orphans(client: ModelArtsAPI, export: Mapping[str, Any]) -> list[Orphan]:
    """Jobs named by the state's pending creates whose ids the state does not hold."""
    known = state_job_ids(export)
    orphans: list[Orphan] = []
    for pending in pending_creates(export):
        for job in client.iter_jobs([SearchFilter(key="name", operator="like", value=[pending.job_name])]):
            if job.name == pending.job_name and job.job_id and job.job_id not in known:
                orphans.append(Orphan(pending.urn, job))
    return orphans


def _settings_config(path: str | None) -> dict[str, str]:
    if path is None:
        return {}
    with open(path, encoding="utf-8") as handle:
        raw = json.load(handle)
    config: dict[str, str] = {}
    for key, entry in raw.items():
        value = entry.get("value") if isinstance(entry, Mapping) else entry
        if isinstance(key, str) and key.startswith("modelarts:") and value is not None:
            config[key] = str(value)
    return config


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="modelarts-orphans",
        description=(
            "List, adopt or terminate the training jobs an interrupted `pulumi up` left out of the state,\n"
            "and say what else it left on this machine: the stack's lock, plugin processes."
        ),
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--stack-export",
        required=True,
        metavar="FILE",
        help="file written by `pulumi stack export --file FILE`",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="file written by `pulumi config --json --show-secrets` (modelarts:* keys)",
    )
    p.add_argument(
        "--project-dir",
        default=".",
        metavar="DIR",
        help="the Pulumi project's directory, where leftover plugin processes run (default: the current one)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    # Adopting and terminating are the two answers to one question: choose one.
    action = p.add_mutually_exclusive_group()
    action.add_argument("--terminate", action="store_true", help="terminate the orphans that still run")
    action.add_argument(
        "--adopt-to",
        metavar="FILE",
        help="write the export with the orphans as resources (for `pulumi stack import --file FILE`)",
    )
    return p


@dataclass(frozen=True)
class _Findings:
    """What one run found and did."""

    orphans: list[Orphan]
    terminated: list[str]  # ids of the orphans terminated now (--terminate)
    imports: list[str] | None  # import_arguments
    adopted_to: str | None  # the adopted export written (--adopt-to)
    locks: list[StackLock] | None
    processes: list[LeftoverProcess] | None
    # ids of orphans that may still run whose terminate the service refused (--terminate): never "terminated"
    refused: list[str] = field(default_factory=list)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with open(args.stack_export, encoding="utf-8") as handle:
            export = json.load(handle)
        found = _investigate(args, export)
    except (OSError, ValueError, ModelArtsError) as exc:
        # ModelArtsError and SettingsError messages never carry credentials.
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    if args.json:
        print(json.dumps(_findings_json(found), indent=2))
    else:
        _print_text(
            args,
            found.orphans,
            found.terminated,
            found.imports,
            found.adopted_to,
            found.locks,
            len(pending_creates(export)),
            refused=found.refused,
        )
    all_adopted = found.adopted_to is not None and found.imports is not None
    return EXIT_FOUND if found.orphans and not all_adopted else EXIT_CLEAN


def _investigate(args: argparse.Namespace, export: Mapping[str, Any]) -> _Findings:
    """Look at this machine and the service; terminate or adopt the orphans when asked to."""
    locks = stack_locks(export, os.environ)
    processes = leftover_processes(Path(args.project_dir))
    if not args.json:
        # What this machine shows comes first: it matters before any other pulumi command.
        _print_local(locks, processes)
    settings = resolve_settings(_settings_config(args.config), os.environ)
    with open_api(settings) as client:
        orphans = find_orphans(client, export)
        terminated, refused = _terminate(client, orphans) if args.terminate else ([], [])
    imports = import_arguments(orphans)
    adopted_to = None
    if args.adopt_to and orphans:
        with open(args.adopt_to, "w", encoding="utf-8") as handle:
            json.dump(adopted_export(export, orphans), handle, indent=2)
        adopted_to = args.adopt_to
    return _Findings(orphans, terminated, imports, adopted_to, locks, processes, refused)


_STOP_HINT = "stop it in the ModelArts console, or with the terminate API once the service allows it"


def _terminate(client: ModelArtsAPI, orphans: Iterable[Orphan]) -> tuple[list[str], list[str]]:
    """Terminate the orphans that may still run (a phase this code does not know included): the ids
    terminated, and those whose terminate the service refused (409 ModelArts.2796: for a phase this code
    does not know, nothing says it has ended). One gone meanwhile is skipped."""
    terminated: list[str] = []
    refused: list[str] = []
    for orphan in orphans:
        if not may_still_run(orphan.job.phase, orphan.job.secondary_phase):
            continue
        try:
            client.terminate_job(orphan.job_id)
        except NotFoundError:
            continue
        except NotTerminableError:
            refused.append(orphan.job_id)
            continue
        terminated.append(orphan.job_id)
    return terminated, refused


def _findings_json(found: _Findings) -> dict[str, Any]:
    processes = found.processes
    return {
        "orphans": [
            {"urn": o.urn, "id": o.job_id, "name": o.job.name, "phase": o.job.phase} for o in found.orphans
        ],
        "terminated": found.terminated,
        "not_terminated": found.refused,
        "import_pending_creates": found.imports,
        "adopted_to": found.adopted_to,
        "locks": None if found.locks is None else [_lock_json(lock) for lock in found.locks],
        "leftover_processes": None
        if processes is None
        else [{"pid": p.pid, "role": p.role, "command": p.command} for p in processes],
    }


def _lock_json(lock: StackLock) -> dict[str, Any]:
    return {
        "path": str(lock.path),
        "pid": lock.pid,
        "user": lock.user,
        "host": lock.host,
        "since": lock.since,
        "running": lock.running,
    }


def _print_local(locks: list[StackLock] | None, processes: list[LeftoverProcess] | None) -> None:
    for lock in locks or []:
        who = f"pulumi pid {lock.pid} of {lock.user}@{lock.host}, since {lock.since}"
        print(f"The stack is locked: {lock.path} ({who}).")
        if lock.running:
            print("  That pulumi still runs on this machine: let it finish (or stop it) before recovering.")
        elif lock.running is None:
            print(
                "  If no pulumi for this stack runs on that host any more, `pulumi cancel --yes` deletes it."
            )
        else:
            print("  That pulumi no longer runs: `pulumi cancel --yes` deletes the lock. Until then")
            print("  `pulumi stack import`, `pulumi refresh` and `pulumi up` refuse to run.")
    if processes:
        print(f"{len(processes)} process(es) a killed pulumi left running in this project:")
        for process in processes:
            print(f"  {process.pid}  {process.role}: {process.command}")
        print(
            "  They never stop a job; end them when convenient: kill "
            + " ".join(str(p.pid) for p in processes)
        )


def _print_text(
    args: argparse.Namespace,
    orphans: list[Orphan],
    terminated: list[str],
    imports: list[str] | None,
    adopted_to: str | None,
    locks: list[StackLock] | None,
    pending: int,
    *,
    refused: Sequence[str] = (),
) -> None:
    steps: list[list[str]] = []
    if not orphans:
        print(f"no orphaned training jobs ({pending} pending create(s) in the state, none reached ModelArts)")
        if not pending and not locks:
            return
        print("Next:")
    else:
        print(f"{len(orphans)} training job(s) exist that the state does not know:")
        for orphan in orphans:
            state = "terminated now" if orphan.job_id in terminated else orphan.job.phase or "unknown phase"
            if orphan.job_id in refused:
                state += f"; the service refused to terminate it: it may still be running ({_STOP_HINT})"
            print(f"  {orphan.job_id}  {orphan.job.name}  ({state})  for {orphan.urn}")
        again = ["modelarts-orphans", "--stack-export", args.stack_export]
        if args.config:
            again += ["--config", args.config]
        if args.terminate:
            steps = [["pulumi", "refresh", "--yes", "--clear-pending-creates"]]
            print("Next, drop their pending creates from the state:")
        elif imports is None:
            print("Several jobs match one pending create: terminate all but one (by id), then adopt it:")
            print("  " + shlex.join([*again, "--adopt-to", args.adopt_to or "adopted.json"]))
            return
        elif adopted_to is not None:
            steps = [["pulumi", "stack", "import", "--file", adopted_to], ["pulumi", "refresh", "--yes"]]
            print(
                f"Wrote {adopted_to}: the state with these jobs as resources. Next (no job is created twice):"
            )
        else:
            print("Keep them (no job is created twice):")
            print("  " + shlex.join([*again, "--adopt-to", "adopted.json"]))
            print("or stop them:")
            print("  " + shlex.join([*again, "--terminate"]))
            return
    if locks is None:
        print("  pulumi cancel --yes    (only if pulumi says the stack is locked)")
    elif any(lock.running is not True for lock in locks):
        print("  pulumi cancel --yes    (deletes the lock the killed pulumi left)")
    for step in steps:
        print("  " + shlex.join(step))
    print("  pulumi up --yes")


if __name__ == "__main__":
    raise SystemExit(main())

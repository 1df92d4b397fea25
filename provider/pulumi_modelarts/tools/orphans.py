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
it: the stack's lock file (a file backend named by ``PULUMI_BACKEND_URL``; ``pulumi stack export`` ignores the
lock, ``pulumi stack import``, ``refresh`` and ``up`` refuse to run until ``pulumi cancel`` deletes it), and
the plugin processes (language host, provider) still running in the project directory with no ``pulumi``
above them (Linux ``/proc``).

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
import socket
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..account.settings import resolve_settings
from ..generated import schema_names
from ..job.client import ModelArtsClient
from ..job.job_state import DECLARED_INPUTS
from ..wire.errors import ModelArtsError, NotFoundError, NotTerminableError
from ..wire.models import SearchFilter, TrainingJob
from ..wire.phases import may_still_run

__all__ = [
    "EXIT_STATUS",
    "LeftoverProcess",
    "Orphan",
    "PendingCreate",
    "StackLock",
    "adopted_export",
    "file_backend_root",
    "find_orphans",
    "leftover_processes",
    "main",
    "pending_creates",
    "stack_identity",
    "stack_locks",
    "state_job_ids",
]

# The TrainingJob resource types (their endings): the dynamic provider's and the native plugin's.
TYPE_SUFFIXES = ("modelarts:TrainingJob", "modelarts:index:TrainingJob")
NATIVE_TYPE = "modelarts:index:TrainingJob"
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


@dataclass(frozen=True)
class PendingCreate:
    urn: str
    job_name: str


@dataclass(frozen=True)
class Orphan:
    urn: str
    job: TrainingJob

    @property
    def job_id(self) -> str:
        return self.job.job_id or ""


def _deployment(export: Mapping[str, Any]) -> Mapping[str, Any]:
    deployment = export.get("deployment", export)
    if not isinstance(deployment, Mapping):
        raise ValueError("not a `pulumi stack export` document (no deployment)")
    return deployment


def state_job_ids(export: Mapping[str, Any]) -> set[str]:
    """Ids of the training jobs the state holds."""
    ids: set[str] = set()
    for resource in _deployment(export).get("resources") or []:
        if str(resource.get("type", "")).endswith(TYPE_SUFFIXES) and resource.get("id"):
            ids.add(str(resource["id"]))
    return ids


def pending_creates(export: Mapping[str, Any]) -> list[PendingCreate]:
    """Training-job creates the engine started and never saw finish, with the job name each one used."""
    found: list[PendingCreate] = []
    for operation in _deployment(export).get("pending_operations") or []:
        resource = operation.get("resource") or {}
        if operation.get("type") != "creating" or not str(resource.get("type", "")).endswith(TYPE_SUFFIXES):
            continue
        metadata = (resource.get("inputs") or {}).get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if isinstance(name, str) and name:
            found.append(PendingCreate(str(resource.get("urn", "")), name))
    return found


def find_orphans(client: ModelArtsClient, export: Mapping[str, Any]) -> list[Orphan]:
    """Jobs named by the state's pending creates whose ids the state does not hold."""
    known = state_job_ids(export)
    orphans: list[Orphan] = []
    for pending in pending_creates(export):
        for job in client.iter_jobs([SearchFilter(key="name", operator="like", value=[pending.job_name])]):
            if job.name == pending.job_name and job.job_id and job.job_id not in known:
                orphans.append(Orphan(pending.urn, job))
    return orphans


def import_arguments(orphans: Iterable[Orphan]) -> list[str] | None:
    """`--import-pending-creates URN ID` pairs, or None when a pending create matches several jobs."""
    by_urn: dict[str, list[Orphan]] = {}
    for orphan in orphans:
        by_urn.setdefault(orphan.urn, []).append(orphan)
    if any(len(group) > 1 for group in by_urn.values()):
        return None
    args: list[str] = []
    for urn, (orphan,) in by_urn.items():
        # The flag takes one value per use; the CLI reads the values as URN, ID pairs.
        args += ["--import-pending-creates", urn, "--import-pending-creates", orphan.job_id]
    return args


def adopted_export(export: Mapping[str, Any], orphans: Iterable[Orphan]) -> dict[str, Any]:
    """A copy of the export where each pending create with exactly one orphan became a resource with its id.

    `pulumi stack import` of this document puts the jobs in the state; a `pulumi refresh` then reads their
    real outputs. The outputs start as the declared inputs (``declared_inputs`` included, so the next
    `pulumi up` compares against what was declared and does not replace the job; ``declaredInputs`` for the
    native plugin, whose state holds its schema's names, as the inputs already are). Secret values stay in
    the export's encrypted form: this copies them, never opens them.
    """
    by_urn: dict[str, list[Orphan]] = {}
    for orphan in orphans:
        by_urn.setdefault(orphan.urn, []).append(orphan)
    document = json.loads(json.dumps(export))
    deployment = document.get("deployment", document)
    resources = list(deployment.get("resources") or [])
    kept_pending = []
    for operation in deployment.get("pending_operations") or []:
        resource = operation.get("resource") or {}
        group = by_urn.get(str(resource.get("urn", "")), [])
        if operation.get("type") != "creating" or len(group) != 1:
            kept_pending.append(operation)
            continue
        inputs = dict(resource.get("inputs") or {})
        declared = {k: v for k, v in inputs.items() if k != "__provider"}
        key = DECLARED_INPUTS
        if str(resource.get("type", "")).endswith(NATIVE_TYPE):
            key = schema_names.TYPES[schema_names.OUTPUTS][DECLARED_INPUTS][0]
        resources.append({**resource, "id": group[0].job_id, "outputs": {**inputs, key: declared}})
    deployment["resources"] = resources
    deployment["pending_operations"] = kept_pending
    return dict(document)


@dataclass(frozen=True)
class StackLock:
    """A lock file of a file backend: who took it, and whether that process still runs here."""

    path: Path
    pid: int | None
    user: str
    host: str
    since: str
    running: bool | None  # None: taken on another host, so this machine cannot tell


@dataclass(frozen=True)
class LeftoverProcess:
    pid: int
    role: str
    command: str


def stack_identity(export: Mapping[str, Any]) -> tuple[str, str] | None:
    """(stack, project) named by the export's URNs (``urn:pulumi:STACK::PROJECT::...``)."""
    deployment = _deployment(export)
    entries = list(deployment.get("resources") or [])
    entries += [op.get("resource") or {} for op in deployment.get("pending_operations") or []]
    for entry in entries:
        parts = str(entry.get("urn", "")).split("::")
        if len(parts) >= 2 and parts[0].startswith("urn:pulumi:"):
            return parts[0][len("urn:pulumi:") :], parts[1]
    return None


def file_backend_root(backend_url: str, home: str) -> Path | None:
    """The directory a ``file://`` backend URL names, resolved as Pulumi does (``~``, relative), or None."""
    if not backend_url.startswith("file://"):
        return None
    path = backend_url[len("file://") :].split("?", 1)[0]
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return Path(os.path.abspath(path))


def stack_locks(
    export: Mapping[str, Any], environ: Mapping[str, str], proc: Path = Path("/proc")
) -> list[StackLock] | None:
    """The stack's lock files, when its backend is a file backend named by PULUMI_BACKEND_URL; else None.

    A running ``pulumi up`` holds one; a SIGKILLed one leaves it behind, and ``pulumi cancel`` deletes it.
    """
    identity = stack_identity(export)
    root = file_backend_root(environ.get("PULUMI_BACKEND_URL", ""), os.path.expanduser("~"))
    if identity is None or root is None:
        return None
    stack, project = identity
    locks_dir = root / ".pulumi" / "locks"
    # Project-scoped stacks, then the older layout without projects.
    candidates = [locks_dir / "organization" / project / stack, locks_dir / stack]
    locks: list[StackLock] = []
    for directory in candidates:
        for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
            locks.append(_read_lock(path, proc))
    return locks


def _read_lock(path: Path, proc: Path) -> StackLock:
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        content = {}
    if not isinstance(content, Mapping):
        content = {}
    pid = content.get("pid") if isinstance(content.get("pid"), int) else None
    host = str(content.get("hostname") or "")
    running: bool | None = None
    if host == socket.gethostname():
        running = pid is not None and _is_pulumi(proc, pid)
    return StackLock(
        path, pid, str(content.get("username") or ""), host, str(content.get("timestamp") or ""), running
    )


def _is_pulumi(proc: Path, pid: int) -> bool:
    if proc.is_dir():
        stat = _stat(proc, pid)
        # A zombie has ended; it only waits for its parent to notice.
        return stat is not None and stat[0] == "pulumi" and stat[1] != "Z"
    try:  # no /proc: the pid being alive is all there is to know
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def leftover_processes(project_dir: Path, proc: Path = Path("/proc")) -> list[LeftoverProcess] | None:
    """Pulumi plugins working in project_dir with no ``pulumi`` process above them (None: no /proc here).

    The engine starts plugins in their own process group, so killing ``pulumi`` (even its whole group) leaves
    the language host and the provider running; they are reparented, which is what tells them apart from the
    plugins of a ``pulumi`` that still runs.
    """
    if not proc.is_dir():
        return None
    project = project_dir.resolve()
    found: list[LeftoverProcess] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) != project:
                continue
            argv = [a for a in (entry / "cmdline").read_bytes().decode(errors="replace").split("\0") if a]
        except OSError:  # gone meanwhile, a zombie, or another user's
            continue
        role = _plugin_role(argv)
        if role is not None and not _under_pulumi(proc, int(entry.name)):
            found.append(LeftoverProcess(int(entry.name), role, shlex.join(argv)))
    return sorted(found, key=lambda p: p.pid)


def _plugin_role(argv: Sequence[str]) -> str | None:
    names = [os.path.basename(arg) for arg in argv[:2]]
    if "pulumi-language-python-exec" in names:
        return "program"
    if any(name.startswith("pulumi-language-") for name in names):
        return "language host"
    runs_dynamic = "pulumi.dynamic" in argv[1:] and argv[argv.index("pulumi.dynamic") - 1] == "-m"
    if runs_dynamic or any(name.startswith("pulumi-resource-") for name in names):
        return "provider"
    return None


def _stat(proc: Path, pid: int) -> tuple[str, str, int] | None:
    """(name, state, parent pid) from /proc/PID/stat; the name may hold spaces and parentheses."""
    try:
        text = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    comm, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
    return comm, rest[0], int(rest[1])


def _under_pulumi(proc: Path, pid: int) -> bool:
    seen: set[int] = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        stat = _stat(proc, pid)
        if stat is None:
            return False
        pid = stat[2]
        parent = _stat(proc, pid)
        if parent is not None and parent[0] == "pulumi":
            return True
    return False


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
    with ModelArtsClient.from_settings(settings) as client:
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


def _terminate(client: ModelArtsClient, orphans: Iterable[Orphan]) -> tuple[list[str], list[str]]:
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

"""What a killed ``pulumi`` left on this machine, where it can be seen: the stack's lock file (a file backend
named by ``PULUMI_BACKEND_URL``; ``pulumi stack import``, ``refresh`` and ``up`` refuse to run until ``pulumi
cancel`` deletes it), and the plugin processes (language host, provider) still running in the project
directory with no ``pulumi`` above them (Linux ``/proc``).
"""

from __future__ import annotations

import json
import os
import shlex
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .stack_export import stack_identity

__all__ = ["LeftoverProcess", "StackLock", "file_backend_root", "leftover_processes", "stack_locks"]


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

"""The package's folders are its layers: each imports only the rooms below it (its ``__init__`` says
which)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "provider" / "pulumi_modelarts"

# room -> the rooms it may import besides itself
ALLOWED: dict[str, set[str]] = {
    "generated": set(),
    "wire": set(),
    "account": {"wire"},
    "job": {"wire", "account", "generated"},
    "frontends": {"job", "account", "wire", "generated"},
    "tools": {"job", "account", "wire", "generated"},
}


# job/'s own rooms -> the rooms of job/ each may import besides itself (job/__init__ and each room's say so).
# Both may import the job's base modules: those directly in job/ that import no room of job/, at any depth;
# the operations (core and what it calls) import the rooms.
JOB_ROOMS: dict[str, set[str]] = {"waiting": set(), "ownership": {"waiting"}}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else "(top)"


def _imports(path: Path) -> set[str]:
    """The package modules a file imports (at any depth, including inside functions), as dotted names."""
    here = "pulumi_modelarts." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    package = here.rsplit(".", 1)[0] if path.name != "__init__.py" else here.removesuffix(".__init__")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
                names = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""]
            found.update(n for n in names if n.startswith("pulumi_modelarts."))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("pulumi_modelarts."))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


def test_every_module_lives_in_a_room_with_a_docstring() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "provider.py"]  # the public names, and the path old states name
    for room in ALLOWED:
        init = PACKAGE / room / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc) > 80, room
    assert {p.relative_to(PACKAGE).parts[0] for p in _modules()} == set(ALLOWED)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_room_imports_only_the_rooms_below_it(path: Path) -> None:
    room = path.relative_to(PACKAGE).parts[0]
    for target in _imports(path):
        other = _room(target)
        assert other == room or other in ALLOWED[room], f"{path.name} ({room}) imports {target} ({other})"


def test_the_pickle_path_of_old_states_still_names_the_dynamic_provider() -> None:
    from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
    from pulumi_modelarts.provider import TrainingJobProvider as named_by_old_states

    assert named_by_old_states is TrainingJobProvider


def _job_room(module: str) -> str | None:
    """The room of job/ a module lives in (``waiting``), None for a module directly in job/."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "job" and parts[2] in JOB_ROOMS else None


def _job_imports() -> dict[str, set[str]]:
    """Each module of job/ with the modules of job/ it imports."""
    found: dict[str, set[str]] = {}
    for path in (PACKAGE / "job").rglob("*.py"):
        name = "pulumi_modelarts." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        name = name.removesuffix(".__init__")
        found[name] = {t for t in _imports(path) if t.startswith("pulumi_modelarts.job.")}
    return found


def test_the_jobs_rooms_import_its_base_and_the_rooms_below_them() -> None:
    imports = _job_imports()
    for room in JOB_ROOMS:
        init = PACKAGE / "job" / room / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc) > 80, room

    def reaches_a_room(module: str, seen: set[str]) -> bool:
        if module in seen:
            return False
        seen.add(module)
        return any(_job_room(t) is not None or reaches_a_room(t, seen) for t in imports.get(module, ()))

    for module, targets in imports.items():
        room = _job_room(module)
        if room is None:
            continue  # directly in job/: whether it may be a room's base is asked where a room imports it
        for target in targets:
            other = _job_room(target)
            said = f"{module} ({room}) imports {target} ({other or 'job/'})"
            if other is None:
                assert not reaches_a_room(target, set()), f"{said}, which imports a room of job/"
            else:
                assert other == room or other in JOB_ROOMS[room], said
    direct = sorted(p.name for p in (PACKAGE / "job").glob("*.py") if p.name != "__init__.py")
    assert len(direct) <= 14, direct


def test_the_job_layer_knows_nothing_of_pulumi_or_grpc() -> None:
    # Pulumi's unknowns, secrets and protocol are translated at the front-ends' edge (frontends/unknowns.py,
    # frontends/native_values.py); the job layer takes plain values and its own marker (NOT_KNOWN).
    for path in sorted((PACKAGE / "job").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for name in names:
                where = path.relative_to(PACKAGE)
                assert name.split(".")[0] not in ("pulumi", "grpc"), f"{where} imports {name}"

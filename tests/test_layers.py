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

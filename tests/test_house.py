"""The house rules of the code, measured with ``ast``: every hand-written module of the package is under 400
lines and every function under 80 (``generated/`` and the generated blocks of hand-written modules aside: the
generator writes them); and no module, of the package or of the tests, reaches a private name (``_x``) of
another first-party module (``from .x import _y``, ``module._y``, ``setattr(module.Thing, "_y", ...)``):
it uses, or its owner adds, a public one. And no module of the tests imports a test module (``test_*.py``):
what tests share is in a helper module or a ``conftest.py``, so each test module can be read, run and moved
on its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "provider" / "pulumi_modelarts"
TESTS = REPO / "tests"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
# The first-party packages whose private names nobody else may reach: the provider and the emulator.
FIRST_PARTY = ("pulumi_modelarts", "modelarts_emulator")


def _hand_written() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "generated" not in p.relative_to(PACKAGE).parts)


def _generated_lines(source: str) -> set[int]:
    """The lines inside the blocks scripts/generate writes into a hand-written module."""
    inside, lines = False, set()
    for number, line in enumerate(source.splitlines(), 1):
        if line.strip().startswith("# BEGIN GENERATED"):
            inside = True
        elif line.strip().startswith("# END GENERATED"):
            inside = False
        if inside:
            lines.add(number)
    return lines


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(name, lines) of each function of source as long as limit or longer, decorators included; a function
    the generator wrote (it starts in a generated block) is not measured."""
    generated = _generated_lines(source)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length >= limit and first not in generated:
                found.append((node.name, length))
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imported_module(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """The dotted module an ``from ... import`` names, relative imports resolved against here."""
    if not node.level:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def private_reaches(source: str, here: str, is_package: bool = False) -> list[str]:
    """The places where the module here (dotted name) reaches a private name of another first-party module:
    importing it, reading it as an attribute of something imported from one, or naming it as a string to
    setattr/getattr/monkeypatch on such a thing (or in a dotted target string)."""
    tree = ast.parse(source)
    bound: set[str] = set()  # names bound to first-party modules or to things imported from them
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _imported_module(node, here, is_package)
            if not module.startswith(FIRST_PARTY):
                continue
            for alias in node.names:
                if _private(alias.name) and module != here:
                    found.append(f"{node.lineno}: from {module} import {alias.name}")
                bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(FIRST_PARTY):
                    bound.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"{node.lineno}: import {alias.name}")

    def from_first_party(expr: ast.expr) -> bool:
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return isinstance(expr, ast.Name) and expr.id in bound

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and from_first_party(node.value):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and node.args:
            first, rest = node.args[0], node.args[1:]
            name = rest[0] if rest else None
            named = isinstance(name, ast.Constant) and isinstance(name.value, str) and _private(name.value)
            if named and from_first_party(first):
                assert isinstance(name, ast.Constant)
                found.append(f"{node.lineno}: {ast.unparse(node.func)}(..., {name.value!r})")
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                dotted = first.value.split(".")
                if first.value.startswith(FIRST_PARTY) and any(_private(part) for part in dotted[1:]):
                    found.append(f"{node.lineno}: {ast.unparse(node.func)}({first.value!r}, ...)")
    return found


def _test_module_of(dotted: str) -> str | None:
    """The test module of the tests (``tests.….test_x``) a dotted name is, or is inside; None for others."""
    parts = dotted.split(".")
    if parts[0] != "tests":
        return None
    for index, part in enumerate(parts[1:], 2):
        if part.startswith("test_"):
            return ".".join(parts[:index])
    return None


def imports_of_test_modules(source: str, here: str, is_package: bool = False) -> list[str]:
    """The places where the module here (dotted name) imports a test module other than itself, or a name from
    one: ``from .test_x import y``, ``from . import test_x``, ``import tests.job.test_x``,
    ``importlib.import_module("tests.job.test_x")``; at the module's top or inside a function alike."""
    found: list[str] = []

    def check(lineno: int, dotted: str, text: str) -> None:
        imported = _test_module_of(dotted)
        if imported is not None and imported != here:
            found.append(f"{lineno}: {text}")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = _imported_module(node, here, is_package)
            for alias in node.names:
                check(node.lineno, f"{module}.{alias.name}", f"from {module} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                check(node.lineno, alias.name, f"import {alias.name}")
        elif isinstance(node, ast.Call) and node.args:
            func, first = node.func, node.args[0]
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
                check(node.lineno, str(first.value), f"{name}({first.value!r})")
    return found


def _dotted(path: Path, root: Path, prefix: str) -> tuple[str, bool]:
    parts = [prefix, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _reaches_under(root: Path, prefix: str) -> Iterator[str]:
    for path in sorted(root.rglob("*.py")):
        if "generated" in path.relative_to(root).parts:
            continue
        here, is_package = _dotted(path, root, prefix)
        for place in private_reaches(path.read_text(encoding="utf-8"), here, is_package):
            yield f"{path.relative_to(REPO)}:{place}"


def imports_of_test_modules_under(root: Path) -> Iterator[str]:
    """Each place a module under root (a copy of tests/, as ``tests``) imports a test module."""
    for path in sorted(root.rglob("*.py")):
        here, is_package = _dotted(path, root, "tests")
        for place in imports_of_test_modules(path.read_text(encoding="utf-8"), here, is_package):
            yield f"{path.relative_to(root)}:{place}"


def test_every_hand_written_module_is_under_400_lines() -> None:
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in _hand_written()}
    large = [f"{p.relative_to(PACKAGE)}: {n} lines" for p, n in sizes.items() if n >= MAX_MODULE_LINES]
    assert large == [], "split these by topic, each part named for its job"


def test_every_function_is_under_80_lines() -> None:
    long = [
        f"{path.relative_to(PACKAGE)}: {name} ({lines} lines)"
        for path in _hand_written()
        for name, lines in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert long == []


def test_no_package_module_reaches_a_private_name_of_another() -> None:
    assert list(_reaches_under(PACKAGE, "pulumi_modelarts")) == []


def test_no_test_reaches_a_private_name_of_the_package_or_the_emulator() -> None:
    assert list(_reaches_under(TESTS, "tests")) == []


def test_no_module_of_the_tests_imports_a_test_module() -> None:
    assert list(imports_of_test_modules_under(TESTS)) == [], (
        "share it through a helper module or a conftest.py"
    )


def test_the_measures_find_what_they_look_for() -> None:
    # Each rule on a small source that breaks it, so the tests above can fail.
    body = "\n".join(f"    x{i} = {i}" for i in range(80))
    assert long_functions(f"def long() -> None:\n{body}\n") == [("long", 81)]
    assert long_functions("@decorated\ndef short() -> None:\n    pass\n") == []
    method = body.replace("\n", "\n    ")
    made = f"    def made(self) -> None:\n    {method}\n"
    generated = f"class A:\n    # BEGIN GENERATED x\n{made}    # END GENERATED x\n"
    assert long_functions(generated) == []
    here = "pulumi_modelarts.job.core"
    breaking = {
        "from .diffing import _same": "from pulumi_modelarts.job.diffing import _same",
        "from ..wire.errors import _rebuild_api_error": "_rebuild_api_error",
        "from . import diffing\ndiffing._normalised({})": "diffing._normalised",
        "from pulumi_modelarts.wire import transport\ntransport.Transport._retry_delay": "_retry_delay",
        "from pulumi_modelarts.wire import transport\nm.setattr(transport.Transport, '_retry_delay', 0)": (
            "setattr"
        ),
        "m.setattr('pulumi_modelarts.wire.transport._x', 0)": "pulumi_modelarts.wire.transport._x",
        "from modelarts_emulator.testing import EmulatorAuth\nEmulatorAuth._SIGNED": "EmulatorAuth._SIGNED",
    }
    for source, named in breaking.items():
        found = private_reaches(source, here)
        assert len(found) == 1 and named in found[0], (source, found)
    allowed = [
        "from .core import __all__",  # a dunder is no private name
        "from . import diffing\ndiffing.compare",
        "import os\nos._exit(0)",  # not first-party
        "self._x = 1",
    ]
    for source in allowed:
        assert private_reaches(source, here) == [], source
    assert private_reaches("from ._x import y", "pulumi_modelarts.job", is_package=True) == []
    assert private_reaches("from .core import _y", "pulumi_modelarts.job.core") == []  # its own name


def test_the_import_rule_finds_every_way_to_import_a_test_module() -> None:
    here = "tests.job.test_tags"
    breaking = {
        "from .test_core import Recorder": "tests.job.test_core",
        "from . import test_core": "tests.job import test_core",
        "from ..emulator.test_emulator_rules import search": "tests.emulator.test_emulator_rules",
        "from ..emulator import test_emulator_official_sdk as sdk": "import test_emulator_official_sdk",
        "from tests.tools.test_orphans import URN": "tests.tools.test_orphans",
        "import tests.job.test_core": "import tests.job.test_core",
        "def test_x() -> None:\n    from .test_core import inputs\n": "tests.job.test_core",
        "importlib.import_module('tests.job.test_core')": "import_module('tests.job.test_core')",
    }
    for source, named in breaking.items():
        found = imports_of_test_modules(source, here)
        assert len(found) == 1 and named in found[0], (source, found)
    allowed = [
        "from .core_support import inputs",
        "from ..official_sdk import sdk_client",
        "from . import conftest",
        "from .test_tags import helper",  # its own module
        "import pytest\nfrom pulumi_modelarts.job import core",
        "from pulumi_modelarts.tests.test_x import y",  # not the tests' (no such module, but not ours)
    ]
    for source in allowed:
        assert imports_of_test_modules(source, here) == [], source
    assert imports_of_test_modules("from . import support", "tests", is_package=True) == []
    assert imports_of_test_modules("from .job import test_core", "tests", is_package=True) != []

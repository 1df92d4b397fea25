"""The user documentation holds together: every link between README.md and docs/ leads to a file that exists
and, with an anchor, to a heading in it; the registry's two pages carry its front matter; every page can be
reached from the README; the README keeps the commands CI and newcomers run."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Links from the registry's pages (which the registry renders away from the repository) use the canonical
#: home; those under this prefix are checked as paths of this repository.
HOME = "https://github.com/pulumi-modelarts/pulumi-modelarts/"
HOME_PATHS = (HOME + "blob/main/", HOME + "tree/main/")
REGISTRY_PAGES = ("docs/_index.md", "docs/installation-configuration.md")

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.DOTALL | re.MULTILINE)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


@dataclass(frozen=True)
class Problem:
    page: str
    target: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target}: {self.reason}"


def pages(root: Path) -> list[Path]:
    found = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    return [p for p in found if p.is_file()]


def prose(text: str) -> str:
    """The text without front matter, fenced blocks and code spans, where a link is only an example."""
    text = FRONT_MATTER.sub("", text)
    text = FENCE.sub("", text)
    return CODE_SPAN.sub("", text)


def link_targets(text: str) -> list[str]:
    body = prose(text)
    inline = [m.group(1) for m in INLINE_LINK.finditer(body)]
    return inline + [m.group(1) for m in REFERENCE_DEF.finditer(body)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its visible text, lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's visible text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    result: set[str] = set()
    for match in HEADING.finditer(FENCE.sub("", FRONT_MATTER.sub("", text))):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def check_link(root: Path, page: Path, target: str) -> str | None:
    """Why the link is broken, or None."""
    if target.startswith(HOME_PATHS):
        prefix = next(p for p in HOME_PATHS if target.startswith(p))
        path_part, _, anchor = target[len(prefix) :].partition("#")
        resolved = root / unquote(path_part)
    elif re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, … other sites are not checked here
        return None
    else:
        path_part, _, anchor = target.partition("#")
        if not path_part:
            resolved = page
        elif path_part.startswith("/"):
            resolved = root / unquote(path_part.lstrip("/"))
        else:
            resolved = page.parent / unquote(path_part)
    try:
        resolved.resolve().relative_to(root.resolve())
    except ValueError:
        return "leads outside the repository"
    if not resolved.exists():
        return "no such file"
    if anchor:
        if resolved.is_dir() or resolved.suffix != ".md":
            return f"anchor #{anchor} on a file without headings"
        if anchor not in anchors(resolved.read_text(encoding="utf-8")):
            return f"no heading with anchor #{anchor} in {resolved.relative_to(root)}"
    return None


def broken_links(root: Path, checked: Iterable[Path] | None = None) -> list[Problem]:
    problems: list[Problem] = []
    for page in checked if checked is not None else pages(root):
        for target in link_targets(page.read_text(encoding="utf-8")):
            reason = check_link(root, page, target)
            if reason is not None:
                problems.append(Problem(str(page.relative_to(root)), target, reason))
    return problems


def linked_pages(root: Path, page: Path) -> Iterator[Path]:
    for target in link_targets(page.read_text(encoding="utf-8")):
        if target.startswith(HOME_PATHS):
            prefix = next(p for p in HOME_PATHS if target.startswith(p))
            path = root / unquote(target[len(prefix) :].partition("#")[0])
        elif re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        else:
            path = page.parent / unquote(target.partition("#")[0])
        if path.suffix == ".md" and path.is_file():
            yield path.resolve()


def reachable(root: Path) -> set[Path]:
    seen: set[Path] = set()
    todo = [(root / "README.md").resolve()]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        todo.extend(linked_pages(root, page))
    return seen


# --- the checker itself ------------------------------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_the_checker_finds_missing_files_and_anchors(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "README.md": "# Top\n\nSee [docs](docs/a.md#the-a-page), [gone](docs/gone.md),\n"
            "[b](docs/a.md#nope),\n"
            "[here](#top), [not here](#bottom), [up](../outside.md) and [web](https://example.com/x.md).\n"
            "`[in code](docs/code.md)`\n\n```\n[in a block](docs/block.md)\n```\n",
            "docs/a.md": "# The `A` page\n\n[back](../README.md#top)\n"
            "[home](" + HOME + "blob/main/docs/b.md)\n",
        },
    )
    found = {(p.page, p.target) for p in broken_links(tmp_path)}
    assert found == {
        ("README.md", "docs/gone.md"),
        ("README.md", "docs/a.md#nope"),
        ("README.md", "#bottom"),
        ("README.md", "../outside.md"),
        ("docs/a.md", HOME + "blob/main/docs/b.md"),
    }


def test_anchors_follow_githubs_rules() -> None:
    text = (
        "# pulumi-modelarts\n## The native provider (`modelarts`)\n### After an interrupted `pulumi up`\n"
        "## Limits that come from dynamic providers, and what this project does about them\n"
        "## Notes\n## Notes\n```\n# not a heading\n```\n"
    )
    assert anchors(text) == {
        "pulumi-modelarts",
        "the-native-provider-modelarts",
        "after-an-interrupted-pulumi-up",
        "limits-that-come-from-dynamic-providers-and-what-this-project-does-about-them",
        "notes",
        "notes-1",
    }


# --- the repository's documentation ------------------------------------------------------------------------


def test_every_relative_link_and_anchor_resolves() -> None:
    problems = broken_links(REPO)
    assert not problems, "broken links:\n" + "\n".join(map(str, problems))


@pytest.mark.parametrize("name", REGISTRY_PAGES)
def test_the_registry_pages_carry_its_front_matter(name: str) -> None:
    match = FRONT_MATTER.match((REPO / name).read_text(encoding="utf-8"))
    assert match is not None, f"{name} starts with front matter between --- lines"
    keys = dict(line.split(":", 1) for line in match.group(1).splitlines() if ":" in line)
    assert keys.get("layout", "").strip() == "package"
    assert keys.get("title", "").strip() and keys.get("meta_desc", "").strip()


@pytest.mark.parametrize("name", REGISTRY_PAGES)
def test_the_registry_pages_link_only_by_the_canonical_home(name: str) -> None:
    """The registry renders these two pages away from the repository, where a relative link leads nowhere."""
    targets = link_targets((REPO / name).read_text(encoding="utf-8"))
    relative = [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]
    assert not relative, f"{name} links relatively to {relative}; use {HOME_PATHS[0]}…"


def test_every_page_can_be_reached_from_the_readme() -> None:
    orphans = {p.resolve() for p in pages(REPO)} - reachable(REPO)
    assert not orphans, "not linked from README.md or a page it leads to: " + ", ".join(
        str(p.relative_to(REPO)) for p in sorted(orphans)
    )


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("page", pages(REPO), ids=lambda p: str(p.relative_to(REPO)))
def test_python_examples_parse(page: Path) -> None:
    for block in python_blocks(page.read_text(encoding="utf-8")):
        ast.parse(block, filename=str(page.relative_to(REPO)))


def test_the_readme_keeps_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "`bash scripts/demo`" in readme
    assert "`bash scripts/test`" in readme


def _layout_block() -> str:
    text = (REPO / "docs" / "development.md").read_text()
    start = text.index("provider/pulumi_modelarts/\n")
    return text[start : text.index("```", start)]


def _mapped(block: str, root: str) -> set[str]:
    """The files the map names under root (a folder of the map), as paths relative to it.

    The map is a tree: a line ``<indent>name/`` opens a folder, ``<indent>a.py, b.py`` names files in the
    folder of the nearest shallower line; a line that starts with spaces past the names is a description.
    """
    stack: list[tuple[int, str]] = []  # (indent, folder path)
    found: set[str] = set()
    for line in block.splitlines():
        match = re.match(r"^( *)((?:[\w.-]+\.(?:py|json)(?:, )?)+|[\w./-]+/)(?: |$)", line)
        if not match:
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        folder = stack[-1][1] if stack else ""
        entry = match.group(2)
        if entry.endswith("/"):
            stack.append((indent, f"{folder}{entry}"))
        else:
            found.update(f"{folder}{name}" for name in entry.split(", "))
    prefix = root.rstrip("/") + "/"
    return {path.removeprefix(prefix) for path in found if path.startswith(prefix)}


@pytest.mark.parametrize("package", ["provider/pulumi_modelarts", "emulator/modelarts_emulator"])
def test_the_map_of_the_code_is_the_code(package: str) -> None:
    # docs/development.md's layout is the map a newcomer reads first: it must be the code, folder by folder.
    text = (REPO / "docs" / "development.md").read_text()
    start = text.index("```\nprovider/pulumi_modelarts/") + 4
    block = text[start : text.index("```", start)]
    # Every module and data file by its path; a folder's __init__.py is its docstring, not an entry.
    listed = {path for path in _mapped(block, package) if not path.endswith("__init__.py")}
    root = REPO / package
    modules = {
        str(path.relative_to(root))
        for pattern in ("*.py", "*.json")
        for path in root.rglob(pattern)
        if path.name not in ("__init__.py", "pulumi-plugin.json")
    }
    assert modules - listed == set(), f"modules of {package} missing from docs/development.md's layout"
    assert listed - modules == set(), f"docs/development.md's layout names modules {package} does not have"


def test_the_performance_page_says_what_the_latest_run_measured() -> None:
    # docs/performance.md's figures are written from bench/results/latest.json (python -m bench.report).
    from bench import report

    page = report.PAGE.read_text(encoding="utf-8")
    latest = json.loads(report.RESULTS.read_text(encoding="utf-8"))
    assert report.updated(page, report.render(latest)) == page, "run: .venv/bin/python -m bench.report"

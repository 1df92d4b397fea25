"""Shared fixtures: real emulator server processes (started as users start them) with sub-second timings."""

from __future__ import annotations

import fcntl
import json
import os
import resource
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from modelarts_emulator.testing import EmulatorProcess, start_emulator

from . import policy_env
from .cli.pulumi_cli import RUNS_FILE_ENV, TEMPLATES_ENV
from .httpserver import ScriptedServer
from .loopback import keep_to_loopback
from .support import default_sigint

default_sigint()  # every pulumi command the tests start obeys the engine's SIGINT (support.default_sigint)

# In CI, property tests run a fixed sequence of examples, so a run is reproducible and a red CI is never
# luck; locally they draw new examples each run, which is how they find new cases.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Each phase lasts 0.2 s so lifecycle tests finish quickly; override per test through emulator_factory.
FAST_TIMINGS: dict[str, Any] = {
    "creating_seconds": 0.2,
    "pending_seconds": 0.2,
    "running_seconds": 0.2,
    "terminating_seconds": 0.2,
}


@pytest.fixture
def emulator_factory() -> Iterator[Callable[..., EmulatorProcess]]:
    """Start emulators with custom flags (fast timings unless overridden); all are stopped after the test."""
    started: list[EmulatorProcess] = []

    def start(**flags: Any) -> EmulatorProcess:
        emu = start_emulator(**{**FAST_TIMINGS, **flags})
        started.append(emu)
        return emu

    yield start
    for emu in started:
        emu.stop()


@pytest.fixture(scope="session")
def _fast_emulator_holder() -> Iterator[list[EmulatorProcess]]:
    holder: list[EmulatorProcess] = []
    yield holder
    for emu in holder:
        emu.stop()


@pytest.fixture
def emulator(_fast_emulator_holder: list[EmulatorProcess]) -> EmulatorProcess:
    """A fresh-state emulator with fast timings and no faults.

    One process serves the whole session and is reset (no jobs, zero stats) before each test, which saves a
    process start per test; if a test stopped it, a new one is started.
    """
    if not _fast_emulator_holder or not _fast_emulator_holder[0].running():
        _fast_emulator_holder[:] = [start_emulator(**FAST_TIMINGS)]
    emu = _fast_emulator_holder[0]
    emu.reset()
    return emu


@pytest.fixture(scope="session")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], object]], Path]:
    """``built_once(name, build)``: the directory ``build`` fills, built by the first test of the run that
    asks and shared by all (in a parallel run, the workers' base directories share a parent; the others wait
    on a lock while it is built). A build that failed is tried again by the next test that asks."""
    shared = _run_directory(tmp_path_factory)

    def once(name: str, build: Callable[[Path], object]) -> Path:
        target, done = shared / name, shared / f"{name}.built"
        with open(shared / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                shutil.rmtree(target, ignore_errors=True)
                build(target)
                done.touch()
        return target

    return once


@pytest.fixture(scope="session")
def policy_python(built_once: Callable[[str, Callable[[Path], object]], Path]) -> Path:
    """The Python of the environment the policy pack runs in (tests/policy_env.py), built once per run."""
    return built_once("policy-venv", policy_env.build) / "bin" / "python"


@pytest.fixture(scope="session", autouse=True)
def _shared_stack_templates(tmp_path_factory: pytest.TempPathFactory) -> None:
    """New stacks are copied from templates the run's processes share (tests/cli/pulumi_cli.py)."""
    os.environ.setdefault(TEMPLATES_ENV, str(_run_directory(tmp_path_factory) / "stack-templates"))


def _run_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every process of the run shares: in a parallel run, the parent of the workers' base
    directories."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing leaves loopback (tests/loopback.py); for a whole module: ``pytestmark =
    pytest.mark.usefixtures("loopback_only")``."""
    keep_to_loopback(monkeypatch)
    yield


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A scripted HTTP server on loopback (a module whose server fronts the provider overrides this)."""
    with ScriptedServer() as srv:
        yield srv


# The longest tests first, so that a parallel run's workers do not end waiting on one of them.
_FIRST = ("tests/compat/", "tests/cli/test_release.py", "tests/cli/test_bench_quick.py", "tests/cli/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::")[0]
        return next((i for i, prefix in enumerate(_FIRST) if path.startswith(prefix)), len(_FIRST))

    items.sort(key=rank)


_RUNS_FILE = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Count the pulumi processes of the run (tests.cli.pulumi_cli.pulumi_argv): one file that the workers
    of a parallel run, started after this, inherit through the environment."""
    if RUNS_FILE_ENV not in os.environ:
        handle, path = tempfile.mkstemp(prefix="pulumi-runs-", suffix=".tsv")
        os.close(handle)
        os.environ[RUNS_FILE_ENV] = path
        config.stash[_RUNS_FILE] = Path(path)


# A file to write every test's CPU seconds and pulumi runs to (JSON), when set.
REPORT_FILE_ENV = "PULUMI_MODELARTS_TEST_REPORT"
_FOLDER_SECONDS: Counter[str] = Counter()
_FOLDER_CPU: Counter[str] = Counter()
_TEST_CPU: Counter[str] = Counter()
_CPU_AT_START = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    """CPU time of this process and of the processes it started and waited for (a pulumi run with its plugins
    and language hosts, a pip, a compiler); a shared emulator counts where it stops."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_CPU_AT_START] = _cpu_seconds()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    report = yield
    if call.when == "teardown" and _CPU_AT_START in item.stash:
        report.user_properties.append(("cpu_seconds", _cpu_seconds() - item.stash[_CPU_AT_START]))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test's time (set-up, call, tear-down) and CPU added to its folder's; in a parallel run the
    workers' reports reach this process too."""
    folder = report.nodeid.split("::")[0].rsplit("/", 1)[0]
    _FOLDER_SECONDS[folder] += report.duration
    for name, value in report.user_properties:
        if name == "cpu_seconds":
            _FOLDER_CPU[folder] += value
            _TEST_CPU[report.nodeid] += value


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Time spent in each folder's tests, and the pulumi processes the run started, in all and by test file
    (the slowest part of the suite)."""
    if _FOLDER_SECONDS and not hasattr(config, "workerinput"):
        total = sum(_FOLDER_SECONDS.values())
        terminalreporter.write_sep("-", f"test time by folder: {total:.0f} s over all workers")
        for folder, seconds in _FOLDER_SECONDS.most_common():
            terminalreporter.write_line(f"{seconds:7.0f} s  {_FOLDER_CPU[folder]:7.0f} CPU-s  {folder}")
        by_file: Counter[str] = Counter()
        for test, seconds in _TEST_CPU.items():
            by_file[test.split("::")[0]] += seconds
        terminalreporter.write_sep("-", f"CPU: {sum(_FOLDER_CPU.values()):.0f} s in all; by file, the most")
        for name, seconds in by_file.most_common(20):
            terminalreporter.write_line(f"{seconds:7.0f} CPU-s  {name}")
        terminalreporter.write_sep("-", "CPU: the tests using the most")
        for test, seconds in _TEST_CPU.most_common(25):
            terminalreporter.write_line(f"{seconds:7.1f} CPU-s  {test}")
    path = config.stash.get(_RUNS_FILE, None)
    if path is None or not path.exists():
        return
    lines = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line]
    path.unlink()
    report = os.environ.get(REPORT_FILE_ENV)
    if report:
        # Every test's CPU and pulumi runs: where the suite's time goes (the summary shows only the most).
        runs = Counter(test for test, _ in lines)
        table = {
            test: {"cpu_seconds": round(cpu, 2), "pulumi_runs": runs[test]} for test, cpu in _TEST_CPU.items()
        }
        Path(report).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    by_file = Counter(test.split("::")[0] for test, _ in lines)
    by_command = Counter(command for _, command in lines)
    terminalreporter.write_sep("-", f"pulumi CLI runs: {len(lines)}")
    terminalreporter.write_line("by command: " + ", ".join(f"{c} {n}" for c, n in by_command.most_common()))
    for name, count in by_file.most_common():
        terminalreporter.write_line(f"{count:5d}  {name or '(outside a test)'}")

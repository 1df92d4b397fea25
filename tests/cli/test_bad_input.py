"""Item 4: wrong inputs fail `pulumi preview` with a message naming the field, no Python traceback, and
not one API call (the emulator's statistics prove it).

Every case of tests/bad_inputs.py is checked by both front-ends in process
(tests/frontends/test_bad_inputs.py); here, through the CLI, the cases whose message the engine prints
differently: a nested path, a key spelled wrong, a map key, a type error, two problems in one resource (a
top-level property and a nested path), and the warnings of a passing preview (top-level and nested).

One program declares every case; the environment variable BAD_CASE picks the one a preview sees (the engine
stops a preview at the first resource that fails check). The passing cases need no such care: one preview
("warned") sees them all.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..bad_inputs import CASES, NATIVE_TWO_PROBLEMS_NESTED, TWO_PROBLEMS_NESTED, WARNED, arguments, field
from .cli_helpers import make_stack
from .front_ends import FRONT_ENDS, FrontEnd

pytestmark = pytest.mark.cli

# The top-level property (wait_for) is the one two-problems names beside its nested path: that case's preview
# shows how the engine prints both, so wrong-wait-for (the same top-level failure alone) is left to the
# in-process check (tests/frontends/test_bad_inputs.py).
FAILING = ("zero-nodes", "misspelled-nested-key", "env-name-equals", "node-count-flag", "two-problems")
PASSING = ("spec-and-tasks", "env-name-odd")


def program() -> str:
    lines = ["import os", "from pulumi_modelarts import TrainingJob", "case = os.environ['BAD_CASE']"]
    for name in (*FAILING, *PASSING):
        case = {**CASES, **WARNED}[name][0]
        keywords = ", ".join(f"{key}={value!r}" for key, value in arguments(case).items())
        lines.append(f"if case == {'warned' if name in PASSING else name!r}:")
        lines.append(f"    TrainingJob({name!r}, {keywords})")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_bad_inputs_fail_preview_by_field(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    assert set(FAILING) <= set(CASES) and set(PASSING) <= set(WARNED)
    assert field("two-problems", native=front_end.native) == field("wrong-wait-for", native=front_end.native)
    stack = make_stack(tmp_path, emulator, program(), front_end=front_end)
    emulator.reset_stats()

    def preview(name: str) -> tuple[str, int, str]:
        result = stack.run("preview", check=False, BAD_CASE=name)
        return name, result.returncode, result.stdout + result.stderr

    # Previews take no lock on the file backend: they run four at a time.
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(preview, [*FAILING, "warned"]))
    # Each passing case is read from the one preview that sees them all.
    [warned_run] = [result for result in results if result[0] == "warned"]
    results = [result for result in results if result[0] != "warned"]
    results += [(name, *warned_run[1:]) for name in PASSING]

    problems = []
    for name, returncode, output in results:
        path = field(name, native=front_end.native)
        if name in PASSING:
            warned = [line for line in output.splitlines() if "warning" in line and path in line]
            if returncode != 0 or "Traceback" in output or not warned:
                problems.append(f"--- {name}: expected a passing preview warning about {path}\n{output}")
            continue
        # A top-level input is named as the property; a nested path leads the reason of the resource's
        # failure (the engine would print a nested path's value as "{<nil>}").
        message = re.search(
            rf"resource '{re.escape(name)}': property (\S+) value .*? has a problem: (.+)", output
        ) or re.search(rf"resource '{re.escape(name)}' has a problem: (\S+): (.+)", output)
        if returncode == 0 or "Traceback" in output or message is None or path not in message.group(1):
            problems.append(f"--- {name}: expected a failure naming {path}\n{output}")
        elif message is not None:
            print(f"{name}: {message.group(1)}: {message.group(2)}")
    assert not problems, "\n".join(problems)
    [both] = [output for name, _, output in results if name == "two-problems"]
    nested = NATIVE_TWO_PROBLEMS_NESTED if front_end.native else TWO_PROBLEMS_NESTED[0]
    assert f"has a problem: {nested}: {TWO_PROBLEMS_NESTED[1]}" in both, both
    nil = [name for name, _, output in results if "<nil>" in output]
    assert not nil, f"a failure printed a value as <nil>: {nil}"
    # Inputs refused make no call; the preview whose inputs pass reads the catalogue, once a listing.
    calls = emulator.stats()["by_operation"]
    assert set(calls) <= {"flavors", "engines"} and all(n == 1 for n in calls.values()), calls

"""The walk of one dynamic create: which of the package's modules it passes through, and how often.

``python -m bench.walk`` starts an emulator, creates one job through ``TrainingJobProvider`` (``wait_for=
"none"``) to warm imports and the account's caches, checks a second one, then counts its create with
``sys.setprofile``: Python function calls per module of ``pulumi_modelarts``, and the calls into each module
from another one (the hops a reader follows). Reported, never asserted: a picture for a redesign's note.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from types import FrameType
from typing import Any

from modelarts_emulator.testing import start_emulator

PACKAGE = "pulumi_modelarts"
JOB = {
    "kind": "job",
    "metadata": {"name": "walk"},
    "algorithm": {
        "command": "python train.py",
        "engine": {"image_url": "swr.example.com/team/train:1"},
    },
    "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
    "wait_for": "none",
}


def _module_of(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if isinstance(name, str) and name.split(".", 1)[0] == PACKAGE else None


def walk(emulator_url: str, env: dict[str, str]) -> dict[str, Any]:
    os.environ.update(env)
    from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

    provider = TrainingJobProvider()

    def checked(name: str) -> dict[str, Any]:
        result = provider.check({}, {**JOB, "metadata": {"name": name}})
        assert not result.failures, result.failures
        return dict(result.inputs)

    provider.create(checked("walk-warm"))
    inputs = checked("walk-counted")  # the engine's check is a call of its own: not counted
    calls: collections.Counter[str] = collections.Counter()
    hops: collections.Counter[tuple[str, str]] = collections.Counter()

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        module = _module_of(frame)
        if module is None:
            return
        calls[module] += 1
        caller = frame.f_back
        while caller is not None and _module_of(caller) is None:
            caller = caller.f_back  # through a library (pydantic, httpx) back to the package's caller
        if caller is not None and _module_of(caller) != module:
            hops[(_module_of(caller) or "", module)] += 1

    sys.setprofile(profile)
    try:
        provider.create(inputs)
    finally:
        sys.setprofile(None)
    return {
        "emulator": emulator_url,
        "calls": sum(calls.values()),
        "modules": len(calls),
        "by_module": dict(calls.most_common()),
        "hops": sum(hops.values()),
        "entries_by_module": dict(
            collections.Counter(callee for _caller, callee in hops.elements()).most_common()
        ),
        "hops_by_pair": {f"{a} -> {b}": n for (a, b), n in hops.most_common()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the JSON report only")
    args = parser.parse_args(argv)
    with start_emulator() as emu:
        report = walk(emu.url, emu.provider_env())
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"one dynamic create: {report['calls']} calls in {report['modules']} modules, {report['hops']} hops"
    )
    for module, count in report["by_module"].items():
        entries = report["entries_by_module"].get(module, 0)
        print(f"  {count:6d} calls  {entries:4d} entered from another module  {module}")
    print("hops, the most:")
    for pair, count in list(report["hops_by_pair"].items())[:15]:
        print(f"  {count:4d}  {pair}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

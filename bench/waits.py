"""Waits at scale (issue 34): what many jobs waiting at once cost the service, and how long they take against
an account that throttles by rate. Run on its own (the full `bench/run` does not include it):

    .venv/bin/python -m bench.waits                       every scenario, into bench/results/latest.json
    .venv/bin/python -m bench.waits --only polling,rate   some of them (polling, rate, throttled, concurrency)
    .venv/bin/python -m bench.waits --name waits-before   into waits-before.json (a run of other code: set
                                                          PYTHONPATH to that code's provider/ directory)

The figures go under ``waits`` in the results file (the rest of it is left as it is); ``bench.report`` writes
them into docs/performance.md, beside the `before` run's when ``waits.before`` holds one. What each figure is:
bench/README.md, "Waits at scale".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.support import default_sigint

from modelarts_emulator.testing import start_emulator

from .bench import (
    CONCURRENCY_PHASES,
    FRONT_ENDS,
    THROTTLE,
    Bench,
    api_calls,
    compile_packages,
    ratio_summary,
    say,
    summary,
    total,
    workspace,
)

# The gateway's budget in the rate scenario: calls per second for the account. 100 jobs polled on their own
# at the benchmark's poll knob (0.1 s, growing to 1.5 s) ask for several hundred calls a second at first and
# about 70 a second at the cap; their creates alone need 4 s of this budget.
RATE_LIMIT = 25.0
RATE_JOBS = 100
RATE_TARGET = 1.3
CALLS_PER_JOB_TARGET = 3.0
CONCURRENCY_TARGET = 1.3
# The polling-rate scenario: jobs that stay Pending, polled with the default poll knob (1 s, growing to 15 s),
# counted over a window once every create is done.
POLLING_JOBS = 100
POLLING_SETTLE_SECONDS = 5.0
POLLING_WINDOW_SECONDS = 45.0
POLL_KNOB = "PULUMI_MODELARTS_POLL_SECONDS"
SCENARIOS = ("polling", "rate", "throttled", "concurrency")


def _polls(calls: dict[str, int]) -> int:
    return calls.get("get", 0) + calls.get("search", 0)


def measure_polling(bench: Bench, jobs: int) -> dict[str, Any]:
    """Calls per waiting job per minute: `up` of jobs that stay Pending (native), counted over a window."""
    with start_emulator(
        creating_seconds=0.5, pending_seconds=3600, running_seconds=600, terminating_seconds=0.2
    ) as emu:
        emu.reset()
        timeout = POLLING_SETTLE_SECONDS + POLLING_WINDOW_SECONDS + 30
        env = {
            "BENCH_JOBS": str(jobs),
            "BENCH_WAIT_FOR": "running",
            "BENCH_WAIT_TIMEOUT": f"{int(timeout)}s",
            **emu.provider_env(),
            POLL_KNOB: "1",
        }
        stack = bench.stacks["native"]
        # Every job waits at once: the engine holds a slot per create for its whole wait.
        args = ("up", "--yes", "--skip-preview", "--parallel", str(2 * jobs))
        ran: list[Any] = []
        up = threading.Thread(target=lambda: ran.append(stack.run(*args, check=False, **env)))
        say(f"polling: {jobs} native jobs waiting for Running (they stay Pending)")
        up.start()
        while api_calls(emu).get("create", 0) < jobs and up.is_alive():
            time.sleep(0.2)
        time.sleep(POLLING_SETTLE_SECONDS)
        before = api_calls(emu)
        time.sleep(POLLING_WINDOW_SECONDS)
        after = api_calls(emu)
        up.join()
        emu.reset()  # the jobs gone: the destroy only forgets them
        bench.destroy("native", jobs, emu=emu)
    if not ran or "did not reach running" not in ran[0].stdout + ran[0].stderr:
        detail = (ran[0].stdout + ran[0].stderr)[-3000:] if ran else "(no result)"
        raise AssertionError(f"the polling up did not end as planned (at its wait_timeout):\n{detail}")
    by_operation = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    per_minute = _polls(by_operation) / jobs / (POLLING_WINDOW_SECONDS / 60)
    return {
        "jobs": jobs,
        "window_seconds": POLLING_WINDOW_SECONDS,
        "poll_seconds": 1.0,
        "calls_per_job_per_minute": round(per_minute, 3),
        "window_calls": by_operation,
    }


def measure_rate(bench: Bench, reps: int, front_ends: tuple[str, ...]) -> dict[str, Any]:
    """`up` of RATE_JOBS jobs (wait_for=running) against the rate-throttled emulator, and of one job."""
    found: dict[str, Any] = {}
    with start_emulator(
        **CONCURRENCY_PHASES, running_seconds=600, terminating_seconds=0.2, rate_limit=RATE_LIMIT
    ) as emu:
        for fe in front_ends:
            one: list[float] = []
            many: list[float] = []
            calls: list[dict[str, int]] = []
            for rep in range(reps):
                say(f"rate {RATE_LIMIT:g}/s, {fe}, run {rep + 1}: one job, then {RATE_JOBS}")
                for jobs, times in ((1, one), (RATE_JOBS, many)):
                    emu.reset()
                    # Every job in flight at once (as a sweep runs): the engine's slots are not measured.
                    up = bench.up(fe, jobs, emu=emu, parallel=2 * RATE_JOBS, BENCH_WAIT_FOR="running")
                    times.append(up)
                    if jobs == RATE_JOBS:
                        calls.append(api_calls(emu))
                    emu.reset()
                    bench.destroy(fe, jobs, emu=emu)
            floors = [t + RATE_JOBS / RATE_LIMIT for t in one]
            per_job = [total(c) / RATE_JOBS for c in calls]
            found[fe] = {
                "ratio": {**ratio_summary(many, floors), "target": RATE_TARGET if fe == "native" else None},
                "calls_per_job": {**summary(per_job, 3), "target": CALLS_PER_JOB_TARGET},
                "one_job_s": summary(one, 3),
                "jobs_s": summary(many, 3),
                "floor_s": summary(floors, 3),
                "calls": calls,
            }
    return found


def measure_throttled(bench: Bench, reps: int, front_ends: tuple[str, ...]) -> dict[str, Any]:
    """The full run's 10%-random throttled wait (bench.measure_throttled_wait), 1 and 100 jobs."""
    found: dict[str, Any] = {}
    with start_emulator(
        **CONCURRENCY_PHASES, running_seconds=600, terminating_seconds=0.2, **THROTTLE
    ) as emu:
        for fe in front_ends:
            times: dict[int, list[float]] = {1: [], 100: []}
            calls: list[float] = []
            for rep in range(reps):
                for n in times:
                    say(f"throttled 10%, {fe}, {n} jobs, run {rep + 1}")
                    emu.reset()
                    times[n].append(bench.up(fe, n, emu=emu, BENCH_WAIT_FOR="running"))
                    if n == 100:
                        calls.append(total(api_calls(emu)) / n)
                    emu.reset()
                    bench.destroy(fe, n, emu=emu)
            found[fe] = {
                "ratio": {**ratio_summary(times[100], times[1]), "target": None},
                "calls_per_job": summary(calls, 3),
                "one_job_s": summary(times[1], 3),
                "jobs_s": summary(times[100], 3),
            }
    return found


def measure_concurrency(bench: Bench, reps: int, front_ends: tuple[str, ...]) -> dict[str, Any]:
    """The full run's unthrottled wait_concurrency_ratio: 20 jobs ÷ one job, wait_for=running."""
    found: dict[str, Any] = {}
    with start_emulator(**CONCURRENCY_PHASES, running_seconds=600, terminating_seconds=0.2) as emu:
        for fe in front_ends:
            times: dict[int, list[float]] = {1: [], 20: []}
            for rep in range(reps):
                for n in times:
                    say(f"unthrottled, {fe}, {n} jobs, run {rep + 1}")
                    emu.reset()
                    times[n].append(bench.up(fe, n, emu=emu, BENCH_WAIT_FOR="running"))
                    emu.reset()
                    bench.destroy(fe, n, emu=emu)
            target = CONCURRENCY_TARGET if fe == "native" else None
            found[fe] = {"ratio": {**ratio_summary(times[20], times[1]), "target": target}}
    return found


def run(only: tuple[str, ...], reps: int, front_ends: tuple[str, ...]) -> dict[str, Any]:
    started = time.perf_counter()
    load = os.getloadavg()[0]
    found: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    with workspace(False) as root, start_emulator() as idle:
        bench = Bench(root, idle)
        for scenario in only:
            at = time.perf_counter()
            if scenario == "polling":
                found[scenario] = measure_polling(bench, POLLING_JOBS)
            elif scenario == "rate":
                found[scenario] = measure_rate(bench, reps, front_ends)
            elif scenario == "throttled":
                found[scenario] = measure_throttled(bench, reps, front_ends)
            else:
                found[scenario] = measure_concurrency(bench, reps, front_ends)
            seconds[scenario] = round(time.perf_counter() - at, 1)
    found["config"] = {
        "rate_limit_per_second": RATE_LIMIT,
        "rate_jobs": RATE_JOBS,
        "runs": reps,
        "front_ends": list(front_ends),
        "seconds": seconds,
        "total_seconds": round(time.perf_counter() - started, 1),
        "load_average_before_after": [round(load, 2), round(os.getloadavg()[0], 2)],
        "date": time.strftime("%Y-%m-%d"),
    }
    return found


def main(argv: list[str] | None = None) -> int:
    default_sigint()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--front-ends", default=",".join(FRONT_ENDS))
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--name", default="latest", help="results file stem (default %(default)s)")
    args = parser.parse_args(argv)
    only = tuple(s for s in args.only.split(",") if s)
    unknown = set(only) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios {sorted(unknown)}; choose from {', '.join(SCENARIOS)}")
    compile_packages()
    found = run(only, args.reps, tuple(args.front_ends.split(",")))
    path = args.out_dir / f"{args.name}.json"
    results: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    waits = results.setdefault("waits", {})
    for scenario in only:
        waits[scenario] = found[scenario]
    waits.setdefault("config", {}).update({s: found["config"] for s in only})
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({s: _brief(found[s]) for s in only}, indent=2))
    print(f"written: {path}")
    return 0


def _brief(entry: dict[str, Any]) -> Any:
    """The medians, for the terminal."""
    if "median" in entry:
        return entry["median"]
    return {k: _brief(v) for k, v in entry.items() if isinstance(v, dict)} or {
        k: v for k, v in entry.items() if not isinstance(v, (list, dict))
    }


if __name__ == "__main__":
    sys.exit(main())

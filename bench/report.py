"""The figures of docs/performance.md, written from a benchmark run's JSON, so the page never says other
numbers than the run it names.

    .venv/bin/python -m bench.report            rewrite the block between the markers from latest.json
    .venv/bin/python -m bench.report --check    exit 1 when the block differs from what latest.json gives
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "performance.md"
RESULTS = REPO / "bench" / "results" / "latest.json"
BEGIN = "<!-- figures: written by `python -m bench.report` from bench/results/latest.json; do not edit -->"
END = "<!-- end of figures -->"
DASH = "\u2013"  # an en dash, between a minimum and a maximum


def _num(value: float | int | None, unit: str = "") -> str:
    if value is None:
        return DASH
    text = f"{value:.0f}" if isinstance(value, int) or abs(value) >= 100 else f"{value:.3g}"
    return f"{text}{unit}"


def _spread(entry: dict[str, Any] | None, unit: str = "") -> str:
    """**median** (min to max)"""
    if not isinstance(entry, dict) or "median" not in entry:
        return DASH
    return f"**{_num(entry['median'], unit)}** ({_num(entry['min'], unit)}{DASH}{_num(entry['max'], unit)})"


def _target(entry: dict[str, Any] | None, sign: str = "≤") -> str:
    target = entry.get("target") if isinstance(entry, dict) else None
    return "reported" if target is None else f"{sign} {_num(target)}"


def _met(entry: dict[str, Any] | None, who: str = "") -> str:
    target = entry.get("target") if isinstance(entry, dict) else None
    if entry is None or target is None:
        return ""
    return f"{who}{'met' if entry['median'] <= target else '**not met**'}"


def render(results: dict[str, Any]) -> str:
    config, figures = results["config"], results["figures"]
    dyn, nat = figures["dynamic"], figures["native"]
    load = config.get("load_average_before_after") or [None, None]
    floor = results["scaling"]["dynamic_floor"]
    floor_preview = floor[min(floor, key=int)]["preview"]["median"]
    lines = [
        BEGIN,
        "",
        f"Run: {config['machine']}, Python {config['python']}, Pulumi {config['pulumi']}, "
        f"{round(config['seconds'])} s in all, 1-minute load average {load[0]} at the start and {load[1]} at "
        f"the end (the benchmark's own processes included); `--parallel {config['parallel']}`, emulator "
        f"latency {config['emulator_latency_ms']} ms. Medians, with min{DASH}max. For scale: a one-job "
        f"no-change `preview` of the dynamic floor took {_num(floor_preview)} s in this run.",
        "",
        "| figure | dynamic | native | target |",
        "|---|---|---|---|",
    ]

    def row(name: str, key: str, unit: str = "") -> None:
        a, b = dyn.get(key), nat.get(key)
        verdict = ", ".join(v for v in (_met(a, "dynamic "), _met(b, "native ")) if v)
        target = _target(b if isinstance(b, dict) else a)
        lines.append(
            f"| {name} | {_spread(a, unit)} | {_spread(b, unit)} | "
            f"{target}{': ' + verdict if verdict else ''} |"
        )

    main = config["jobs"]
    row(f"`up` of {main} jobs ÷ (floor + API time)", "up_overhead_ratio")
    row(f"no-change `preview` of {main} jobs ÷ floor", "preview_overhead_ratio")
    row(f"`up` of {main} jobs waiting for Running ÷ one", "wait_concurrency_ratio")
    row("`up` of 100 jobs waiting for Running, 10% of calls throttled ÷ one", "throttled_wait_ratio")
    row("provider start to its first `Check` answer", "provider_start_ms", " ms")
    row("check + no-change diff, 100-parameter spec (CPU)", "check_diff_us", " µs")
    row("what the package adds to the program's imports", "provider_import_ms", " ms")
    lines.append(
        f"| API calls of a no-change preview | {dyn['preview_api_calls']} | {nat['preview_api_calls']} | 0 |"
    )
    lines.append(
        f"| API calls per job of a refresh | {_num(dyn['refresh_api_calls_per_job'])} | "
        f"{_num(nat['refresh_api_calls_per_job'])} | 1 |"
    )
    calls = " / ".join
    lines.append(
        "| API calls per job of `up`, `wait_for` none / pending / running / completed | "
        f"{calls(_num(v) for v in dyn['up_api_calls_per_job'].values())} | "
        f"{calls(_num(v) for v in nat['up_api_calls_per_job'].values())} | |"
    )
    shared = figures["shared"]["client_cost_vs_official_sdk"]
    lines.append(
        f"| client CPU per call ÷ the official SDK's (one client serves both) | {_spread(shared)} | "
        f"{_spread(shared)} | {_target(shared)} — {_met(shared)} |"
    )

    lines += [
        "",
        "The sweep: each front-end against its own floor at every size (`up` ÷ (floor + API time),",
        "`preview` ÷ floor), and what is left per job beyond them:",
        "",
        "| jobs | `up` dynamic | `up` native | `preview` dynamic | `preview` native | "
        "beyond the floor per job, "
        "`up` / `preview`: dynamic; native |",
        "|---|---|---|---|---|---|",
    ]
    for size in dyn["sweep"]:
        d, n = dyn["sweep"][size], nat["sweep"][size]
        lines.append(
            f"| {size} | {_spread(d['up_overhead_ratio'])} | {_spread(n['up_overhead_ratio'])} | "
            f"{_spread(d['preview_overhead_ratio'])} | {_spread(n['preview_overhead_ratio'])} | "
            f"{_num(d['up_beyond_floor_ms_per_job'])} / {_num(d['preview_beyond_floor_ms_per_job'])} ms; "
            f"{_num(n['up_beyond_floor_ms_per_job'])} / {_num(n['preview_beyond_floor_ms_per_job'])} ms |"
        )

    scaling = results["scaling"]
    lines += [
        "",
        "Wall time, seconds (median), each front-end beside its floor:",
        "",
        "| jobs | `preview` dynamic / floor | `preview` native / floor | "
        "`up` dynamic / floor | `up` native / floor |",
        "|---|---|---|---|---|",
    ]
    for size in scaling["dynamic"]:

        def pair(kind: str, step: str, size: str = size) -> str:
            ours = scaling[kind][size][step]["median"]
            floor = scaling[f"{kind}_floor"][size][step]["median"]
            return f"{_num(ours)} / {_num(floor)}"

        lines.append(
            f"| {size} | {pair('dynamic', 'preview')} | {pair('native', 'preview')} | "
            f"{pair('dynamic', 'up')} | {pair('native', 'up')} |"
        )
    lines += [
        "",
        '`up` with `wait_for="running"`, seconds (median):',
        "",
        "| jobs | dynamic | native |",
        "|---|---|---|",
    ]
    for kind in ("wait_concurrency", "throttled_wait"):
        for size in scaling[kind]["dynamic"]:
            note = " (10% throttled)" if kind == "throttled_wait" else ""
            lines.append(
                f"| {size}{note} | {_num(scaling[kind]['dynamic'][size]['median'])} | "
                f"{_num(scaling[kind]['native'][size]['median'])} |"
            )
    lines += ["", "| client call | CPU µs ours / SDK | wall µs ours / SDK |", "|---|---|---|"]
    for operation, entry in results["client"]["per_operation"].items():
        lines.append(
            f"| {operation} | {_num(entry['ours_cpu_us']['median'])} / "
            f"{_num(entry['official_cpu_us']['median'])} | "
            f"{_num(entry['ours_wall_us']['median'])} / {_num(entry['official_wall_us']['median'])} |"
        )
    lines += render_waits(results.get("waits"))
    lines += ["", END]
    return "\n".join(lines)


def render_waits(waits: dict[str, Any] | None) -> list[str]:
    """The waits-at-scale figures (``bench.waits``), beside the run of the code before them when kept."""
    if not waits:
        return []
    before = waits.get("before") or {}
    config = waits.get("config", {})
    lines = [
        "",
        "Waits at scale (`python -m bench.waits`, run on its own; each scenario's seconds and 1-minute load "
        "average in brackets):",
        "",
        "| figure | dynamic | native | before (native) | target |",
        "|---|---|---|---|---|",
    ]

    def when(scenario: str) -> str:
        run = config.get(scenario, {})
        load = run.get("load_average_before_after") or [None, None]
        return f" [{_num(run.get('seconds', {}).get(scenario))} s, load {load[0]}{DASH}{load[1]}]"

    polling, old = waits.get("polling"), before.get("polling")
    if polling:
        lines.append(
            f"| API calls per waiting job per minute, {polling['jobs']} jobs waiting for Running (poll knob "
            f"{_num(polling['poll_seconds'])} s){when('polling')} | {DASH} | "
            f"**{_num(polling['calls_per_job_per_minute'])}** | "
            f"{_num(old['calls_per_job_per_minute']) if old else DASH} | reported |"
        )
    rate, old_rate = waits.get("rate"), before.get("rate", {}).get("native")
    if rate:
        limit = _num(config.get("rate", {}).get("rate_limit_per_second"))
        for name, key in (("÷ its floor", "ratio"), ("ModelArts calls per job", "calls_per_job")):
            d, n = rate.get("dynamic", {}).get(key), rate.get("native", {}).get(key)
            was = _spread(old_rate.get(key)) if old_rate else DASH
            verdict = ", ".join(v for v in (_met(d, "dynamic "), _met(n, "native ")) if v)
            lines.append(
                f"| `up` of 100 jobs waiting for Running, account limited to {limit} calls/s: {name}"
                f"{when('rate')} | {_spread(d)} | {_spread(n)} | {was} | {_target(n)}"
                f"{': ' + verdict if verdict else ''} |"
            )
    throttled, old_throttled = waits.get("throttled"), before.get("throttled", {}).get("native")
    if throttled:
        d, n = throttled.get("dynamic", {}).get("ratio"), throttled.get("native", {}).get("ratio")
        lines.append(
            f"| `up` of 100 jobs waiting for Running, 10% of calls throttled ÷ one{when('throttled')} | "
            f"{_spread(d)} | {_spread(n)} | "
            f"{_spread(old_throttled['ratio']) if old_throttled else DASH} | reported |"
        )
    concurrency = waits.get("concurrency")
    if concurrency:
        d, n = concurrency.get("dynamic", {}).get("ratio"), concurrency.get("native", {}).get("ratio")
        lines.append(
            f"| `up` of 20 jobs waiting for Running ÷ one, unthrottled{when('concurrency')} | {_spread(d)} | "
            f"{_spread(n)} | {DASH} | {_target(n)}{': ' + _met(n, 'native ') if n else ''} |"
        )
    return lines


def updated(page: str, block: str) -> str:
    start, end = page.index(BEGIN), page.index(END) + len(END)
    return page[:start] + block + page[end:]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    page = PAGE.read_text(encoding="utf-8")
    wanted = updated(page, render(json.loads(RESULTS.read_text(encoding="utf-8"))))
    if args.check:
        if wanted != page:
            print(
                f"{PAGE.relative_to(REPO)} differs from {RESULTS.relative_to(REPO)}: "
                "run python -m bench.report"
            )
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

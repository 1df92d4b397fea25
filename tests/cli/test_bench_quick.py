"""bench/run --quick keeps working: it writes every figure, and the correctness figures hold.

Speed is never asserted here (shared CI machines drift); only that each figure is measured, and that a
no-change preview makes no API call and a refresh makes exactly one per job.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

RATIOS = ("preview_overhead_ratio", "up_overhead_ratio", "client_cost_vs_official_sdk")
TIMINGS = ("provider_import_ms", "check_diff_us")
WAIT_FORS = ("none", "pending", "running", "completed")
OPERATIONS = ("create", "get", "terminate", "search")


def _is_spread(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(k), (int, float)) for k in ("median", "min", "max"))
        and entry["min"] <= entry["median"] <= entry["max"]
        and entry["min"] > 0
    )


@pytest.mark.cli
@pytest.mark.timeout(240)
def test_bench_quick_writes_every_figure(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(REPO / "bench" / "run"), "--quick", "--out-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=230,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    result = json.loads((tmp_path / "latest.json").read_text())
    figures = result["figures"]

    for name in (*RATIOS, *TIMINGS):
        assert _is_spread(figures[name]), (name, figures[name])
    for name in RATIOS:
        assert figures[name]["target"] > 0
    assert figures["up_overhead_ratio"]["api_s"] > 0
    for op in OPERATIONS:
        entry = result["client"]["per_operation"][op]
        for key in ("cpu_ratio", "ours_cpu_us", "official_cpu_us", "ours_wall_us", "official_wall_us"):
            assert _is_spread(entry[key]), (op, key, entry[key])

    # Correctness figures: exact.
    assert figures["preview_api_calls"] == 0
    assert figures["refresh_api_calls_per_job"] == 1
    assert result["refresh_api_calls"] == {"get": result["config"]["jobs"]}
    assert figures["up_api_calls_per_job"] == 1  # wait_for="none": the create, nothing else
    assert figures["destroy_api_calls_per_job"] >= 2  # a get, then a terminate (the jobs are Creating)
    for wait_for in WAIT_FORS:
        entry = result["wait_for_api_calls"][wait_for]
        assert entry["up_calls"].get("create", 0) == result["config"]["wait_for_jobs"], (wait_for, entry)
        assert entry["destroy_calls_per_job"] >= 1
    assert result["wait_for_api_calls"]["none"]["up_calls_per_job"] == 1
    assert result["wait_for_api_calls"]["completed"]["up_calls_per_job"] > 1  # it polled

    for kind in ("provider", "floor"):
        for size in result["config"]["scaling_sizes"]:
            for op in ("preview", "up"):
                assert _is_spread(result["scaling"][kind][str(size)][op]), (kind, size, op)
    chart = (tmp_path / "scaling.png").read_bytes()
    assert chart.startswith(b"\x89PNG\r\n\x1a\n") and len(chart) > 1000
    assert "preview_overhead_ratio" in proc.stdout

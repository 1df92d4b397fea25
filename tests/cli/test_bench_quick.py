"""bench/run --quick keeps working: it writes every figure, and the correctness figures hold.

Speed is never asserted here (shared CI machines drift); only that each figure of both front-ends (dynamic and
native) is measured, and that a no-change preview makes no API call and a refresh makes exactly one per job.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FRONT_ENDS = ("dynamic", "native")
RATIOS = ("wait_concurrency_ratio", "throttled_wait_ratio", "preview_overhead_ratio", "up_overhead_ratio")
TIMINGS = ("provider_start_ms", "check_diff_us")
WAIT_FORS = ("none", "pending", "running", "completed")
OPERATIONS = ("create", "get", "terminate", "search")
KINDS = ("dynamic", "dynamic_floor", "native", "native_floor")


def _is_spread(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(k), (int, float)) for k in ("median", "min", "max"))
        and entry["min"] <= entry["median"] <= entry["max"]
        and entry["min"] > 0
    )


@pytest.mark.cli
@pytest.mark.timeout(420)
def test_bench_quick_writes_every_figure(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(REPO / "bench" / "run"), "--quick", "--out-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=400,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    result = json.loads((tmp_path / "latest.json").read_text())
    figures = result["figures"]
    jobs, wait_jobs = result["config"]["jobs"], result["config"]["wait_for_jobs"]

    client = figures["shared"]["client_cost_vs_official_sdk"]
    assert _is_spread(client) and client["target"] > 0, client
    for op in OPERATIONS:
        entry = result["client"]["per_operation"][op]
        for key in ("cpu_ratio", "ours_cpu_us", "official_cpu_us", "ours_wall_us", "official_wall_us"):
            assert _is_spread(entry[key]), (op, key, entry[key])
    assert _is_spread(figures["dynamic"]["provider_import_ms"]), figures["dynamic"]

    for fe in FRONT_ENDS:
        found = figures[fe]
        for name in (*RATIOS, *TIMINGS):
            assert _is_spread(found[name]), (fe, name, found[name])
            assert "target" in found[name], (fe, name)
        for name in ("preview_overhead_ratio", "up_overhead_ratio"):
            assert found[name]["target"] > 0, (fe, name)
        assert found["up_overhead_ratio"]["api_s"] > 0
        # The sweep: both ratios at every size, against the same targets as the main figures.
        assert sorted(found["sweep"], key=int) == [str(n) for n in result["config"]["scaling_sizes"]], fe
        for size, entry in found["sweep"].items():
            for name in ("preview_overhead_ratio", "up_overhead_ratio"):
                assert _is_spread(entry[name]), (fe, size, name, entry)
                assert entry[name]["target"] == found[name]["target"], (fe, size, name)
            assert entry["api_s"] > 0, (fe, size, entry)
        assert "in flight" in found["up_overhead_ratio"]["api_method"], found["up_overhead_ratio"]

        # Correctness figures: exact.
        assert found["preview_api_calls"] == 0, fe
        assert found["refresh_api_calls_per_job"] == 1, fe
        assert result["refresh_api_calls"][fe] == {"get": jobs}, fe
        assert found["destroy_api_calls_per_job"]["jobs_creating"] >= 2, fe  # a get, then a terminate
        for wait_for in WAIT_FORS:
            entry = result["wait_for_api_calls"][fe][wait_for]
            assert entry["up_calls"].get("create", 0) == wait_jobs, (fe, wait_for, entry)
            # The account's catalogue: read once by the run's provider process, whatever the number of jobs.
            assert entry["catalogue_calls"] == entry["up_calls"].get("flavors") == 1, (fe, wait_for, entry)
            assert entry["destroy_calls_per_job"] >= 1, (fe, wait_for, entry)
            assert found["up_api_calls_per_job"][wait_for] == entry["up_calls_per_job"]
        # wait_for="none": the create, nothing else; "completed" polled until the job ended.
        assert found["up_api_calls_per_job"]["none"] == 1, fe
        assert found["up_api_calls_per_job"]["completed"] > 1, fe

    scaling = result["scaling"]
    for kind in KINDS:
        for size in result["config"]["scaling_sizes"]:
            for op in ("preview", "up"):
                assert _is_spread(scaling[kind][str(size)][op]), (kind, size, op)
    for fe in FRONT_ENDS:
        for size in result["config"]["wait_concurrency_sizes"]:
            assert _is_spread(scaling["wait_concurrency"][fe][str(size)]), (fe, size)
        for size in result["config"]["throttled_wait_sizes"]:
            assert _is_spread(scaling["throttled_wait"][fe][str(size)]), (fe, size)
    chart = (tmp_path / "scaling.png").read_bytes()
    assert chart.startswith(b"\x89PNG\r\n\x1a\n") and len(chart) > 1000
    assert "preview_overhead_ratio" in proc.stdout and "wait_concurrency_ratio" in proc.stdout

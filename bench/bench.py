"""What the provider costs beyond the API calls it must make, measured side by side in one run.

Every timing is a ratio against a floor measured in the same run on the same machine (absolute times on shared
machines drift), and every figure is the median of several runs with min and max kept. See bench/README.md for
what each figure means and how it is measured; `bench/run --quick` is the small version CI runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.cli.pulumi_cli import Stack, find_pulumi, pulumi_env, write_project
from tests.support import emulator_env

from modelarts_emulator.testing import EmulatorProcess, start_emulator

REPO = Path(__file__).resolve().parents[1]


LATENCY_MS = 50
PROVIDER_CONCURRENCY = 4  # pulumi.dynamic's provider host serves four calls at once
POLL_SECONDS = "0.1"
TARGETS = {
    "preview_overhead_ratio": 1.15,
    "up_overhead_ratio": 1.25,
    "client_cost_vs_official_sdk": 0.5,
}
ALGORITHM_ID = "3f5d6706-7b67-408d-8ba0-ec08048c45ed"
FREE_FLAVOR = "modelarts.p3.large.public.free"

PROVIDER_PROGRAM = textwrap.dedent(
    f"""
    import os

    from pulumi_modelarts import TrainingJob

    for i in range(int(os.environ["BENCH_JOBS"])):
        TrainingJob(
            f"job-{{i}}",
            metadata={{"description": "bench"}},
            algorithm={{
                "id": "{ALGORITHM_ID}",
                "parameters": [{{"name": "input_dir", "value": "obs://bench/data/"}}],
            }},
            spec={{"resource": {{"flavor_id": "{FREE_FLAVOR}", "node_count": 1}}}},
            wait_for=os.environ.get("BENCH_WAIT_FOR", "none"),
        )
    """
)

# Pulumi's floor: dynamic resources whose provider does nothing but hand back an id.
FLOOR_PROGRAM = textwrap.dedent(
    """
    import os

    from pulumi.dynamic import CreateResult, Resource, ResourceProvider


    class Noop(ResourceProvider):
        def create(self, props):
            return CreateResult(f"noop-{props['index']}", {})


    class Thing(Resource):
        def __init__(self, name, index):
            super().__init__(Noop(), name, {"index": index})


    for i in range(int(os.environ["BENCH_JOBS"])):
        Thing(f"thing-{i}", i)
    """
)


# ------------------------------------------------------------------------------------------------- helpers


def summary(samples: list[float], digits: int = 4) -> dict[str, Any]:
    return {
        "median": round(statistics.median(samples), digits),
        "min": round(min(samples), digits),
        "max": round(max(samples), digits),
        "runs": len(samples),
    }


def ratio_summary(numerators: list[float], denominators: list[float]) -> dict[str, Any]:
    """Median of the ratio of medians; min/max pair the extremes (best = min/max, worst = max/min)."""
    return {
        "median": round(statistics.median(numerators) / statistics.median(denominators), 3),
        "min": round(min(numerators) / max(denominators), 3),
        "max": round(max(numerators) / min(denominators), 3),
    }


def say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def api_calls(emu: EmulatorProcess) -> dict[str, int]:
    # API operations by name (create, get, terminate, ...), refused ones included.
    return {str(k): int(v) for k, v in emu.stats()["by_operation"].items()}


def total(calls: dict[str, int]) -> int:
    return sum(calls.values())


class Bench:
    """The two stacks (provider and floor) in one private backend, and the commands timed on them."""

    def __init__(self, root: Path, emu: EmulatorProcess) -> None:
        self.emu = emu
        env = pulumi_env(root / "state")
        self.stacks: dict[str, Stack] = {}
        for kind, program in (("floor", FLOOR_PROGRAM), ("provider", PROVIDER_PROGRAM)):
            write_project(root / kind, f"bench-{kind}", program)
            self.stacks[kind] = Stack(root / kind, root / "state", name=kind, env=env)
        self.stacks["floor"].init()
        self.stacks["provider"].init()

    def run(
        self, kind: str, *args: str, jobs: int, emu: EmulatorProcess | None = None, **extra: str
    ) -> float:
        env = {**emulator_env(emu or self.emu, POLL_SECONDS), "BENCH_JOBS": str(jobs), **extra}
        started = time.perf_counter()
        self.stacks[kind].run(*args, **env)
        return time.perf_counter() - started

    def up(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(kind, "up", "--yes", "--skip-preview", jobs=jobs, **kw)

    def preview(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(kind, "preview", "--expect-no-changes", jobs=jobs, **kw)

    def refresh(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(kind, "refresh", "--yes", "--skip-preview", jobs=jobs, **kw)

    def destroy(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(kind, "destroy", "--yes", "--skip-preview", jobs=jobs, **kw)


# ------------------------------------------------------------------------------------------------- engine


def measure_engine(
    bench: Bench, sizes: list[int], main_size: int, reps: int, main_reps: int
) -> dict[str, Any]:
    """preview/up of the provider and the floor at each size, interleaved so drift hits both alike."""
    emu = bench.emu
    times: dict[str, dict[int, dict[str, list[float]]]] = {
        kind: {n: {"up": [], "preview": []} for n in sizes} for kind in ("floor", "provider")
    }
    calls: dict[str, Any] = {"up_none": [], "preview": [], "destroy": []}
    for n in sizes:
        for rep in range(main_reps if n == main_size else reps):
            say(f"{n} jobs, run {rep + 1}: up, preview, destroy (floor and provider)")
            for kind in ("floor", "provider"):
                emu.reset_stats()
                times[kind][n]["up"].append(bench.up(kind, n))
                if kind == "provider":
                    calls["up_none"].append(total(api_calls(emu)) / n)
            for kind in ("floor", "provider"):
                emu.reset_stats()
                times[kind][n]["preview"].append(bench.preview(kind, n))
                if kind == "provider":
                    calls["preview"].append(total(api_calls(emu)))
            if n == main_size and rep == 0:
                emu.reset_stats()
                bench.refresh("provider", n)
                calls["refresh"] = api_calls(emu)
                calls["refresh_per_job"] = total(calls["refresh"]) / n
            for kind in ("floor", "provider"):
                emu.reset_stats()
                bench.destroy(kind, n)
                if kind == "provider":
                    calls["destroy"].append(total(api_calls(emu)) / n)
    return {"times": times, "calls": calls}


def measure_wait_for(bench: Bench, jobs: int) -> dict[str, Any]:
    """API calls per job for `pulumi up` with each wait_for, and for the destroy that follows it."""
    found: dict[str, Any] = {}
    with start_emulator(
        creating_seconds=0.3, pending_seconds=0.3, running_seconds=0.6, terminating_seconds=0.3
    ) as emu:
        for wait_for in ("none", "pending", "running", "completed"):
            say(f"wait_for={wait_for}: up and destroy of {jobs} jobs")
            emu.reset_stats()
            bench.up("provider", jobs, emu=emu, BENCH_WAIT_FOR=wait_for)
            up = api_calls(emu)
            emu.reset_stats()
            bench.destroy("provider", jobs, emu=emu, BENCH_WAIT_FOR=wait_for)
            down = api_calls(emu)
            found[wait_for] = {
                "up_calls_per_job": total(up) / jobs,
                "up_calls": up,
                "destroy_calls_per_job": total(down) / jobs,
                "destroy_calls": down,
            }
    return found


def create_round_trip(emu: EmulatorProcess, samples: int) -> list[float]:
    """Wall time of one signed create on a kept-alive connection: what the API itself needs per create."""
    import httpx

    body: dict[str, Any] = {
        "kind": "job",
        "metadata": {"name": "bench-rtt", "description": "bench"},
        "algorithm": {
            "id": ALGORITHM_ID,
            "parameters": [{"name": "input_dir", "value": "obs://bench/data/"}],
        },
        "spec": {"resource": {"flavor_id": FREE_FLAVOR, "node_count": 1}},
    }
    found: list[float] = []
    with httpx.Client(auth=emu.auth(), timeout=30) as http:
        url = emu.api_url("/training-jobs")
        http.post(url, json=body).raise_for_status()  # connect first
        for sample in range(samples):
            # Job names are unique in the service (and the emulator): one name per job.
            body["metadata"]["name"] = f"bench-rtt-{sample}"
            started = time.perf_counter()
            http.post(url, json=body).raise_for_status()
            found.append(time.perf_counter() - started)
    return found


# ------------------------------------------------------------------------------------------------- client


def _official_client(emu: EmulatorProcess) -> Any:
    from huaweicloudsdkcore.auth.credentials import BasicCredentials
    from huaweicloudsdkcore.http.http_config import HttpConfig
    from huaweicloudsdkmodelarts.v1 import ModelArtsClient

    config = HttpConfig.get_default_config()
    config.retry_times = 0
    credentials = BasicCredentials(emu.access_key, emu.secret_key, emu.project_id)
    return (
        ModelArtsClient.new_builder()
        .with_credentials(credentials)
        .with_endpoints([emu.url])
        .with_http_config(config)
        .build()
    )


def _create_body(index: int) -> dict[str, Any]:
    return {
        "kind": "job",
        "metadata": {"name": f"client-bench-{index}", "description": "bench"},
        "algorithm": {
            "id": ALGORITHM_ID,
            "parameters": [{"name": "input_dir", "value": "obs://bench/data/"}],
        },
        "spec": {"resource": {"flavor_id": FREE_FLAVOR, "node_count": 1}},
    }


def _ours(emu: EmulatorProcess) -> tuple[Any, dict[str, Callable[..., Any]]]:
    from pulumi_modelarts.auth import AkSkAuth
    from pulumi_modelarts.client import ModelArtsClient
    from pulumi_modelarts.models import CreateTrainingJobRequest, SearchFilter, SearchRequest

    client = ModelArtsClient(
        endpoint=emu.url, project_id=emu.project_id, auth=AkSkAuth(emu.access_key, emu.secret_key)
    )
    request = CreateTrainingJobRequest.model_validate(_create_body(0))
    search = SearchRequest(
        limit=10, filters=[SearchFilter(key="name", operator="like", value=["client-bench"])]
    )
    ops: dict[str, Callable[..., Any]] = {
        "create": lambda: client.create_job(request).job_id,
        "get": client.get_job,
        "terminate": client.terminate_job,
        "search": lambda: client.search_jobs(search),
    }
    return client, ops


def _official(emu: EmulatorProcess) -> tuple[Any, dict[str, Callable[..., Any]]]:
    from huaweicloudsdkmodelarts.v1 import model as m

    client = _official_client(emu)
    request = m.CreateTrainingJobRequest(body=_create_body(0))
    search = m.ListTrainingJobsRequest(
        body=m.JobSearches(limit=10, filters=[m.Filter(key="name", operator="like", value=["client-bench"])])
    )
    stop = m.JobActionType(action_type="terminate")
    ops: dict[str, Callable[..., Any]] = {
        "create": lambda: client.create_training_job(request).metadata.id,
        "get": lambda job_id: client.show_training_job_details(
            m.ShowTrainingJobDetailsRequest(training_job_id=job_id)
        ),
        "terminate": lambda job_id: client.stop_training_job(
            m.StopTrainingJobRequest(training_job_id=job_id, body=stop)
        ),
        "search": lambda: client.list_training_jobs(search),
    }
    return client, ops


def _client_round(ops: dict[str, Callable[..., Any]], calls: int) -> dict[str, tuple[float, float]]:
    """(CPU seconds, wall seconds) per call of each operation, over `calls` calls in this process."""
    found: dict[str, tuple[float, float]] = {}
    ids: list[str] = []

    def timed(name: str, body: Callable[[], None]) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        body()
        found[name] = ((time.process_time() - cpu) / calls, (time.perf_counter() - wall) / calls)

    timed("create", lambda: ids.extend(ops["create"]() for _ in range(calls)))
    timed("get", lambda: [ops["get"](job_id) for job_id in ids])
    timed("terminate", lambda: [ops["terminate"](job_id) for job_id in ids])
    timed("search", lambda: [ops["search"]() for _ in range(calls)])
    return found


def measure_clients(calls: int, rounds: int) -> dict[str, Any]:
    """This project's client and the official SDK, the same calls against the same emulator, alternating."""
    samples: dict[str, dict[str, dict[str, list[float]]]] = {
        who: {op: {"cpu": [], "wall": []} for op in ("create", "get", "terminate", "search")}
        for who in ("ours", "official")
    }
    # Each client sends one request over and over (the call's cost is measured, not the name rule's), so the
    # emulator accepts repeated names here.
    with start_emulator(
        creating_seconds=600, pending_seconds=600, running_seconds=600, unique_names=False
    ) as emu:
        clients = {"ours": _ours(emu), "official": _official(emu)}
        for _, ops in clients.values():  # warm both up: imports, connection, first-call caches
            _client_round(ops, 3)
        for rnd in range(rounds):
            say(f"client round {rnd + 1}/{rounds}: {calls} calls of each operation per client")
            for who, (_, ops) in clients.items():
                emu.reset()  # both see the same service state
                for op, (cpu, wall) in _client_round(ops, calls).items():
                    samples[who][op]["cpu"].append(cpu)
                    samples[who][op]["wall"].append(wall)
        clients["ours"][0].close()
    per_op: dict[str, Any] = {}
    for op in ("create", "get", "terminate", "search"):
        ours, official = samples["ours"][op], samples["official"][op]
        per_op[op] = {
            "cpu_ratio": ratio_summary(ours["cpu"], official["cpu"]),
            "ours_cpu_us": summary([s * 1e6 for s in ours["cpu"]], 1),
            "official_cpu_us": summary([s * 1e6 for s in official["cpu"]], 1),
            "ours_wall_us": summary([s * 1e6 for s in ours["wall"]], 1),
            "official_wall_us": summary([s * 1e6 for s in official["wall"]], 1),
        }
    ours_all = [sum(samples["ours"][op]["cpu"][i] for op in per_op) for i in range(rounds)]
    official_all = [sum(samples["official"][op]["cpu"][i] for op in per_op) for i in range(rounds)]
    return {"overall": ratio_summary(ours_all, official_all), "per_operation": per_op, "calls": calls}


# ------------------------------------------------------------------------------------------------- in-process


IMPORT_SNIPPET = """
import sys, time
import pulumi, pulumi.dynamic
started = time.perf_counter()
{extra}
print(time.perf_counter() - started)
"""


def measure_import(reps: int) -> dict[str, Any]:
    """Extra wall time to import the package (resource, provider, client, models) after pulumi.dynamic."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "provider")}

    def one(extra: str) -> float:
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_SNIPPET.format(extra=extra)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return float(out.strip())

    extra = "import pulumi_modelarts.resource, pulumi_modelarts.provider, pulumi_modelarts.client"
    samples = [one(extra) * 1000 for _ in range(reps)]
    return summary(samples, 1)


def large_inputs() -> dict[str, Any]:
    return {
        "metadata": {"name": "big-job", "description": "a large spec"},
        "algorithm": {
            "engine": {"image_url": "org/trainer:1.0"},
            "command": "python train.py",
            "parameters": [{"name": f"param_{i}", "value": str(i)} for i in range(100)],
            "inputs": [
                {"name": f"in_{i}", "remote": {"obs": {"obs_url": f"obs://b/in/{i}/"}}} for i in range(20)
            ],
            "outputs": [
                {"name": f"out_{i}", "remote": {"obs": {"obs_url": f"obs://b/out/{i}/"}}} for i in range(20)
            ],
            "environments": {f"VAR_{i}": str(i) for i in range(20)},
        },
        "spec": {"resource": {"flavor_id": FREE_FLAVOR, "node_count": 1}},
        "wait_for": "none",
        "name_prefix": "big",
    }


def measure_check_diff(iterations: int, reps: int) -> dict[str, Any]:
    """CPU time of check + diff (no change) of a large spec, per pair of calls, in microseconds."""
    from pulumi_modelarts.provider import TrainingJobProvider

    provider = TrainingJobProvider()
    news = large_inputs()
    checked = provider.check({}, news)
    assert not checked.failures, checked.failures
    olds = {"declared_inputs": checked.inputs, "phase": "Running", "name": "big-job"}
    samples: list[float] = []
    for _ in range(reps):
        started = time.process_time()
        for _ in range(iterations):
            result = provider.check(olds, news)
            decision = provider.diff("id", olds, result.inputs)
        samples.append((time.process_time() - started) / iterations * 1e6)
        assert not decision.changes, decision
    return summary(samples, 1)


# ------------------------------------------------------------------------------------------------- output


def figures(engine: dict[str, Any], main_size: int, rtt: list[float]) -> dict[str, Any]:
    times = engine["times"]
    prov, floor = times["provider"][main_size], times["floor"][main_size]
    rtt_median = statistics.median(rtt)
    api_seconds = math.ceil(main_size / PROVIDER_CONCURRENCY) * rtt_median
    up_floor = [t + api_seconds for t in floor["up"]]
    return {
        "preview_overhead_ratio": {
            **ratio_summary(prov["preview"], floor["preview"]),
            "target": TARGETS["preview_overhead_ratio"],
            "provider_s": summary(prov["preview"], 3),
            "floor_s": summary(floor["preview"], 3),
        },
        "up_overhead_ratio": {
            **ratio_summary(prov["up"], up_floor),
            "target": TARGETS["up_overhead_ratio"],
            "provider_s": summary(prov["up"], 3),
            "floor_s": summary(floor["up"], 3),
            "api_s": round(api_seconds, 4),
            "api_method": (
                f"ceil({main_size} creates / {PROVIDER_CONCURRENCY} concurrent provider calls) x median wall "
                f"time of one signed create on a kept-alive connection to the same emulator "
                f"(--latency-ms {LATENCY_MS}): {rtt_median * 1000:.1f} ms over {len(rtt)} creates"
            ),
            "create_round_trip_ms": summary([r * 1000 for r in rtt], 2),
        },
    }


def scaling(engine: dict[str, Any], sizes: list[int]) -> dict[str, Any]:
    return {
        kind: {
            str(n): {op: summary(engine["times"][kind][n][op], 3) for op in ("preview", "up")} for n in sizes
        }
        for kind in ("provider", "floor")
    }


def chart(scale: dict[str, Any], sizes: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    for ax, op in zip(axes, ("preview", "up"), strict=True):
        for kind, style in (("provider", "o-"), ("floor", "s--")):
            medians = [scale[kind][str(n)][op]["median"] for n in sizes]
            lows = [scale[kind][str(n)][op]["min"] for n in sizes]
            highs = [scale[kind][str(n)][op]["max"] for n in sizes]
            label = "TrainingJob" if kind == "provider" else "no-op dynamic resource (floor)"
            ax.plot(sizes, medians, style, label=label)
            ax.fill_between(sizes, lows, highs, alpha=0.2)
        title = "pulumi preview (no changes)" if op == "preview" else f"pulumi up (emulator +{LATENCY_MS} ms)"
        ax.set_title(title)
        ax.set_xlabel("resources in the stack")
        ax.set_ylabel("seconds (median; band = min-max)")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table(result: dict[str, Any]) -> str:
    def mm(entry: dict[str, Any], unit: str = "") -> str:
        return f"{entry['median']}{unit} ({entry['min']}-{entry['max']})"

    f = result["figures"]
    rows = [
        (
            "preview_overhead_ratio",
            mm(f["preview_overhead_ratio"]),
            f"<= {TARGETS['preview_overhead_ratio']}",
        ),
        ("up_overhead_ratio", mm(f["up_overhead_ratio"]), f"<= {TARGETS['up_overhead_ratio']}"),
        (
            "client_cost_vs_official_sdk",
            mm(f["client_cost_vs_official_sdk"]),
            f"<= {TARGETS['client_cost_vs_official_sdk']}",
        ),
    ]
    for op, entry in result["client"]["per_operation"].items():
        rows.append(
            (
                f"  {op}: CPU us/call ours | SDK",
                f"{mm(entry['ours_cpu_us'])} | {mm(entry['official_cpu_us'])}",
                f"wall us {entry['ours_wall_us']['median']} | {entry['official_wall_us']['median']}",
            )
        )
    rows += [
        ("preview_api_calls", str(f["preview_api_calls"]), "must be 0"),
        ("refresh_api_calls_per_job", str(f["refresh_api_calls_per_job"]), "must be 1"),
        ("destroy_api_calls_per_job", str(f["destroy_api_calls_per_job"]), "jobs in Creating"),
    ]
    for wait_for, entry in result["wait_for_api_calls"].items():
        rows.append(
            (
                f"up_api_calls_per_job[wait_for={wait_for}]",
                str(entry["up_calls_per_job"]),
                f"destroy after it: {entry['destroy_calls_per_job']}",
            )
        )
    rows += [
        ("provider_import_ms", mm(f["provider_import_ms"], " ms"), "after pulumi.dynamic"),
        ("check_diff_us", mm(f["check_diff_us"], " us"), "100 params, 20 in/out"),
    ]
    scale = result["scaling"]
    for n in result["config"]["scaling_sizes"]:
        p, fl = scale["provider"][str(n)], scale["floor"][str(n)]
        rows.append(
            (
                f"scaling {n} jobs preview | up (s)",
                f"{p['preview']['median']} vs floor {fl['preview']['median']}",
                f"{p['up']['median']} vs floor {fl['up']['median']}",
            )
        )
    width = max(len(r[0]) for r in rows)
    mid = max(len(r[1]) for r in rows)
    lines = [f"{'figure':<{width}}  {'median (min-max)':<{mid}}  note", "-" * (width + mid + 30)]
    lines += [f"{a:<{width}}  {b:<{mid}}  {c}" for a, b, c in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- main


@contextlib.contextmanager
def workspace(keep: bool) -> Iterator[Path]:
    if keep:
        yield Path(tempfile.mkdtemp(prefix="modelarts-bench-"))
    else:
        with tempfile.TemporaryDirectory(prefix="modelarts-bench-") as tmp:
            yield Path(tmp)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast version (CI keeps it working)")
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench" / "results")
    parser.add_argument("--keep", action="store_true", help="keep the temporary Pulumi projects and state")
    args = parser.parse_args(argv)

    if args.quick:
        main_size, sizes, reps, main_reps = 2, [2], 1, 1
        client_calls, client_rounds, import_reps, check_iters, wait_jobs, rtt_samples = 10, 1, 2, 20, 1, 8
    else:
        main_size, sizes, reps, main_reps = 20, [1, 10, 20, 50], 3, 5
        client_calls, client_rounds, import_reps, check_iters, wait_jobs, rtt_samples = 200, 5, 7, 200, 2, 40
    find_pulumi()
    started = time.perf_counter()

    say("in-process figures: import time, check + diff")
    import_ms = measure_import(import_reps)
    check_diff = measure_check_diff(check_iters, 5)
    say("client CPU time: this project's client vs the official SDK")
    client = measure_clients(client_calls, client_rounds)

    with (
        workspace(args.keep) as root,
        start_emulator(
            latency_ms=LATENCY_MS,
            creating_seconds=600,
            pending_seconds=600,
            running_seconds=600,
            terminating_seconds=0.2,
        ) as emu,
    ):
        rtt = create_round_trip(emu, rtt_samples)
        bench = Bench(root, emu)
        engine = measure_engine(bench, sizes, main_size, reps, main_reps)
        wait_for = measure_wait_for(bench, wait_jobs)

    calls = engine["calls"]
    result: dict[str, Any] = {
        "figures": {
            **figures(engine, main_size, rtt),
            "client_cost_vs_official_sdk": {
                **client["overall"],
                "target": TARGETS["client_cost_vs_official_sdk"],
            },
            "preview_api_calls": max(calls["preview"]),
            "refresh_api_calls_per_job": calls["refresh_per_job"],
            "destroy_api_calls_per_job": statistics.median(calls["destroy"]),
            "up_api_calls_per_job": statistics.median(calls["up_none"]),
            "provider_import_ms": import_ms,
            "check_diff_us": check_diff,
        },
        "client": client,
        "wait_for_api_calls": wait_for,
        "refresh_api_calls": calls["refresh"],
        "scaling": scaling(engine, sizes),
        "config": {
            "quick": args.quick,
            "jobs": main_size,
            "scaling_sizes": sizes,
            "runs_per_size": reps,
            "runs_at_main_size": main_reps,
            "emulator_latency_ms": LATENCY_MS,
            "poll_seconds": float(POLL_SECONDS),
            "wait_for_jobs": wait_jobs,
            "python": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
            "pulumi": subprocess.run(
                [find_pulumi(), "version"], capture_output=True, text=True
            ).stdout.strip(),
            "seconds": round(time.perf_counter() - started, 1),
        },
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "latest.json").write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")
    chart(result["scaling"], sizes, args.out_dir / "scaling.png")
    print(table(result))
    print(f"\nwritten: {args.out_dir / 'latest.json'}, {args.out_dir / 'scaling.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

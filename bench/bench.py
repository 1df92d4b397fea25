"""What each front-end (dynamic and native provider) costs beyond the API calls it must make, side by side.

Both front-ends and both floors (a no-op dynamic resource; a no-op native Python plugin) are measured
interleaved in one run against the same emulator, so their ratios are comparable on a noisy machine; every
figure is the median of several runs with min and max kept. See bench/README.md for what each figure means and
how it is measured; `bench/run --quick` is the small version CI runs.
"""

from __future__ import annotations

import argparse
import asyncio
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

from tests.cli.pulumi_cli import Stack, find_pulumi, pulumi_argv, pulumi_env, write_project
from tests.support import default_sigint, emulator_env

from modelarts_emulator.testing import EmulatorProcess, start_emulator

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent  # where pip put pulumi-resource-modelarts

LATENCY_MS = 50
# pulumi.dynamic's provider host serves four calls at once (a thread pool of four), whatever --parallel says.
DYNAMIC_CONCURRENCY = 4
# Every up and destroy runs with --parallel 32; the native plugin then really has 32 calls in flight.
PARALLEL = 32
POLL_SECONDS = "0.1"
# The wait_concurrency emulator: a job reaches Running about 2 s after its create.
CONCURRENCY_PHASES = {"creating_seconds": 0.5, "pending_seconds": 1.5}

FRONT_ENDS = ("dynamic", "native")
FLOOR = {"dynamic": "dynamic_floor", "native": "native_floor"}
KINDS = ("dynamic_floor", "dynamic", "native_floor", "native")
CONCURRENCY = {"dynamic": DYNAMIC_CONCURRENCY, "native": PARALLEL}
TARGETS: dict[str, dict[str, float | None]] = {
    "dynamic": {
        "wait_concurrency_ratio": None,  # reported: the dynamic provider host's four threads bound it
        "preview_overhead_ratio": 1.10,
        "up_overhead_ratio": 1.15,
    },
    "native": {"wait_concurrency_ratio": 1.3, "preview_overhead_ratio": 1.05, "up_overhead_ratio": 1.10},
}
# The same targets hold at every size of the sweep (the figures above are its main size).
TARGETS["dynamic"].update(preview_overhead_ratio=1.05, up_overhead_ratio=1.10)
CLIENT_TARGET = 1.0  # reported; it stays below 1
ALGORITHM_ID = "3f5d6706-7b67-408d-8ba0-ec08048c45ed"
FREE_FLAVOR = "modelarts.p3.large.public.free"

JOB_PROGRAM = textwrap.dedent(
    f"""
    import os

    from MODULE import TrainingJob

    timeout = os.environ.get("BENCH_WAIT_TIMEOUT")
    extra = {{"wait_timeout": timeout}} if timeout else {{}}
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
            **extra,
        )
    """
)


def job_program(module: str) -> str:
    """The jobs program through one front-end's Python SDK (the dynamic or the native one)."""
    return JOB_PROGRAM.replace("from MODULE import", f"from {module} import")


# Pulumi's floor for a dynamic provider: dynamic resources whose provider does nothing but hand back an id.
DYNAMIC_FLOOR_PROGRAM = textwrap.dedent(
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

# The floor for a native Python provider: custom resources of a plugin that does nothing but hand back an id.
NATIVE_FLOOR_PROGRAM = textwrap.dedent(
    """
    import os

    import pulumi


    class Thing(pulumi.CustomResource):
        def __init__(self, name, index):
            super().__init__("noop:index:Thing", name, {"index": index})


    for i in range(int(os.environ["BENCH_JOBS"])):
        Thing(f"thing-{i}", i)
    """
)

# The no-op plugin: the same server (pulumi.provider.experimental), on the same Python, as
# pulumi-resource-modelarts.
NOOP_PROVIDER = textwrap.dedent(
    """
    import sys

    from pulumi.provider.experimental.provider import (
        CheckResponse,
        CreateResponse,
        DiffResponse,
        Provider,
    )
    from pulumi.provider.experimental.server import main as serve


    class Noop(Provider):
        async def check(self, request):
            return CheckResponse(inputs=request.new_inputs, failures=[])

        async def diff(self, request):
            return DiffResponse(changes=False)

        async def create(self, request):
            return CreateResponse(f"noop-{request.name}", {})

        async def delete(self, request):
            return None


    def main():
        serve(sys.argv[1:], "0.1.0", Noop())
    """
)

# Launched as pip launches pulumi-resource-modelarts: a console script on the venv's interpreter.
CONSOLE_SCRIPT = textwrap.dedent(
    """\
    #!{python}
    # -*- coding: utf-8 -*-
    import re
    import sys
    from {module} import main
    if __name__ == "__main__":
        sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
        sys.exit(main())
    """
)


def plugins_yaml(name: str, directory: Path) -> str:
    return f"plugins:\n  providers:\n    - name: {name}\n      path: {directory}\n"


def write_noop_plugin(directory: Path) -> None:
    """pulumi-resource-noop and its module in directory."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "noop_provider.py").write_text(NOOP_PROVIDER)
    script = directory / "pulumi-resource-noop"
    script.write_text(CONSOLE_SCRIPT.format(python=sys.executable, module="noop_provider"))
    script.chmod(0o755)


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


# A run that creates jobs reads the account's catalogue once (job/catalogue.py), whatever the number of jobs:
# per-job figures count the jobs' own calls, and the catalogue reads are reported beside them.
CATALOGUE_OPERATIONS = ("flavors", "engines")


def job_calls(calls: dict[str, int]) -> int:
    return sum(n for op, n in calls.items() if op not in CATALOGUE_OPERATIONS)


class Bench:
    """The four stacks (each front-end and its floor) in one private backend, and the commands timed."""

    def __init__(self, root: Path, emu: EmulatorProcess) -> None:
        self.emu = emu
        env = pulumi_env(root / "state")
        write_noop_plugin(root / "noop-plugin")
        projects = {
            "dynamic_floor": (DYNAMIC_FLOOR_PROGRAM, ""),
            "dynamic": (job_program("pulumi_modelarts"), ""),
            "native_floor": (NATIVE_FLOOR_PROGRAM, plugins_yaml("noop", root / "noop-plugin")),
            "native": (job_program("pulumi_modelarts_native"), plugins_yaml("modelarts", VENV_BIN)),
        }
        self.stacks: dict[str, Stack] = {}
        for kind, (program, project_yaml) in projects.items():
            write_project(root / kind, f"bench-{kind.replace('_', '-')}", program, project_yaml)
            self.stacks[kind] = Stack(root / kind, root / "state", name=kind, env=env).init()

    def run(
        self, kind: str, *args: str, jobs: int, emu: EmulatorProcess | None = None, **extra: str
    ) -> float:
        env = {**emulator_env(emu or self.emu, POLL_SECONDS), "BENCH_JOBS": str(jobs), **extra}
        started = time.perf_counter()
        self.stacks[kind].run(*args, **env)
        return time.perf_counter() - started

    def up(self, kind: str, jobs: int, *, parallel: int = PARALLEL, **kw: Any) -> float:
        return self.run(kind, "up", "--yes", "--skip-preview", "--parallel", str(parallel), jobs=jobs, **kw)

    def preview(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(kind, "preview", "--expect-no-changes", jobs=jobs, **kw)

    def refresh(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(kind, "refresh", "--yes", "--skip-preview", jobs=jobs, **kw)

    def destroy(self, kind: str, jobs: int, **kw: Any) -> float:
        return self.run(
            kind, "destroy", "--yes", "--skip-preview", "--parallel", str(PARALLEL), jobs=jobs, **kw
        )


# ------------------------------------------------------------------------------------------------- engine


def measure_engine(
    bench: Bench, sizes: list[int], main_size: int, reps: int, main_reps: int
) -> dict[str, Any]:
    """preview/up of both front-ends and both floors at each size, interleaved so drift hits all alike."""
    emu = bench.emu
    times: dict[str, dict[int, dict[str, list[float]]]] = {
        kind: {n: {"up": [], "preview": []} for n in sizes} for kind in KINDS
    }
    calls: dict[str, dict[str, Any]] = {
        fe: {"up_none": [], "preview": [], "destroy": []} for fe in FRONT_ENDS
    }
    for n in sizes:
        for rep in range(main_reps if n == main_size else reps):
            say(f"{n} jobs, run {rep + 1}: up, preview, destroy (both front-ends and both floors)")
            # Every up meets an empty service, as a first up does: a destroyed job's kept record would hold
            # its name and make the next up's create take another path (refused, looked up, renamed).
            emu.reset()
            for step, timed in (("up", bench.up), ("preview", bench.preview)):
                for kind in KINDS:
                    emu.reset_stats()
                    times[kind][n][step].append(timed(kind, n))
                    if kind in FRONT_ENDS:
                        done = api_calls(emu)
                        calls[kind]["up_none" if step == "up" else "preview"].append(
                            job_calls(done) / n if step == "up" else total(done)
                        )
            if n == main_size and rep == 0:
                for fe in FRONT_ENDS:
                    emu.reset_stats()
                    bench.refresh(fe, n)
                    calls[fe]["refresh"] = api_calls(emu)
                    calls[fe]["refresh_per_job"] = total(calls[fe]["refresh"]) / n
            for kind in KINDS:
                emu.reset_stats()
                bench.destroy(kind, n)
                if kind in FRONT_ENDS:
                    calls[kind]["destroy"].append(total(api_calls(emu)) / n)
    return {"times": times, "calls": calls}


def measure_wait_concurrency(bench: Bench, sizes: list[int], reps: int) -> dict[str, dict[int, list[float]]]:
    """`pulumi up` of n jobs with wait_for="running" (each ~2 s to Running), then destroy, per front-end."""
    times: dict[str, dict[int, list[float]]] = {fe: {n: [] for n in sizes} for fe in FRONT_ENDS}
    with start_emulator(**CONCURRENCY_PHASES, running_seconds=600, terminating_seconds=0.2) as emu:
        for rep in range(reps):
            for n in sizes:
                say(f"wait_for=running, {n} jobs, run {rep + 1}: up and destroy (both front-ends)")
                emu.reset()  # an empty service for every up (see measure_engine)
                for fe in FRONT_ENDS:
                    times[fe][n].append(bench.up(fe, n, emu=emu, BENCH_WAIT_FOR="running"))
                    bench.destroy(fe, n, emu=emu, BENCH_WAIT_FOR="running")
    return times


# The throttled wait: a tenth of all API calls refused with ModelArts' own throttling code, which the client
# answers with a pause of at least MODELARTS_THROTTLED_MIN_PAUSE (2 s), as Huawei advises.
THROTTLE = {"throttle_rate": 0.1, "throttle_code": "ModelArts.2799", "seed": 23}


def measure_throttled_wait(bench: Bench, sizes: list[int], reps: int) -> dict[str, dict[int, list[float]]]:
    """`pulumi up` of n jobs with wait_for="running" against a service that throttles 10% of calls."""
    times: dict[str, dict[int, list[float]]] = {fe: {n: [] for n in sizes} for fe in FRONT_ENDS}
    with start_emulator(
        **CONCURRENCY_PHASES, running_seconds=600, terminating_seconds=0.2, **THROTTLE
    ) as emu:
        for rep in range(reps):
            for n in sizes:
                say(f"throttled wait_for=running, {n} jobs, run {rep + 1}: up and destroy (both front-ends)")
                for fe in FRONT_ENDS:
                    emu.reset()  # an empty service and the fault seed restarted: both see the same faults
                    times[fe][n].append(bench.up(fe, n, emu=emu, BENCH_WAIT_FOR="running"))
                    bench.destroy(fe, n, emu=emu, BENCH_WAIT_FOR="running")
    return times


def measure_wait_for(bench: Bench, jobs: int) -> dict[str, Any]:
    """API calls per job for `pulumi up` with each wait_for, and for the destroy that follows it."""
    found: dict[str, Any] = {fe: {} for fe in FRONT_ENDS}
    with start_emulator(
        creating_seconds=0.3, pending_seconds=0.3, running_seconds=0.6, terminating_seconds=0.3
    ) as emu:
        for wait_for in ("none", "pending", "running", "completed"):
            # An empty service for every up: the last up's jobs, destroyed but kept, would still hold their
            # names (a job created seconds ago with the same declaration would even be adopted, not polled).
            emu.reset()
            for fe in FRONT_ENDS:
                say(f"{fe}, wait_for={wait_for}: up and destroy of {jobs} jobs")
                emu.reset_stats()
                bench.up(fe, jobs, emu=emu, BENCH_WAIT_FOR=wait_for)
                up = api_calls(emu)
                emu.reset_stats()
                bench.destroy(fe, jobs, emu=emu, BENCH_WAIT_FOR=wait_for)
                down = api_calls(emu)
                found[fe][wait_for] = {
                    "up_calls_per_job": job_calls(up) / jobs,
                    "up_calls": up,
                    "catalogue_calls": total(up) - job_calls(up),
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
    from pulumi_modelarts.job.ownership.lost_creates import LostCreate
    from pulumi_modelarts.wire.api import ModelArtsAPI
    from pulumi_modelarts.wire.auth import AkSkAuth
    from pulumi_modelarts.wire.models import CreateTrainingJobRequest, SearchFilter, SearchRequest
    from pulumi_modelarts.wire.transport import Transport

    client = ModelArtsAPI(
        Transport(endpoint=emu.url, project_id=emu.project_id, auth=AkSkAuth(emu.access_key, emu.secret_key))
    )
    request = CreateTrainingJobRequest.model_validate(_create_body(0))
    name = request.metadata.name or ""
    search = SearchRequest(
        limit=10, filters=[SearchFilter(key="name", operator="like", value=["client-bench"])]
    )
    ops: dict[str, Callable[..., Any]] = {
        # With the recovery the job layer hands every create (held_names), as the provider posts one.
        "create": lambda: client.create_job(request, LostCreate(client, name, started=time.time())).job_id,
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

    def timed(name: str, body: Callable[[], object]) -> None:
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

    extra = (
        "import pulumi_modelarts.frontends.resource, pulumi_modelarts.frontends.dynamic,"
        " pulumi_modelarts.account.session"
    )
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


def small_inputs() -> dict[str, Any]:
    return {
        "metadata": {"description": "bench"},
        "algorithm": {
            "id": ALGORITHM_ID,
            "parameters": [{"name": "input_dir", "value": "obs://bench/data/"}],
        },
        "spec": {"resource": {"flavor_id": FREE_FLAVOR, "node_count": 1}},
        "wait_for": "none",
        "name_prefix": "job",
    }


# What the dynamic provider host does before its first answer to a Check of one of our jobs: its imports
# (pulumi.dynamic.__main__ cannot be imported: it starts serving), unpickling the provider (which imports this
# package) and running its check.
DYNAMIC_FIRST_CHECK = """
import time
started = time.perf_counter()
import base64, json, sys
import dill, grpc
import pulumi.dynamic
from pulumi.runtime import rpc
news = json.loads(sys.argv[1])
provider = dill.loads(base64.b64decode(news["__provider"]))
result = provider.check({}, news)
assert not result.failures, result.failures
print(time.perf_counter() - started)
"""


def first_answer_ms(front_end: str) -> float:
    """Wall time from starting the front-end's provider process to its answer to a first Check of one job.

    native: pulumi-resource-modelarts started as the engine starts it, to its gRPC answer; dynamic: a fresh
    interpreter doing what the dynamic provider host does for its first Check (its gRPC server start is the
    same for every dynamic provider, so it is left out).
    """
    news = small_inputs()
    if front_end == "dynamic":
        from pulumi.dynamic.dynamic import serialize_provider

        from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

        news["__provider"] = serialize_provider(TrainingJobProvider())
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", DYNAMIC_FIRST_CHECK, json.dumps(news)],
            check=True,
            timeout=120,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
        return (time.perf_counter() - started) * 1000
    import grpc  # type: ignore[import-untyped]
    from google.protobuf import struct_pb2  # type: ignore[import-untyped]
    from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

    urn = "urn:pulumi:bench::bench::modelarts:index:TrainingJob::job"
    request = provider_pb2.CheckRequest(urn=urn, olds=struct_pb2.Struct(), news=struct_pb2.Struct())
    request.news.update(news)
    # An engine address is required on the command line; nothing is sent to it before the first operation.
    argv = [str(VENV_BIN / "pulumi-resource-modelarts"), "127.0.0.1:1"]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().strip())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            answer = provider_pb2_grpc.ResourceProviderStub(channel).Check(request, timeout=60)
        elapsed = time.perf_counter() - started
    finally:
        process.kill()
        process.wait(timeout=10)
    assert not answer.failures, answer.failures
    return elapsed * 1000


def measure_provider_start(reps: int) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {fe: [] for fe in FRONT_ENDS}
    for _ in range(reps):
        for fe in FRONT_ENDS:
            found[fe].append(first_answer_ms(fe))
    return found


def measure_check_diff(iterations: int, reps: int) -> dict[str, list[float]]:
    """CPU time of check + diff (no change) of a large spec, per pair of calls in µs, for each front-end."""
    return {"dynamic": _dynamic_check_diff(iterations, reps), "native": _native_check_diff(iterations, reps)}


def _dynamic_check_diff(iterations: int, reps: int) -> list[float]:
    from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

    provider = TrainingJobProvider()
    news = large_inputs()
    checked = provider.check({}, news)
    assert not checked.failures, checked.failures
    # As the engine calls them: check with the inputs it accepted last time, diff with the stored outputs.
    olds = {"declared_inputs": checked.inputs, "phase": "Running", "name": "big-job"}
    samples: list[float] = []
    for _ in range(reps):
        started = time.process_time()
        for _ in range(iterations):
            result = provider.check(checked.inputs, news)
            decision = provider.diff("id", olds, result.inputs)
        samples.append((time.process_time() - started) / iterations * 1e6)
        assert not decision.changes, decision
    return samples


def _native_check_diff(iterations: int, reps: int) -> list[float]:
    """The plugin's check and diff as the server calls them (PropertyValues in, PropertyValues out)."""
    from pulumi.provider.experimental.provider import CheckRequest, DiffRequest

    from pulumi_modelarts.frontends.native_values import outputs_map, plain_map, property_map
    from pulumi_modelarts.frontends.plugin import ModelArtsProvider
    from pulumi_modelarts.frontends.renaming import to_schema, to_wire
    from pulumi_modelarts.generated import schema_names
    from pulumi_modelarts.job.recorded import DECLARED_INPUTS

    provider = ModelArtsProvider(None, workers=1)
    urn = "urn:pulumi:bench::bench::modelarts:index:TrainingJob::big-job"
    # As the engine sends them: in the schema's names.
    news = property_map(to_schema(large_inputs(), schema_names.INPUTS))

    async def measure() -> list[float]:
        first = await provider.check(CheckRequest(urn, {}, news, b""))
        assert not first.failures and first.inputs is not None, first.failures
        olds = first.inputs
        declared = to_wire(plain_map(olds), schema_names.INPUTS)
        state = outputs_map({DECLARED_INPUTS: declared, "phase": "Running", "name": "big-job"}, {})
        samples: list[float] = []
        for _ in range(reps):
            started = time.process_time()
            for _ in range(iterations):
                checked = await provider.check(CheckRequest(urn, olds, news, b""))
                assert checked.inputs is not None
                decision = await provider.diff(DiffRequest(urn, "id", state, checked.inputs, []))
            samples.append((time.process_time() - started) / iterations * 1e6)
            assert not decision.changes, decision
        return samples

    return asyncio.run(measure())


# ------------------------------------------------------------------------------------------------- output


def with_target(entry: dict[str, Any], target: float | None) -> dict[str, Any]:
    return {**entry, "target": target}


def wait_ratio(
    runs: dict[int, list[float]], many: int, one: int, target: float | None, detail: str
) -> dict[str, Any]:
    """A wait figure: up of many jobs waiting for Running over the same of one; detail ends its method."""
    return {
        **with_target(ratio_summary(runs[many], runs[one]), target),
        "jobs": many,
        f"up_{many}_s": summary(runs[many], 3),
        f"up_{one}_s": summary(runs[one], 3),
        "method": f"pulumi up --parallel {PARALLEL} of {many} jobs with wait_for=running / the same of {one}"
        + detail,
    }


def front_end_figures(
    fe: str,
    measured: dict[str, Any],
    main_size: int,
    rtt: list[float],
) -> dict[str, Any]:
    """The figures of one front-end, each ratio against that front-end's own floor."""
    times, calls = measured["engine"]["times"], measured["engine"]["calls"][fe]
    ours, floor = times[fe][main_size], times[FLOOR[fe]][main_size]
    concurrency = measured["wait_concurrency"][fe]
    many, one = max(concurrency), min(concurrency)
    throttled = measured["throttled_wait"][fe]
    t_many, t_one = max(throttled), min(throttled)
    rtt_median = statistics.median(rtt)
    in_flight = min(main_size, CONCURRENCY[fe])
    api_seconds = api_time(fe, main_size, rtt_median)
    up_floor = [t + api_seconds for t in floor["up"]]
    wait_for = measured["wait_for"][fe]
    targets = TARGETS[fe]
    found: dict[str, Any] = {
        "wait_concurrency_ratio": wait_ratio(
            concurrency,
            many,
            one,
            targets["wait_concurrency_ratio"],
            f" (emulator: {CONCURRENCY_PHASES['creating_seconds']} s Creating + "
            f"{CONCURRENCY_PHASES['pending_seconds']} s Pending)",
        ),
        "preview_overhead_ratio": {
            **with_target(
                ratio_summary(ours["preview"], floor["preview"]), targets["preview_overhead_ratio"]
            ),
            "front_end_s": summary(ours["preview"], 3),
            "floor_s": summary(floor["preview"], 3),
        },
        "up_overhead_ratio": {
            **with_target(ratio_summary(ours["up"], up_floor), targets["up_overhead_ratio"]),
            "front_end_s": summary(ours["up"], 3),
            "floor_s": summary(floor["up"], 3),
            "api_s": round(api_seconds, 4),
            "api_method": (
                f"ceil({main_size} creates / {CONCURRENCY[fe]} calls in flight) x median wall time of one "
                f"signed create on a kept-alive connection to the same emulator (--latency-ms {LATENCY_MS}): "
                f"{rtt_median * 1000:.1f} ms over {len(rtt)} creates; {in_flight} in flight because "
                + (
                    "pulumi.dynamic's provider host serves four calls at once"
                    if fe == "dynamic"
                    else f"the engine runs --parallel {PARALLEL} and the plugin has a thread per call"
                )
            ),
            "create_round_trip_ms": summary([r * 1000 for r in rtt], 2),
        },
        "throttled_wait_ratio": wait_ratio(
            throttled,
            t_many,
            t_one,
            None,
            f", the emulator throttling {THROTTLE['throttle_rate']:.0%} of calls with "
            f"{THROTTLE['throttle_code']} (seed {THROTTLE['seed']}; the client pauses >= 2 s on it)",
        ),
        "sweep": {str(n): sweep_entry(fe, times, n, rtt_median) for n in sorted(times[fe])},
        "preview_api_calls": max(calls["preview"]),
        "refresh_api_calls_per_job": calls["refresh_per_job"],
        "up_api_calls_per_job": {w: entry["up_calls_per_job"] for w, entry in wait_for.items()},
        "destroy_api_calls_per_job": {
            "jobs_creating": statistics.median(calls["destroy"]),
            **{f"after_wait_for_{w}": entry["destroy_calls_per_job"] for w, entry in wait_for.items()},
        },
        "provider_start_ms": with_target(summary(measured["provider_start"][fe], 1), None),
        "check_diff_us": with_target(summary(measured["check_diff"][fe], 1), None),
    }
    if fe == "dynamic":
        found["provider_import_ms"] = with_target(measured["import_ms"], None)
    return found


def api_time(fe: str, jobs: int, rtt_median: float) -> float:
    """The API's own time for `jobs` creates with the front-end's calls in flight."""
    return math.ceil(jobs / CONCURRENCY[fe]) * rtt_median


def sweep_entry(
    fe: str, times: dict[str, dict[int, dict[str, list[float]]]], jobs: int, rtt_median: float
) -> dict[str, Any]:
    """At one size: up and preview against the floor, and what is left per job beyond floor + API time."""
    ours, floor = times[fe][jobs], times[FLOOR[fe]][jobs]
    api_seconds = api_time(fe, jobs, rtt_median)
    up_floor = [t + api_seconds for t in floor["up"]]
    beyond_up = statistics.median(ours["up"]) - statistics.median(up_floor)
    beyond_preview = statistics.median(ours["preview"]) - statistics.median(floor["preview"])
    return {
        "up_overhead_ratio": with_target(
            ratio_summary(ours["up"], up_floor), TARGETS[fe]["up_overhead_ratio"]
        ),
        "preview_overhead_ratio": with_target(
            ratio_summary(ours["preview"], floor["preview"]), TARGETS[fe]["preview_overhead_ratio"]
        ),
        "api_s": round(api_seconds, 4),
        "up_beyond_floor_ms_per_job": round(beyond_up / jobs * 1000, 2),
        "preview_beyond_floor_ms_per_job": round(beyond_preview / jobs * 1000, 2),
    }


def scaling(measured: dict[str, Any], sizes: list[int]) -> dict[str, Any]:
    times = measured["engine"]["times"]
    found: dict[str, Any] = {
        kind: {str(n): {op: summary(times[kind][n][op], 3) for op in ("preview", "up")} for n in sizes}
        for kind in KINDS
    }
    found["wait_concurrency"] = {
        fe: {str(n): summary(samples, 3) for n, samples in measured["wait_concurrency"][fe].items()}
        for fe in FRONT_ENDS
    }
    found["throttled_wait"] = {
        fe: {str(n): summary(samples, 3) for n, samples in measured["throttled_wait"][fe].items()}
        for fe in FRONT_ENDS
    }
    return found


LABELS = {
    "dynamic": "TrainingJob, dynamic",
    "dynamic_floor": "no-op dynamic resource (floor)",
    "native": "TrainingJob, native",
    "native_floor": "no-op native Python plugin (floor)",
}
STYLES = {"dynamic": "o-C0", "dynamic_floor": "s--C0", "native": "o-C1", "native_floor": "s--C1"}


def chart(
    scale: dict[str, Any],
    sizes: list[int],
    concurrency_sizes: list[int],
    throttled_sizes: list[int],
    path: Path,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def band(ax: Any, xs: list[int], entries: list[dict[str, Any]], style: str, label: str) -> None:
        ax.plot(xs, [e["median"] for e in entries], style, label=label)
        ax.fill_between(xs, [e["min"] for e in entries], [e["max"] for e in entries], alpha=0.15)

    fig, axes = plt.subplots(1, 4, figsize=(18, 3.9))
    for ax, op in zip(axes[:2], ("preview", "up"), strict=True):
        for kind in KINDS:
            band(ax, sizes, [scale[kind][str(n)][op] for n in sizes], STYLES[kind], LABELS[kind])
        title = "pulumi preview (no changes)" if op == "preview" else f"pulumi up (emulator +{LATENCY_MS} ms)"
        ax.set_title(title)
        ax.set_xlabel("resources in the stack")
    ax = axes[2]
    for fe in FRONT_ENDS:
        entries = [scale["wait_concurrency"][fe][str(n)] for n in concurrency_sizes]
        band(ax, concurrency_sizes, entries, STYLES[fe], LABELS[fe])
    ax.axhline(
        scale["wait_concurrency"]["native"][str(concurrency_sizes[0])]["median"],
        color="grey",
        linestyle=":",
        label="one job alone (native)",
    )
    ax.set_title(f"pulumi up --parallel {PARALLEL}, wait_for=running")
    ax.set_xlabel("jobs in the stack")
    ax = axes[3]
    for fe in FRONT_ENDS:
        entries = [scale["throttled_wait"][fe][str(n)] for n in throttled_sizes]
        band(ax, throttled_sizes, entries, STYLES[fe], LABELS[fe])
    ax.set_title(f"wait_for=running, {THROTTLE['throttle_rate']:.0%} of calls {THROTTLE['throttle_code']}")
    ax.set_xlabel("jobs in the stack")
    for ax in axes:
        ax.set_ylabel("seconds (median; band = min-max)")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def table(result: dict[str, Any]) -> str:
    def mm(entry: dict[str, Any], unit: str = "") -> str:
        return f"{entry['median']}{unit} ({entry['min']}-{entry['max']})"

    def target(entry: dict[str, Any]) -> str:
        return "reported" if entry.get("target") is None else f"<= {entry['target']}"

    f = result["figures"]
    rows: list[tuple[str, str, str]] = []
    for fe in FRONT_ENDS:
        g = f[fe]
        rows += [
            (f"{fe}: {name}", mm(g[name]), target(g[name]))
            for name in (
                "wait_concurrency_ratio",
                "throttled_wait_ratio",
                "preview_overhead_ratio",
                "up_overhead_ratio",
            )
        ]
        for n, entry in g["sweep"].items():
            rows.append(
                (
                    f"{fe}: {n} jobs up | preview ratio",
                    f"{mm(entry['up_overhead_ratio'])} | {mm(entry['preview_overhead_ratio'])}",
                    f"beyond floor ms/job: up {entry['up_beyond_floor_ms_per_job']}, "
                    f"preview {entry['preview_beyond_floor_ms_per_job']}",
                )
            )
        rows += [
            (f"{fe}: preview_api_calls", str(g["preview_api_calls"]), "must be 0"),
            (f"{fe}: refresh_api_calls_per_job", str(g["refresh_api_calls_per_job"]), "must be 1"),
            (
                f"{fe}: up_api_calls_per_job",
                " / ".join(str(v) for v in g["up_api_calls_per_job"].values()),
                "wait_for " + " / ".join(g["up_api_calls_per_job"]),
            ),
            (
                f"{fe}: destroy_api_calls_per_job",
                str(g["destroy_api_calls_per_job"]["jobs_creating"]),
                "jobs still Creating",
            ),
            (f"{fe}: provider_start_ms", mm(g["provider_start_ms"], " ms"), "start to first Check answer"),
            (f"{fe}: check_diff_us", mm(g["check_diff_us"], " us"), "100 params, 20 in/out"),
        ]
        if "provider_import_ms" in g:
            rows.append(
                (f"{fe}: provider_import_ms", mm(g["provider_import_ms"], " ms"), "after pulumi.dynamic")
            )
    client = f["shared"]["client_cost_vs_official_sdk"]
    rows.append(("client_cost_vs_official_sdk", mm(client), f"< {client['target']}"))
    for op, entry in result["client"]["per_operation"].items():
        rows.append(
            (
                f"  {op}: CPU us/call ours | SDK",
                f"{mm(entry['ours_cpu_us'])} | {mm(entry['official_cpu_us'])}",
                f"wall us {entry['ours_wall_us']['median']} | {entry['official_wall_us']['median']}",
            )
        )
    scale = result["scaling"]
    for n in result["config"]["scaling_sizes"]:
        rows.append(
            (
                f"scaling {n} jobs preview (s)",
                " | ".join(f"{k} {scale[k][str(n)]['preview']['median']}" for k in KINDS),
                "",
            )
        )
        rows.append(
            (
                f"scaling {n} jobs up (s)",
                " | ".join(f"{k} {scale[k][str(n)]['up']['median']}" for k in KINDS),
                "",
            )
        )
    for n in result["config"]["wait_concurrency_sizes"]:
        rows.append(
            (
                f"wait_for=running {n} jobs up (s)",
                " | ".join(f"{fe} {scale['wait_concurrency'][fe][str(n)]['median']}" for fe in FRONT_ENDS),
                "",
            )
        )
    width = max(len(r[0]) for r in rows)
    mid = max(len(r[1]) for r in rows)
    lines = [f"{'figure':<{width}}  {'median (min-max)':<{mid}}  note", "-" * (width + mid + 30)]
    lines += [f"{a:<{width}}  {b:<{mid}}  {c}" for a, b, c in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- main


def compile_packages() -> None:
    """Byte-compile this repository's packages, as a pip install from a wheel does: an editable install (and
    PYTHONDONTWRITEBYTECODE in the environment) would otherwise make every provider process and program
    compile the sources again, a cost no installed package has."""
    import compileall

    for package in (
        REPO / "provider" / "pulumi_modelarts",
        REPO / "sdk" / "python" / "pulumi_modelarts_native",
        REPO / "emulator" / "modelarts_emulator",
    ):
        if package.is_dir():
            compileall.compile_dir(package, quiet=1)


@contextlib.contextmanager
def workspace(keep: bool) -> Iterator[Path]:
    if keep:
        yield Path(tempfile.mkdtemp(prefix="modelarts-bench-"))
    else:
        with tempfile.TemporaryDirectory(prefix="modelarts-bench-") as tmp:
            yield Path(tmp)


def main(argv: list[str] | None = None) -> int:
    # A run started with `bench/run ... &` timed ~4.9 s more per pulumi command without it.
    default_sigint()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast version (CI keeps it working)")
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench" / "results")
    parser.add_argument("--keep", action="store_true", help="keep the temporary Pulumi projects and state")
    parser.add_argument(
        "--sizes",
        help="comma-separated sweep sizes instead of the full run's (the first size >= 20 is the main one)",
    )
    parser.add_argument("--reps", type=int, help="runs per size (the main size too) instead of 3 and 5")
    parser.add_argument(
        "--name",
        default="latest",
        help="results file stem (default %(default)s); a run on a busy machine: e.g. DATE-loaded",
    )
    args = parser.parse_args(argv)

    if args.quick:
        main_size, sizes, reps, main_reps = 2, [2], 1, 1
        concurrency_sizes, concurrency_reps = [1, 2], 1
        throttled_sizes, throttled_reps = [1, 2], 1
        client_calls, client_rounds, import_reps, check_iters, wait_jobs, rtt_samples = 10, 1, 2, 20, 1, 8
        start_reps = 1
    else:
        main_size, sizes, reps, main_reps = 20, [1, 20, 50, 100, 200], 3, 5
        concurrency_sizes, concurrency_reps = [1, 5, 10, 20], 3
        throttled_sizes, throttled_reps = [1, 100], 2
        client_calls, client_rounds, import_reps, check_iters, wait_jobs, rtt_samples = 200, 5, 7, 200, 2, 40
        start_reps = 5
    if args.sizes:
        sizes = sorted({int(n) for n in args.sizes.split(",")})
        main_size = next((n for n in sizes if n >= 20), sizes[-1])
    if args.reps:
        reps = main_reps = args.reps
    find_pulumi()
    started = time.perf_counter()
    compile_packages()
    load_before = os.getloadavg()

    say("in-process figures: import time, check + diff, plugin start")
    measured: dict[str, Any] = {
        "import_ms": measure_import(import_reps),
        "check_diff": measure_check_diff(check_iters, 5),
        "provider_start": measure_provider_start(start_reps),
    }
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
        measured["engine"] = measure_engine(bench, sizes, main_size, reps, main_reps)
        measured["wait_concurrency"] = measure_wait_concurrency(bench, concurrency_sizes, concurrency_reps)
        measured["throttled_wait"] = measure_throttled_wait(bench, throttled_sizes, throttled_reps)
        measured["wait_for"] = measure_wait_for(bench, wait_jobs)

    result: dict[str, Any] = {
        "figures": {
            **{fe: front_end_figures(fe, measured, main_size, rtt) for fe in FRONT_ENDS},
            # One client serves both front-ends.
            "shared": {
                "client_cost_vs_official_sdk": with_target(client["overall"], CLIENT_TARGET),
            },
        },
        "client": client,
        "wait_for_api_calls": measured["wait_for"],
        "refresh_api_calls": {fe: measured["engine"]["calls"][fe]["refresh"] for fe in FRONT_ENDS},
        "scaling": scaling(measured, sizes),
        "config": {
            "quick": args.quick,
            "jobs": main_size,
            "scaling_sizes": sizes,
            "runs_per_size": reps,
            "runs_at_main_size": main_reps,
            "wait_concurrency_sizes": concurrency_sizes,
            "wait_concurrency_runs": concurrency_reps,
            "throttled_wait_sizes": throttled_sizes,
            "throttled_wait_runs": throttled_reps,
            "throttle": THROTTLE,
            "parallel": PARALLEL,
            "emulator_latency_ms": LATENCY_MS,
            "poll_seconds": float(POLL_SECONDS),
            "wait_for_jobs": wait_jobs,
            "python": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
            "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
            "pulumi": subprocess.run(pulumi_argv("version"), capture_output=True, text=True).stdout.strip(),
            "seconds": round(time.perf_counter() - started, 1),
        },
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    json_path = args.out_dir / f"{args.name}.json"
    png_path = args.out_dir / ("scaling.png" if args.name == "latest" else f"{args.name}-scaling.png")
    json_path.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")
    chart(result["scaling"], sizes, concurrency_sizes, throttled_sizes, png_path)
    print(table(result))
    print(f"\nwritten: {json_path}, {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

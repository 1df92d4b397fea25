"""Command line: `python -m modelarts_emulator` (or `modelarts-emulator`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import socket
import sys
from collections.abc import Sequence

from aiohttp import web

from . import account_flags
from .app import EmulatorApp
from .config import (
    CATALOGUE_STATES,
    DEFAULT_ACCESS_KEY,
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEFAULT_PROJECT_ID,
    DEFAULT_SECRET_KEY,
    THROTTLE_CODES,
    EmulatorConfig,
    Faults,
    Timing,
)
from .flags import from_flags, rate, seconds
from .store import JobStore

READY_PREFIX = "MODELARTS_EMULATOR_READY "

EPILOG = """\
test hooks (metadata.annotations on a create request; emulator only):
  emulator/fail-after-seconds: N   the job goes Failed N seconds after it starts Running
  emulator/exit-code: N            exit code reported in status.task_statuses when failing (default 1)
  emulator/failure-message: TEXT   message reported in status.task_statuses when failing
  emulator/stay-pending: "true"    the job never leaves Pending (until terminated)
  emulator/running-seconds: N      how long this job runs before Completed (overrides --running-seconds)
  emulator/log-tail: TEXT          the last lines of each task's log once the job stopped (instead of the
                                   completion line, the traceback or the terminate line)
  emulator/log-echo-env: NAME      every progress line of the log ends with NAME=<value of the job's
                                   environment variable NAME>
  emulator/logs-cleared-after-seconds: N
                                   the logs are cleared N seconds after the job stopped (ModelArts.2819)
  emulator/terminating-seconds: N  how long this job stays Terminating after a terminate (overrides
                                   --terminating-seconds)
  emulator/throttle-updates: "true"
                                   every description update of this job is answered 429 ModelArts.2799
  emulator/refuse-tags: "true"     every tag create of this job is refused with 403 (no permission to tag)
  emulator/report-phase: NAME      the job reports phase NAME (one the API pages do not list) while it is
                                   live, from emulator/report-phase-after-seconds: N (default 0) after
                                   creation; its terminate is refused with 409 ModelArts.2796 unless
                                   emulator/report-phase-terminable: "true"

emulator-only endpoints (no authentication):
  GET /_emulator/stats, POST /_emulator/stats/reset, GET /_emulator/health,
  POST /_emulator/reset (deletes every job, zeroes the stats, restarts the fault seed and the rate budget,
    forgets temporary keys)
  GET /_emulator/credentials (temporary keys issued by method, refusals, IAM and metadata calls),
  POST /_emulator/credentials/expire (every temporary key and token issued expires now)

IAM and metadata routes (same server): GET /v3/projects, GET /v3/auth/projects,
  POST /v3.0/OS-CREDENTIAL/securitytokens (assume_role, token), POST /v3.0/OS-AUTH/id-token/tokens,
  PUT /meta-data/latest/api/token, GET /openstack/latest/securitykey
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="modelarts-emulator",
        description="A local ModelArts training-job API (v2) for demos and tests. Not for production.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default=DEFAULT_HOST, help="address to listen on (default %(default)s)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="port; 0 picks a free one (default %(default)s)"
    )
    p.add_argument(
        "--data-dir", help="keep jobs in DATA_DIR/jobs.sqlite3 across restarts (default: in memory)"
    )
    p.add_argument(
        "--access-key", default=DEFAULT_ACCESS_KEY, help="accepted access key (default %(default)s)"
    )
    p.add_argument(
        "--secret-key", default=DEFAULT_SECRET_KEY, help="its secret key (default: the demo value)"
    )
    p.add_argument("--project-id", default=DEFAULT_PROJECT_ID, help="the only project (default %(default)s)")
    p.add_argument("--auth-token", help="also accept this value in X-Auth-Token (default: token auth off)")
    p.add_argument(
        "--unique-names",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="refuse a create whose name a kept job holds, stopped ones included (400 ModelArts.2751), "
        "as the service does (default); --no-unique-names accepts duplicate names",
    )
    p.add_argument(
        "--catalogue",
        choices=CATALOGUE_STATES,
        default=CATALOGUE_STATES[0],
        help="open: the training catalogue (GET .../training-job-flavors and .../training-job-engines) is "
        "listed; closed: both answer 403 ModelArts.0203, as to a user whose IAM policies lack the permission "
        "(default %(default)s)",
    )
    p.add_argument("--creating-seconds", type=seconds, default=Timing.creating, help="time in Creating")
    p.add_argument("--pending-seconds", type=seconds, default=Timing.pending, help="time in Pending")
    p.add_argument("--running-seconds", type=seconds, default=Timing.running, help="time in Running")
    p.add_argument(
        "--terminating-seconds", type=seconds, default=Timing.terminating, help="time in Terminating"
    )
    p.add_argument("--latency-ms", type=int, default=0, help="delay added to every API request")
    p.add_argument("--throttle-rate", type=rate, default=0.0, help="share of requests answered 429")
    p.add_argument(
        "--throttle-code",
        choices=THROTTLE_CODES,
        default=THROTTLE_CODES[0],
        help="the 429's error code: the gateway's APIG.0308 (with Retry-After: 1), ModelArts' own "
        "ModelArts.2799, or mixed (either, at random) (default %(default)s)",
    )
    p.add_argument("--fault-rate", type=rate, default=0.0, help="share of requests answered 500/503")
    p.add_argument(
        "--drop-after-commit-rate",
        type=rate,
        default=0.0,
        help="share of creates that are stored and then left unanswered (connection closed)",
    )
    p.add_argument(
        "--terminate-conflict-rate",
        type=rate,
        default=0.0,
        help="share of terminates of Creating, Pending or Running jobs answered 409 ModelArts.2878 "
        "(status changed, try again later)",
    )
    p.add_argument(
        "--seed", type=int, help="seed for the fault decisions (same seed + requests = same faults)"
    )
    p.add_argument(
        "--rate-limit",
        type=seconds,
        default=0.0,
        metavar="CALLS_PER_SECOND",
        help="the gateway's budget of API calls per second for the account (a bucket holding one second's "
        "calls); beyond it 429 APIG.0308 with Retry-After (default: no limit)",
    )
    p.add_argument("--log-level", default="WARNING", help="logging level (default %(default)s)")
    account_flags.add_arguments(p)
    return p


def config_from(args: argparse.Namespace) -> EmulatorConfig:
    """The settings from the flags: each flag's destination is its field's name (the timings' with
    ``_seconds``)."""
    return from_flags(
        EmulatorConfig,
        args,
        timing=from_flags(Timing, args, suffix="_seconds"),
        faults=from_flags(Faults, args),
        accounts=account_flags.settings_from(args),
    )


def ready_text(url: str, config: EmulatorConfig, data_dir: str | None) -> str:
    # The demo credentials are printed on purpose: they are the emulator's own, needed to talk to it.
    details = {
        "url": url,
        "access_key": config.access_key,
        "secret_key": config.secret_key,
        "project_id": config.project_id,
        "data_dir": data_dir,
        "auth_token": config.auth_token is not None,
        "region": config.accounts.region,
        "domain_id": config.accounts.domain_id,
    }
    return (
        f"ModelArts emulator listening on {url}\n"
        f"  access key: {config.access_key}\n"
        f"  secret key: {config.secret_key}\n"
        f"  project id: {config.project_id}\n"
        f"  data dir:   {data_dir or '(in memory)'}\n"
        f"{READY_PREFIX}{json.dumps(details)}\n"
    )


async def serve(args: argparse.Namespace) -> None:
    config = config_from(args)
    store = JobStore(args.data_dir)
    runner = web.AppRunner(EmulatorApp(config, store).build(), access_log=None, handle_signals=False)
    await runner.setup()
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    site = web.SockSite(runner, sock)
    await site.start()
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    sys.stdout.write(ready_text(f"http://{host}:{port}", config, args.data_dir))
    sys.stdout.flush()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
        store.close()


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args))


if __name__ == "__main__":
    main()

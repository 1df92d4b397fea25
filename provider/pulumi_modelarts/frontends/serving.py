"""The native plugin's server start: a gRPC server for a provider on a free loopback port, answering an
operation's error as its own text, the watch that ends the process once the engine that started it is gone
(``engine_watch``), and the last words of every way the process ends. ``plugin.main`` starts it with the
provider.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from pulumi.provider.experimental.provider import Provider

from .engine import engine_address
from .engine_text import error_text
from .engine_watch import wait_until_engine_gone
from .partial import PartialCreate

__all__ = ["GRPC_OPTIONS", "RPCS", "leave_when_engine_gone", "serve", "serve_engine", "servicer_class"]

# Pulumi's own gRPC settings for plugins: a large stack's messages exceed gRPC's 4 MB default, and a request
# may wait long for a busy event loop before it is handled.
GRPC_OPTIONS = (
    ("grpc.max_receive_message_length", 400 * 1024 * 1024),
    ("grpc.max_send_message_length", 400 * 1024 * 1024),
    ("grpc.server_max_unrequested_time_in_server", 30 * 60),
)
RPCS = ("CheckConfig", "Configure", "Check", "Diff", "Create", "Read", "Update", "Delete", "Invoke")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pulumi-modelarts")
    except PackageNotFoundError:
        return "0.0.0"


def servicer_class() -> type:
    """Pulumi's servicer, with an operation's error answered as its own text: by default gRPC prefixes it with
    "Unexpected <class ...>" and logs a traceback the engine then shows too. A create that leaves a job that
    may still run is answered as a partial create (``partial``)."""
    import grpc  # type: ignore[import-untyped]  # (no stubs; two calls used)
    from pulumi.provider.experimental.server import ProviderServicer

    def answering(name: str) -> Callable[..., Any]:
        inherited = getattr(ProviderServicer, name)

        async def rpc_method(self: Any, request: Any, context: Any) -> Any:
            try:
                return await inherited(self, request, context)
            except Exception as exc:
                raised = _raised(exc)
                if isinstance(
                    raised, PartialCreate
                ):  # a job that may still run: recorded, its creation failed
                    await context.abort_with_status(raised.status())
                await context.abort(grpc.StatusCode.UNKNOWN, error_text(raised))

        return rpc_method

    return type("ModelArtsServicer", (ProviderServicer,), {name: answering(name) for name in RPCS})


def _raised(exc: BaseException) -> BaseException:
    """The error the operation raised (a PartialCreate too): newer Pulumi SDKs' servicers raise it again as a
    plain Exception whose text ends with a Python stack listing, the original kept as its context."""
    seen = exc
    for _ in range(8):  # a short chain: the servicer's one wrapping
        inner = seen.__cause__ or seen.__context__
        if type(seen) is not Exception or inner is None:
            return seen
        seen = inner
    return seen


async def serve(args: list[str], provider: Provider, engine: str) -> None:
    """Serve provider to the engine until it stops this process: a gRPC server on a free loopback port, the
    port on stdout.

    This is ``pulumi.provider.experimental.server.main(args, version, provider)``, Pulumi's public entry
    point, less its argument parsing (``serve_engine`` reads the engine's address first, for the engine log
    and the watch on the engine), and with one difference that keeps this plugin from calling it: that
    function builds its fixed ``ProviderServicer`` and takes no servicer, interceptor or error hook, and under
    it gRPC answers an operation's error as "Unexpected <class ...>: text" and logs a traceback, which the
    engine shows again; ``servicer_class`` answers the error's own text. Everything else it needs (SIGINT, the
    warm-up, cancellation, the engine's address) is done around it; the gRPC options are Pulumi's
    (``pulumi.runtime._grpc_settings``, private) with the send limit raised as the receive limit.
    """
    import grpc
    from pulumi.runtime.proto import provider_pb2_grpc

    server = grpc.aio.server(options=list(GRPC_OPTIONS))
    servicer = servicer_class()(args, _version(), provider, engine_address=engine)
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    try:
        await server.wait_for_termination()
    finally:
        # SIGINT cancels this task (asyncio.run's handler): stop the server on its loop while the loop still
        # runs, or gRPC's finaliser tries it later on a closed loop and prints a traceback on the way out.
        await server.stop(None)


def leave_when_engine_gone(engine: str, parent: int, say: Callable[[str], None]) -> None:
    """End this process once the engine that started it is gone (e.g. `pulumi` killed with SIGKILL, which
    never stops its plugins): nobody will ask anything of it again, and it would otherwise run for ever. What
    counts as gone, and why a launcher's exit does not, is ``engine_watch``'s.

    It ends at once, without cancelling anything: a wait in flight just stops, and its job keeps running,
    neither terminated nor recorded, for ``modelarts-orphans`` or the next ``pulumi up`` to adopt (a job is
    only ever terminated while the engine listens). Why is said first (say). ``os._exit`` because the
    executor's threads, one per wait, would hold an ordinary exit until their waits end.
    """
    why = wait_until_engine_gone(engine, parent)
    say(f"the Pulumi engine is gone ({why}), leaving its jobs as they are")
    os._exit(0)


def _on_stderr(line: str) -> None:
    """Last words on stderr alone, for a provider that has none of its own."""
    with contextlib.suppress(Exception):  # nobody may read it any more
        sys.stderr.write(f"modelarts: the provider stops: {line}\n")
        sys.stderr.flush()


def serve_engine(provider_for: Callable[[str], Provider]) -> None:
    """Serve the provider ``provider_for(engine address)`` to the engine that started this process.

    However the process ends, it says why first (the provider's ``last_words``, else a line on stderr): the
    engine shows a plugin's stderr when the plugin ends before it was shut down, so an early end always
    comes with its cause. A fatal error's traceback goes to stderr too (``faulthandler``).
    """
    parent = os.getppid()  # first: the engine, unless it is already gone
    # The engine stops its plugins with SIGINT and kills one only after a grace of seconds. A plugin started
    # from a shell's background job inherits SIGINT ignored, which would add that grace to every command.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    faulthandler.enable()
    args = sys.argv[1:]
    engine = engine_address(args)
    if engine is None:
        sys.exit("pulumi-resource-modelarts is a Pulumi plugin: the Pulumi engine starts it")
    provider = provider_for(engine)
    say: Callable[[str], None] = getattr(provider, "last_words", _on_stderr)

    def stopped_by(signum: int, _frame: object) -> None:
        say(f"it received {signal.Signals(signum).name}")
        os._exit(128 + signum)

    for stopping in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stopping, stopped_by)
    threading.Thread(
        target=leave_when_engine_gone, args=(engine, parent, say), name="modelarts-engine-watch", daemon=True
    ).start()
    try:
        asyncio.run(serve(args, provider, engine))
    except KeyboardInterrupt:
        say("it received SIGINT (the engine stops its plugins so)")
    except BaseException as exc:
        say(f"{type(exc).__name__}: {exc}")
        raise

"""The emulator's HTTP edge (aiohttp): routes, authentication, statistics, injected faults and the gateway's
rate limit (``--rate-limit``).

aiohttp is used because a handler can reach `request.transport` and close the connection after a create has
been committed, which is how "the job exists but the caller never heard back" is emulated.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any

from aiohttp import web

from .access import Access, signed_request
from .accounts import directory
from .config import EmulatorConfig
from .errors import (
    BACKEND_UNAVAILABLE,
    INTERNAL,
    INVALID,
    NO_SUCH_API,
    THROTTLED,
    WRONG_PROJECT,
    ServiceError,
)
from .faults import FaultPlan, RateBudget
from .iam import IamRoutes
from .metadata import MetadataRoutes
from .service import Service
from .store import JobStore
from .temporary_keys import TemporaryKeys

log = logging.getLogger("modelarts_emulator")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Stats:
    """Counts of API operations, refused ones included (bad auth, wrong project, throttled, faults, drops)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ops: Counter[str] = Counter()
        self._statuses: Counter[str] = Counter()
        self._dropped = 0

    def count(self, operation: str) -> None:
        with self._lock:
            self._ops[operation] += 1

    def answered(self, status: int) -> None:
        with self._lock:
            self._statuses[str(status)] += 1

    def dropped(self) -> None:
        with self._lock:
            self._dropped += 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "requests": sum(self._ops.values()),
                "by_operation": dict(self._ops),
                "by_status": dict(self._statuses),
                "dropped": self._dropped,
            }

    def reset(self) -> None:
        with self._lock:
            self._ops.clear()
            self._statuses.clear()
            self._dropped = 0


def error_response(status: int, code: str, message: str, solution: str = "", **headers: str) -> web.Response:
    body: dict[str, str] = {"error_code": code, "error_msg": message}
    if solution:
        body["error_solution"] = solution
    return web.json_response(body, status=status, headers=headers)


def _json_body(raw: bytes) -> Any:
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        raise ServiceError(400, INVALID, "Invalid request: the body is not valid JSON.") from None


class EmulatorApp:
    def __init__(self, config: EmulatorConfig, store: JobStore) -> None:
        self.config = config
        self.service = Service(config, store)
        self.stats = Stats()
        self.faults = FaultPlan(config.faults)
        self.budget = RateBudget(config.faults.rate_limit)
        self.keys = TemporaryKeys()
        self.directory = directory(config.accounts, config.project_id)
        self.access = Access(config, self.keys)
        self.metadata = MetadataRoutes(config.accounts, self.keys)

    def build(self) -> web.Application:
        config = self.config
        app = web.Application(middlewares=[self._request_id, self._api_gate], client_max_size=4 * 1024 * 1024)
        api = "/v2/{project_id}"
        app.router.add_post(f"{api}/training-jobs", self._create, name="create")
        app.router.add_get(f"{api}/training-jobs/{{job_id}}", self._get, name="get")
        app.router.add_put(f"{api}/training-jobs/{{job_id}}", self._update, name="update")
        app.router.add_delete(f"{api}/training-jobs/{{job_id}}", self._delete, name="delete")
        app.router.add_post(f"{api}/training-jobs/{{job_id}}/actions", self._terminate, name="terminate")
        app.router.add_post(f"{api}/training-job-searches", self._search, name="search")
        app.router.add_get(f"{api}/training-job-names", self._name_check, name="name_check")
        app.router.add_get(
            f"{api}/training-jobs/{{job_id}}/tasks/{{task_id}}/logs/preview", self._log_preview, name="logs"
        )
        app.router.add_get(f"{api}/training-jobs/{{job_id}}/events", self._events, name="events")
        app.router.add_get(f"{api}/training-job-flavors", self._flavors, name="flavors")
        app.router.add_get(f"{api}/training-job-engines", self._engines, name="engines")
        tags = f"{api}/modelarts-training-job/{{job_id}}/tags"
        app.router.add_get(tags, self._tags, name="get_tags")
        app.router.add_post(f"{tags}/create", self._add_tags, name="add_tags")
        app.router.add_delete(f"{tags}/delete", self._remove_tags, name="remove_tags")
        IamRoutes(config.accounts, self.directory, self.access, self.keys).register(app.router)
        self.metadata.register(app.router)
        app.router.add_get("/_emulator/credentials", self._credentials)
        app.router.add_post("/_emulator/credentials/expire", self._expire_credentials)
        app.router.add_get("/_emulator/tag-changes", self._tag_changes)
        app.router.add_get("/_emulator/stats", self._stats)
        app.router.add_post("/_emulator/stats/reset", self._reset_stats)
        app.router.add_get("/_emulator/health", self._health)
        app.router.add_post("/_emulator/reset", self._reset)
        return app

    # -- middlewares ---------------------------------------------------------------------------------------

    @web.middleware
    async def _request_id(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        request_id = uuid.uuid4().hex
        request["request_id"] = request_id
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            # aiohttp's own 404/405 become service-shaped errors.
            code = NO_SUCH_API if exc.status == 404 else BACKEND_UNAVAILABLE
            response = error_response(exc.status, code, exc.reason)
        except ServiceError as exc:
            response = error_response(exc.status, exc.code, exc.message, exc.solution)
        except Exception:
            # An emulator bug still gets a service-shaped answer; the log has the traceback (never headers).
            log.exception("internal error handling %s %s", request.method, request.rel_url.path)
            response = error_response(500, INTERNAL, "Internal server error.")
        response.headers["X-Request-Id"] = request_id
        log.info("%s %s -> %s (%s)", request.method, request.rel_url.path, response.status, request_id)
        return response

    @web.middleware
    async def _api_gate(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        route = request.match_info.route
        operation = route.name
        if operation is None or request.match_info.http_exception is not None:
            return await handler(request)
        self.stats.count(operation)
        response = await self._guarded(request, handler, operation)
        self.stats.answered(response.status)
        return response

    async def _guarded(self, request: web.Request, handler: Handler, operation: str) -> web.StreamResponse:
        body = await request.read()
        try:
            caller = self.access.authenticate(signed_request(request, body), datetime.now(timezone.utc))
        except ServiceError as exc:
            return error_response(exc.status, exc.code, exc.message)
        # Keys see their own account's projects: the region project and its sub-projects, or, for an
        # agency's keys, the other account's project.
        projects = self.directory.account(caller.domain_id).project_ids
        project = request.match_info["project_id"]
        header_project = request.headers.get("X-Project-Id")
        if project not in projects or (header_project and header_project != project):
            return error_response(
                403,
                WRONG_PROJECT,
                "The project in the request does not belong to the credentials used.",
                "Use the project ID that matches the credentials and region.",
            )
        retry_after = self.budget.take()
        if retry_after is not None:
            # The gateway's rate limit for the account: refused before the service sees the call.
            return error_response(
                429,
                THROTTLED,
                "The request was throttled; the API's rate limit for the account was reached.",
                "Retry later.",
                **{"Retry-After": str(retry_after)},
            )
        if self.config.faults.latency_ms > 0:
            await asyncio.sleep(self.config.faults.latency_ms / 1000)
        decision = self.faults.next(is_create=operation == "create", is_terminate=operation == "terminate")
        if decision.throttle_code == THROTTLED:
            return error_response(
                429,
                THROTTLED,
                "The request was throttled; too many requests.",
                "Retry later.",
                **{"Retry-After": "1"},
            )
        if decision.throttle_code is not None:
            # ModelArts' own throttling names no wait; its advice is a few seconds.
            return error_response(
                429,
                decision.throttle_code,
                "Too many requests; try again later.",
                "Wait 2 to 5 seconds and send the request again.",
            )
        if decision.server_error is not None:
            return error_response(
                decision.server_error,
                INTERNAL if decision.server_error == 500 else BACKEND_UNAVAILABLE,
                "Internal server error (emulated fault)."
                if decision.server_error == 500
                else "Backend unavailable.",
                "Retry later.",
            )
        request["drop_after_commit"] = decision.drop_after_commit
        request["status_changed"] = decision.status_changed
        try:
            return await handler(request)
        except ServiceError as exc:
            return error_response(exc.status, exc.code, exc.message, exc.solution)

    # -- API handlers ----------------------------------------------------------------------------------------

    async def _create(self, request: web.Request) -> web.StreamResponse:
        job = self.service.create(_json_body(await request.read()))
        if request.get("drop_after_commit"):
            self.stats.dropped()
            if request.transport is not None:
                request.transport.close()
            log.info("created %s, then dropped the connection (emulated fault)", job["metadata"]["id"])
            raise asyncio.CancelledError  # nothing more to send on a closed connection
        return web.json_response(job, status=201)

    async def _get(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.get(request.match_info["job_id"]))

    async def _update(self, request: web.Request) -> web.StreamResponse:
        self.service.update_description(request.match_info["job_id"], _json_body(await request.read()))
        return web.Response(status=204)

    async def _delete(self, request: web.Request) -> web.StreamResponse:
        self.service.delete(request.match_info["job_id"])
        return web.Response(status=202)

    async def _terminate(self, request: web.Request) -> web.StreamResponse:
        job = self.service.terminate(
            request.match_info["job_id"],
            _json_body(await request.read()),
            status_changed=bool(request.get("status_changed")),
        )
        return web.json_response(job, status=202)

    async def _search(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.search(_json_body(await request.read())))

    async def _name_check(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.name_is_taken(request.query))

    async def _log_preview(self, request: web.Request) -> web.StreamResponse:
        preview = self.service.log_preview(request.match_info["job_id"], request.match_info["task_id"])
        # Before a job runs there is no log yet: the service answers 204 (its ModelArts.2776/2777), no body.
        return web.Response(status=204) if preview is None else web.json_response(preview)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.events(request.match_info["job_id"], request.query))

    async def _flavors(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.flavors(request.query))

    async def _engines(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.engines())

    async def _tags(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.service.tags(request.match_info["job_id"]))

    async def _add_tags(self, request: web.Request) -> web.StreamResponse:
        body = _json_body(await request.read())
        self.service.change_tags(request.match_info["job_id"], body, deleting=False)
        return web.Response(status=204)

    async def _remove_tags(self, request: web.Request) -> web.StreamResponse:
        body = _json_body(await request.read())
        self.service.change_tags(request.match_info["job_id"], body, deleting=True)
        return web.Response(status=204)

    # -- emulator-only endpoints (no authentication) -------------------------------------------------------

    async def _tag_changes(self, request: web.Request) -> web.StreamResponse:
        # Every accepted tag create and delete since the last reset, with what it sent.
        return web.json_response(self.service.tag_changes)

    async def _credentials(self, request: web.Request) -> web.StreamResponse:
        # Keys issued by method, refusals of expired ones, IAM and metadata calls, each key's expiry.
        return web.json_response(self.keys.snapshot(time.time()))

    async def _expire_credentials(self, request: web.Request) -> web.StreamResponse:
        # Tests of renewal expire every issued key now instead of waiting for it.
        return web.json_response({"expired": self.keys.expire_all(time.time())})

    async def _stats(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.stats.snapshot())

    async def _reset_stats(self, request: web.Request) -> web.StreamResponse:
        self.stats.reset()
        return web.json_response(self.stats.snapshot())

    async def _reset(self, request: web.Request) -> web.StreamResponse:
        # Lets tests reuse one running process as if fresh: no jobs, zero stats, faults from the start.
        deleted = self.service.store.clear()
        self.service.tag_changes.clear()
        self.stats.reset()
        self.faults.restart()
        self.budget.restart()
        self.keys.clear()
        self.metadata.clear()
        return web.json_response({"jobs_deleted": deleted})

    async def _health(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"status": "ok"})

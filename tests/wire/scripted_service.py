"""A scripted ModelArts service for the client's tests: the jobs it answers with, the create request it is
sent, its error bodies, and a tiny store that creates and searches jobs (the lost-create recovery's
counterpart)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pulumi_modelarts.wire.models import CreateTrainingJobRequest

from ..httpserver import Recorded, Reply, ScriptedServer, json_reply

__all__ = [
    "JOBS",
    "PROJECT",
    "SEARCH",
    "JobStore",
    "create_request",
    "error_body",
    "job",
    "posts",
    "searches",
]

PROJECT = "proj0123"
JOBS = f"/v2/{PROJECT}/training-jobs"
SEARCH = f"/v2/{PROJECT}/training-job-searches"


def job(
    job_id: str, name: str = "job-a", create_time: int | None = None, phase: str = "Running"
) -> dict[str, Any]:
    """A job as the service answers it (created now unless told), with a field no model of ours knows."""
    return {
        "kind": "job",
        "metadata": {
            "id": job_id,
            "name": name,
            "create_time": create_time if create_time is not None else int(time.time() * 1000),
            "brand_new_field": {"x": 1},
        },
        "status": {"phase": phase, "secondary_phase": phase, "duration": 0},
        "algorithm": {"id": "algo", "environments": [{"A": "1"}]},
        "spec": {"resource": {"flavor_id": "f", "node_count": 1, "policy": "regular"}, "log_export_path": {}},
    }


def create_request(name: str = "job-a") -> CreateTrainingJobRequest:
    """A create request with non-ASCII text and environments as a map."""
    return CreateTrainingJobRequest.model_validate(
        {
            "metadata": {"name": name, "description": "训练 ü"},
            "algorithm": {"id": "algo", "environments": {"A": "1"}},
            "spec": {"resource": {"flavor_id": "f", "node_count": 1}},
        }
    )


def error_body(code: str, msg: str, solution: str | None = None) -> dict[str, str]:
    """The service's error answer."""
    body = {"error_code": code, "error_msg": msg}
    if solution:
        body["error_solution"] = solution
    return body


class JobStore:
    """A tiny stand-in service: creates commit a job; searches filter by name "like" and page by index."""

    def __init__(self) -> None:
        self.jobs: list[dict[str, Any]] = []
        self.create_reply: Callable[[dict[str, Any]], Reply] = lambda created: json_reply(created, status=201)
        self.commit = True

    def __call__(self, request: Recorded) -> Reply:
        if request.method == "POST" and request.path == JOBS:
            body = request.json()
            created = job(f"id-{len(self.jobs) + 1}", name=body["metadata"]["name"])
            if self.commit:
                self.jobs.append(created)
            return self.create_reply(created)
        if request.method == "POST" and request.path == SEARCH:
            query = request.json()
            matches = list(self.jobs)
            for f in query.get("filters") or []:
                if f["key"] == "name" and f["operator"] == "like":
                    matches = [j for j in matches if f["value"][0] in j["metadata"]["name"]]
            matches.sort(key=lambda j: j["metadata"]["create_time"], reverse=True)
            limit, page = query["limit"], query["offset"]
            items = matches[page * limit : (page + 1) * limit]
            return json_reply({"total": len(matches), "count": len(items), "items": items})
        return json_reply(error_body("ModelArts.2775", "not found"), status=400)


def posts(server: ScriptedServer) -> list[Recorded]:
    """The creates server was sent."""
    return [r for r in server.requests if r.method == "POST" and r.path == JOBS]


def searches(server: ScriptedServer) -> list[Recorded]:
    """The searches server was sent."""
    return [r for r in server.requests if r.path == SEARCH]

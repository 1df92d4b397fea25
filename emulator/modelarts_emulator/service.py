"""The emulated service's operations over the store (no HTTP here): create, get, update, terminate, search."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from . import lifecycle, search, shapes
from .config import EmulatorConfig
from .store import JobStore

NOT_FOUND = "ModelArts.2775"
INVALID = "ModelArts.2763"
NOT_TERMINABLE = "ModelArts.2762"


class ServiceError(Exception):
    """An answer the service gives instead of a result (status, error_code, error_msg, error_solution)."""

    def __init__(self, status: int, code: str, message: str, solution: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.solution = solution


def invalid(field: str, message: str) -> ServiceError:
    return ServiceError(
        400,
        INVALID,
        f"Invalid request: {field} {message}.",
        f"Correct the field {field} in the request body and send it again.",
    )


def _not_found(job_id: str) -> ServiceError:
    return ServiceError(
        400,
        NOT_FOUND,
        f"Training job {job_id} does not exist.",
        "Check whether the training job ID is correct and the job was not deleted.",
    )


class Service:
    def __init__(
        self, config: EmulatorConfig, store: JobStore, clock: Callable[[], float] = time.time
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock

    def _view(self, doc: Mapping[str, Any], now: float) -> dict[str, Any]:
        job = doc["job"]
        plan = lifecycle.Plan.from_dict(doc["plan"])
        view: dict[str, Any] = {"kind": job.get("kind", "job"), "metadata": job["metadata"]}
        view["status"] = lifecycle.status_at(plan, now, shapes.tasks_of(job))
        view.update({k: v for k, v in job.items() if k not in view})
        return view

    def create(self, body: Any, problems: list[tuple[str, str]]) -> dict[str, Any]:
        if problems:
            error = invalid(*problems[0])
            if len(problems) > 1:
                error.message += " Also: " + "; ".join(f"{f} {m}" for f, m in problems[1:]) + "."
            raise error
        assert isinstance(body, Mapping)
        # Whole milliseconds, so create_time and the phase timestamps derived from it agree exactly.
        now = int(self.clock() * 1000) / 1000
        job_id = str(uuid.uuid4())
        job = shapes.build_job(
            body, job_id=job_id, create_time_ms=int(now * 1000), user_name=self.config.user_name
        )
        annotations = {k: str(v) for k, v in (job["metadata"].get("annotations") or {}).items()}
        plan = lifecycle.make_plan(self.config.timing, annotations, now)
        doc = {"job": job, "plan": plan.to_dict()}
        self.store.insert(self.config.project_id, job_id, doc)
        return self._view(doc, now)

    def get(self, job_id: str) -> dict[str, Any]:
        doc = self.store.get(self.config.project_id, job_id)
        if doc is None:
            raise _not_found(job_id)
        return self._view(doc, self.clock())

    def update_description(self, job_id: str, body: Any) -> None:
        if not isinstance(body, Mapping):
            raise invalid("body", "must be a JSON object")
        extra = sorted(set(body) - {"description"})
        if extra:
            raise invalid(extra[0], "cannot be changed; only description can be updated")
        description = body.get("description")
        if not isinstance(description, str) or len(description) > 256:
            raise invalid("description", "must be a string of at most 256 characters")

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            doc["job"]["metadata"]["description"] = description
            return doc

        if self.store.update(self.config.project_id, job_id, change) is None:
            raise _not_found(job_id)

    def delete(self, job_id: str) -> None:
        if not self.store.delete(self.config.project_id, job_id):
            raise _not_found(job_id)

    def terminate(self, job_id: str, body: Any) -> dict[str, Any]:
        if not isinstance(body, Mapping) or body.get("action_type") != "terminate":
            raise invalid("action_type", "must be 'terminate'")
        now = self.clock()
        refused: list[str] = []

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            plan = lifecycle.Plan.from_dict(doc["plan"])
            phase = lifecycle.phase_at(plan, now)
            if plan.terminated_at is not None or phase not in lifecycle.TERMINABLE:
                refused.append(phase)
                return doc
            doc["plan"]["terminated_at"] = now
            return doc

        doc = self.store.update(self.config.project_id, job_id, change)
        if doc is None:
            raise _not_found(job_id)
        if refused:
            raise ServiceError(
                400,
                NOT_TERMINABLE,
                f"Training job {job_id} is {refused[0]} and cannot be terminated; "
                "only Creating, Pending or Running jobs can be terminated.",
                "Terminate the job only while it is Creating, Pending or Running.",
            )
        return self._view(doc, now)

    def search(self, body: Any, problems: list[tuple[str, str]]) -> dict[str, Any]:
        if problems:
            raise invalid(*problems[0])
        now = self.clock()
        jobs = [self._view(doc, now) for doc in self.store.all(self.config.project_id)]
        try:
            return search.search(jobs, body)
        except search.SearchError as error:
            raise invalid(error.field, error.message) from None

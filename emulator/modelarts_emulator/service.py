"""The emulated service's operations over the store (no HTTP here).

create, get, update (description), delete, terminate, search, the name check, a task's log preview, a job's
events and the training catalogue (flavors, engines), each answering as the service does or raising
``ServiceError`` with the service's code.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from . import catalogue, checks, events, lifecycle, logs, search, shapes
from .config import EmulatorConfig
from .errors import (
    DUPLICATE_NAME,
    LOG_CLEARED,
    LOG_NOT_GENERATED,
    NOT_TERMINABLE,
    POLICY_DENIED,
    STATUS_CHANGED,
    TAGS_REFUSED,
    TOO_MANY_REQUESTS,
    UNSUPPORTED_ACTION,
    ServiceError,
    invalid,
    not_found,
)
from .store import JobStore

TERMINATE = "terminate"


class Service:
    def __init__(
        self, config: EmulatorConfig, store: JobStore, clock: Callable[[], float] = time.time
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        # Every accepted tag create or delete, in order: what was sent (read by tests through the emulator).
        self.tag_changes: list[dict[str, Any]] = []

    def _view(self, doc: Mapping[str, Any], now: float) -> dict[str, Any]:
        job = doc["job"]
        plan = lifecycle.Plan.from_dict(doc["plan"])
        view: dict[str, Any] = {"kind": job.get("kind", "job"), "metadata": job["metadata"]}
        view["status"] = lifecycle.status_at(plan, now, shapes.tasks_of(job))
        if (job.get("spec") or {}).get("reserved_time") is not None:
            # How long the job has been kept since it stopped (the SDK: only with spec.reserved_time).
            stopped = lifecycle.stopped_at(plan, now)
            view["status"]["retention_time"] = round((now - stopped) * 1000) if stopped is not None else 0
        view.update({k: v for k, v in job.items() if k not in view})
        return view

    def _doc(self, job_id: str) -> dict[str, Any]:
        doc = self.store.get(self.config.project_id, job_id)
        if doc is None:
            raise not_found(job_id)
        return doc

    # -- jobs ------------------------------------------------------------------------------------------------

    def create(self, body: Any) -> dict[str, Any]:
        problems = checks.create_problems(body)
        if problems:
            raise invalid(problems)
        assert isinstance(body, Mapping)
        # Whole milliseconds, so create_time and the phase timestamps derived from it agree exactly.
        now = int(self.clock() * 1000) / 1000
        job_id = str(uuid.uuid4())
        job = shapes.build_job(
            body, job_id=job_id, create_time_ms=int(now * 1000), user_name=self.config.user_name
        )
        annotations = {k: str(v) for k, v in job["metadata"]["annotations"].items()}
        plan = lifecycle.make_plan(self.config.timing, annotations, now)
        doc = {"job": job, "plan": plan.to_dict()}
        name = job["metadata"]["name"]
        if not self.store.insert(self.config.project_id, job_id, doc, unique_name=self.config.unique_names):
            raise ServiceError(
                400,
                DUPLICATE_NAME,
                f"The training job name {name} already exists.",
                "Use another name, or delete the job that holds it.",
            )
        return self._view(doc, now)

    def get(self, job_id: str) -> dict[str, Any]:
        return self._view(self._doc(job_id), self.clock())

    def update_description(self, job_id: str, body: Any) -> None:
        if not isinstance(body, Mapping):
            raise invalid([("body", "must be a JSON object")])
        extra = sorted(set(body) - {"description"})
        if extra:
            raise invalid([(extra[0], "cannot be changed; only description can be updated")])
        description = body.get("description")
        if not isinstance(description, str) or len(description) > 256:
            raise invalid([("description", "must be a string of at most 256 characters")])
        if lifecycle.Plan.from_dict(self._doc(job_id)["plan"]).throttle_updates:
            # The throttling answer the service gives without a Retry-After (test hook).
            raise ServiceError(
                429,
                TOO_MANY_REQUESTS,
                "Too many requests; try again later.",
                "Wait 2 to 5 seconds and send the request again.",
            )

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            doc["job"]["metadata"]["description"] = description
            return doc

        if self.store.update(self.config.project_id, job_id, change) is None:
            raise not_found(job_id)

    # -- tags (kept beside the job, as the service's tag manager does) --------------------------------------

    def tags(self, job_id: str) -> dict[str, Any]:
        tags = self._doc(job_id).get("tags") or {}
        return {"tags": [{"key": k, "value": v} for k, v in sorted(tags.items())]}

    def change_tags(self, job_id: str, body: Any, *, deleting: bool) -> None:
        """Add (or, deleting, remove) tags; every call is recorded in ``tag_changes`` for tests to read."""
        problems = checks.tag_problems(body, deleting=deleting)
        if problems:
            raise invalid(problems)
        assert isinstance(body, Mapping)
        given = [(str(t["key"]), t.get("value")) for t in body["tags"]]
        plan = lifecycle.Plan.from_dict(self._doc(job_id)["plan"])  # a missing job: not found, first
        if not deleting and plan.refuse_tags:
            raise ServiceError(
                403,
                TAGS_REFUSED,
                "The user has no permission to tag this training job.",
                "Ask the account administrator for the permission to manage tags.",
            )
        too_many: list[int] = []

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            tags = dict(doc.get("tags") or {})
            for key, value in given:
                if not deleting:
                    tags[key] = value
                elif key in tags and (value is None or tags[key] == value):
                    del tags[key]
            if len(tags) > checks.MAX_TAGS:
                too_many.append(len(tags))
                return doc
            doc["tags"] = tags
            return doc

        if self.store.update(self.config.project_id, job_id, change) is None:
            raise not_found(job_id)
        if too_many:
            raise invalid(
                [("tags", f"a job carries at most {checks.MAX_TAGS} tags, this would make {too_many[0]}")]
            )
        entry = {"job_id": job_id, "op": "delete" if deleting else "create"}
        self.tag_changes.append({**entry, "tags": [{"key": k, "value": v} for k, v in given]})

    def delete(self, job_id: str) -> None:
        """Remove the job's record (whatever its phase); its name is free again."""
        if not self.store.delete(self.config.project_id, job_id):
            raise not_found(job_id)

    def terminate(self, job_id: str, body: Any, *, status_changed: bool = False) -> dict[str, Any]:
        """Terminate a Creating, Pending or Running job. ``status_changed`` injects the service's transient
        409 ModelArts.2878 (for a job that could otherwise be terminated)."""
        problems = checks.problems(checks.ACTION, body)
        if problems:
            raise invalid(problems)
        action = body["action_type"]
        if action != TERMINATE:
            raise ServiceError(
                400,
                UNSUPPORTED_ACTION,
                f"The action_type {action!r} is not supported; the only action is 'terminate'.",
                'Send {"action_type": "terminate"}.',
            )
        now = self.clock()
        refused: list[str] = []

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            plan = lifecycle.Plan.from_dict(doc["plan"])
            phase = lifecycle.phase_at(plan, now)
            unlisted = lifecycle.reported_refusal(plan, now)
            if plan.terminated_at is not None or phase not in lifecycle.TERMINABLE or unlisted:
                refused.append(unlisted or phase)
            elif status_changed:
                refused.append("")
            else:
                doc["plan"]["terminated_at"] = now
            return doc

        doc = self.store.update(self.config.project_id, job_id, change)
        if doc is None:
            raise not_found(job_id)
        if refused and refused[0]:
            raise ServiceError(
                409,
                NOT_TERMINABLE,
                f"Training job {job_id} is {refused[0]} and cannot be terminated; "
                "only Creating, Pending or Running jobs can be terminated.",
                "Terminate the job only while it is Creating, Pending or Running.",
            )
        if refused:
            raise ServiceError(
                409,
                STATUS_CHANGED,
                f"The status of training job {job_id} changed; try again later.",
                "Wait a few seconds and send the request again.",
            )
        return self._view(doc, now)

    def search(self, body: Any) -> dict[str, Any]:
        problems = checks.problems(checks.SEARCH, body)
        if problems:
            raise invalid(problems)
        now = self.clock()
        docs = self.store.all(self.config.project_id)
        jobs = [self._view(doc, now) for doc in docs]
        tags_by_id = {doc["job"]["metadata"]["id"]: dict(doc.get("tags") or {}) for doc in docs}

        def task_ips(job: Mapping[str, Any]) -> list[dict[str, Any]]:
            started = job["status"].get("start_time", 0) > 0
            return shapes.task_ips(job, job["status"]["tasks"]) if started else []

        try:
            return search.search(
                jobs,
                body,
                now_ms=int(now * 1000),
                task_ips=task_ips,
                tags_of=lambda job: tags_by_id.get(job["metadata"]["id"], {}),
            )
        except search.SearchError as error:
            raise ServiceError(
                400,
                error.code,
                f"Invalid search: {error.field} {error.message}.",
                f"Correct {error.field} in the search request.",
            ) from None

    def name_is_taken(self, query: Mapping[str, str]) -> dict[str, bool]:
        """The name check: is a job of that name (in that workspace, when given) kept by the service?"""
        name = query.get("job_name") or ""
        if not checks.NAME_RE.fullmatch(name):
            raise invalid([("job_name", "must be 1 to 64 letters, digits, '_' or '-'")])
        workspace = query.get("workspace_id")
        taken = any(
            doc["job"]["metadata"]["name"] == name
            and (not workspace or doc["job"]["metadata"].get("workspace_id", "0") == workspace)
            for doc in self.store.all(self.config.project_id)
        )
        return {"is_duplicate": taken}

    # -- logs and events -------------------------------------------------------------------------------------

    def log_preview(self, job_id: str, task: str) -> dict[str, Any] | None:
        """The task's latest log; None while the job has not run yet (the service answers 204, no content)."""
        doc = self._doc(job_id)
        job, plan, now = doc["job"], lifecycle.Plan.from_dict(doc["plan"]), self.clock()
        tasks = shapes.tasks_of(job)
        if task not in tasks:
            raise invalid([("task_id", f"{task!r} is not a task of this job; its tasks: {', '.join(tasks)}")])
        text = logs.log_text(job, plan, task, now)
        if text is None:
            if lifecycle.stopped_at(plan, now) is None:
                return None
            raise ServiceError(
                400,
                LOG_NOT_GENERATED,
                f"No log was generated for task {task} of training job {job_id}: it stopped before it ran.",
            )
        stopped = lifecycle.stopped_at(plan, now)
        cleared = plan.logs_cleared_after
        if cleared is not None and stopped is not None and now >= stopped + cleared:
            raise ServiceError(
                400, LOG_CLEARED, f"The log of task {task} of training job {job_id} has been cleared."
            )
        return logs.preview(text)

    def events(self, job_id: str, query: Mapping[str, str]) -> dict[str, Any]:
        doc = self._doc(job_id)
        job, plan = doc["job"], lifecycle.Plan.from_dict(doc["plan"])
        happened = events.job_events(job, plan, shapes.tasks_of(job), self.clock())
        try:
            return events.select(happened, query)
        except events.QueryError as error:
            raise invalid([(error.field, error.message)]) from None

    # -- the training catalogue ------------------------------------------------------------------------------

    def _catalogue_readable(self, action: str) -> None:
        if self.config.catalogue == "closed":
            # The refusal of a user whose IAM policies lack the action, in IAM's words.
            raise ServiceError(
                403,
                POLICY_DENIED,
                f"User: {self.config.user_name} is not authorized to perform action {action} "
                "because no identity-based policy allows the action.",
                f"Ask the account administrator to grant {action}.",
            )

    def flavors(self, query: Mapping[str, str]) -> dict[str, Any]:
        """The public-pool flavors, all of them or those of ``flavor_type`` (CPU, GPU or Ascend)."""
        self._catalogue_readable("modelarts:trainJob:listFlavors")
        flavor_type = query.get("flavor_type")
        if flavor_type is not None and flavor_type not in catalogue.FLAVOR_TYPES:
            raise invalid([("flavor_type", f"must be one of {', '.join(catalogue.FLAVOR_TYPES)}")])
        return catalogue.flavors(flavor_type)

    def engines(self) -> dict[str, Any]:
        """The preset engines."""
        self._catalogue_readable("modelarts:trainJob:listEngines")
        return catalogue.engines()

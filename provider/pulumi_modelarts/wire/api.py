"""The ModelArts training-job operations, over a transport they hold: create, get, terminate, update,
delete, search (and paging), tags, logs and events, and the training catalogue (flavors, engines). Each
builds its path and body, calls ``Transport.request`` and validates the answer into its response model
(``interpreting.parse``).

Creating a job is the one call that is not safe to repeat blindly: ``create_job`` posts through
``Transport.request_or_find`` and asks its ``CreateRecovery`` (the job layer's ``lost_creates``) whether an
earlier post made the job, and for the job a post answered with a success status but an unusable body made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlencode

from .api_errors import SearchRejectedError
from .errors import InvalidResponseError
from .interpreting import excerpt, parse
from .models import (
    SEARCH_FILTER_MAX_VALUES,
    CreateTrainingJobRequest,
    EngineListing,
    FlavorListing,
    JobEvents,
    LogPreview,
    SearchFilter,
    SearchRequest,
    SearchResponse,
    SearchTag,
    TagsAnswer,
    TrainingJob,
    tags_body,
    to_wire,
)
from .sendable import path_segment
from .transport import Transport

__all__ = ["MAX_IDS_PER_SEARCH", "MAX_PAGES", "MAX_PAGE_SIZE", "CreateRecovery", "ModelArtsAPI"]

MAX_PAGE_SIZE = 50
# The most values one search filter may carry (ModelArts.2809 beyond it); filters are all met at once, so one
# search reads at most this many jobs by id.
MAX_IDS_PER_SEARCH = SEARCH_FILTER_MAX_VALUES
# Hard cap on pages in one listing, whatever the service claims: a broken server cannot loop us forever.
MAX_PAGES = 2000


class CreateRecovery(Protocol):
    """What ``create_job`` asks when a post may have created the job without a usable answer."""

    def find(self, operation: str) -> TrainingJob | None:
        """The job an earlier post made, or None: asked before posting again after an ambiguous failure, and
        once more when no attempt is left."""

    def adopt(self, error: InvalidResponseError) -> TrainingJob:
        """The job a post answered with a success status but an unusable body (error) made; else raise."""


def _job_path(job_id: str) -> str:
    return f"/training-jobs/{path_segment(job_id, 'job id')}"


class ModelArtsAPI:
    """The operations, over the transport it holds (and closes: use as a context manager, or call
    ``close()``). ``account.session.open_api`` opens one for an account's settings."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def __repr__(self) -> str:
        return f"ModelArtsAPI({self.transport!r})"

    def __enter__(self) -> ModelArtsAPI:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()

    def create_job(self, request: CreateTrainingJobRequest, recovery: CreateRecovery) -> TrainingJob:
        """Create a training job; after an ambiguous failure, recovery finds a job this call already created
        first (it is never posted twice for an answer that was lost or unreadable)."""
        return self.post_job(to_wire(request), recovery)

    def post_job(self, body: Mapping[str, Any], recovery: CreateRecovery) -> TrainingJob:
        """``create_job`` for a request already on the wire (body: ``to_wire`` of a validated
        ``CreateTrainingJobRequest``), for a caller that compares that body with a name's holder too."""
        metadata = body.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if not name:
            raise ValueError("a training job needs metadata.name before it can be created")
        operation = f"create training job {name!r}"
        try:
            answer = self.transport.request_or_find(
                "POST", "/training-jobs", body,
                operation=operation, find=lambda: recovery.find(operation),
            )  # fmt: skip
            if isinstance(answer, TrainingJob):
                return answer
            job = parse(TrainingJob, answer, operation, self.transport.scrub)
        except InvalidResponseError as exc:
            if exc.status_code is None or not 200 <= exc.status_code < 300:
                raise
            return recovery.adopt(exc)  # a success status: the job was made, whatever its body says
        if not job.metadata.id:
            raise InvalidResponseError(
                operation,
                "the answer has no metadata.id for the new job",
                status_code=answer.status_code,
                excerpt=excerpt(json.dumps(answer.payload, ensure_ascii=False), self.transport.scrub),
                request_id=answer.request_id,
            )
        return job

    def get_job(self, job_id: str) -> TrainingJob:
        operation = f"get training job {job_id!r}"
        answer = self.transport.request("GET", _job_path(job_id), None, operation=operation)
        job = parse(TrainingJob, answer, operation, self.transport.scrub)
        # Another job's details must never pass for this one: a refresh would move the state to that id.
        if job.metadata.id and job.metadata.id != job_id:
            raise InvalidResponseError(
                operation,
                f"the answer describes a different job ({job.metadata.id!r})",
                status_code=answer.status_code,
                request_id=answer.request_id,
            )
        return job

    def terminate_job(self, job_id: str) -> TrainingJob:
        operation = f"terminate training job {job_id!r}"
        path = _job_path(job_id) + "/actions"
        answer = self.transport.request("POST", path, {"action_type": "terminate"}, operation=operation)
        return parse(TrainingJob, answer, operation, self.transport.scrub)

    def update_description(self, job_id: str, description: str) -> None:
        operation = f"update the description of training job {job_id!r}"
        body = {"description": description}
        self.transport.request("PUT", _job_path(job_id), body, operation=operation, body_required=False)

    def delete_job(self, job_id: str) -> None:
        operation = f"delete training job {job_id!r}"
        self.transport.request("DELETE", _job_path(job_id), None, operation=operation, body_required=False)

    # ---------------------------------------------------------------- tags (TMS tags kept beside the job)

    def get_tags(self, job_id: str) -> dict[str, str]:
        """The job's tags, key to value."""
        operation = f"get the tags of training job {job_id!r}"
        answer = self.transport.request(
            "GET", _tags_path(job_id), None, operation=operation, body_required=False
        )
        return parse(TagsAnswer, answer, operation, self.transport.scrub).as_map() if answer.payload else {}

    def add_tags(self, job_id: str, tags: Mapping[str, str]) -> None:
        """Set these tags (a key the job already has takes the new value); idempotent, so retried."""
        if not tags:
            return
        operation = f"tag training job {job_id!r}"
        path = _tags_path(job_id) + "/create"
        self.transport.request(
            "POST", path, to_wire(tags_body(tags)), operation=operation, body_required=False
        )

    def remove_tags(self, job_id: str, tags: Mapping[str, str]) -> None:
        """Remove these tags (key and value as the job has them)."""
        if not tags:
            return
        operation = f"remove tags of training job {job_id!r}"
        path = _tags_path(job_id) + "/delete"
        self.transport.request(
            "DELETE", path, to_wire(tags_body(tags)), operation=operation, body_required=False
        )

    # ---------------------------------------------------------------- logs and events

    def get_log_preview(self, job_id: str, task: str, *, attempts: int | None = None) -> LogPreview | None:
        """The latest part of a task's log; None when the service has none yet (HTTP 204).

        attempts: fewer attempts than the client's own, for a caller that only wants it if it comes quickly.
        """
        operation = f"read the log of task {task!r} of training job {job_id!r}"
        path = f"{_job_path(job_id)}/tasks/{path_segment(task, 'task')}/logs/preview"
        answer = self.transport.request(
            "GET", path, None, operation=operation, body_required=False, attempts=attempts
        )
        if answer.payload is None:
            return None
        return parse(LogPreview, answer, operation, self.transport.scrub)

    def list_events(
        self, job_id: str, *, level: str | None = None, limit: int = 50, attempts: int | None = None
    ) -> JobEvents:
        """The newest events of a job (one page of at most `limit`, 1..100), optionally of one level only."""
        operation = f"list the events of training job {job_id!r}"
        query = {"limit": str(limit), **({"level": level} if level else {})}
        path = f"{_job_path(job_id)}/events?{urlencode(query)}"
        answer = self.transport.request("GET", path, None, operation=operation, attempts=attempts)
        return parse(JobEvents, answer, operation, self.transport.scrub)

    # ---------------------------------------------------------------- the training catalogue

    def list_flavors(self, flavor_type: str | None = None) -> FlavorListing:
        """The public-pool flavors the account may train on, of one type (CPU, GPU, Ascend) or of all."""
        operation = "list the training flavors"
        query = f"?{urlencode({'flavor_type': flavor_type})}" if flavor_type else ""
        answer = self.transport.request("GET", f"/training-job-flavors{query}", None, operation=operation)
        return parse(FlavorListing, answer, operation, self.transport.scrub)

    def list_engines(self) -> EngineListing:
        """The preset engines the account may train with."""
        operation = "list the training engines"
        answer = self.transport.request("GET", "/training-job-engines", None, operation=operation)
        return parse(EngineListing, answer, operation, self.transport.scrub)

    # ---------------------------------------------------------------- searches and paging

    def search_jobs(self, request: SearchRequest) -> SearchResponse:
        operation = "search training jobs"
        try:
            answer = self.transport.request(
                "POST", "/training-job-searches", to_wire(request), operation=operation
            )
        except SearchRejectedError as exc:
            # The service's text may not say which condition it refused: name what was sent.
            sent = "; ".join(f"{f.key} {f.operator} {f.value}" for f in request.filters or []) or "none"
            order = f"sort_by {request.sort_by} {request.order or ''}".strip() if request.sort_by else ""
            detail = f"filters sent: {sent}" + (f"; {order}" if order else "")
            message = f"{exc.error_msg} ({detail})" if exc.error_msg else detail
            raise SearchRejectedError(
                exc.status_code,
                exc.error_code,
                message,
                exc.error_solution,
                exc.request_id,
                operation=operation,
            ) from None
        return parse(SearchResponse, answer, operation, self.transport.scrub)

    def jobs_by_id(self, job_ids: Sequence[str]) -> dict[str, TrainingJob]:
        """The jobs of these ids the service lists, by id, in one search (at most ``MAX_IDS_PER_SEARCH``
        ids): a job it does not return is left out (gone, or not listed yet). A search item is the job as
        the list shows it; a caller needing the job's full document reads it by id."""
        wanted = list(dict.fromkeys(job_ids))
        if not 0 < len(wanted) <= MAX_IDS_PER_SEARCH:
            raise ValueError(f"a search by id takes 1 to {MAX_IDS_PER_SEARCH} ids, not {len(wanted)}")
        request = SearchRequest(
            offset=0, limit=len(wanted), filters=[SearchFilter(key="id", operator="in", value=wanted)]
        )
        found = self.search_jobs(request).items or []
        # Only the jobs asked for: another job's item must never pass for one of them.
        asked = set(wanted)
        return {job.metadata.id: job for job in found if job.metadata.id and job.metadata.id in asked}

    def iter_jobs(
        self,
        filters: Sequence[SearchFilter] | None = None,
        *,
        sort_by: str | None = None,
        order: str | None = None,
        page_size: int = MAX_PAGE_SIZE,
        tags: Mapping[str, str] | None = None,
    ) -> Iterator[TrainingJob]:
        """Every job matching the filters, page by page (offset is a page index; limit at most 50).

        Stops after a short or empty page or once `total` jobs were seen; a page that only repeats jobs
        already seen, or more pages than the total allows, is an InvalidResponseError, not an endless loop.
        """
        limit = max(1, min(page_size, MAX_PAGE_SIZE))
        seen: set[str] = set()
        count = 0
        page = 0
        page_cap = MAX_PAGES
        while True:
            request = SearchRequest(
                offset=page,
                limit=limit,
                sort_by=sort_by,
                order=order,
                filters=list(filters or []),
                tags=[SearchTag(key=k, values=[v]) for k, v in sorted(tags.items())] if tags else None,
            )
            answer = self.search_jobs(request)
            items = list(answer.items or [])
            new = 0
            for job in items:
                key = job.metadata.id or None
                if key is not None:
                    if key in seen:
                        continue
                    seen.add(key)
                new += 1
                count += 1
                yield job
            total = answer.total
            if len(items) < limit or (total is not None and count >= total):
                return
            if new == 0:
                raise InvalidResponseError(
                    "list training jobs", f"page {page} only repeated jobs already listed"
                )
            if page == 0 and total is not None:
                # Fixed by the first answer (plus slack for jobs created meanwhile): a server whose total
                # keeps growing cannot keep us paging.
                page_cap = min(MAX_PAGES, total // limit + 3)
            page += 1
            if page >= page_cap:
                raise InvalidResponseError(
                    "list training jobs", f"the service kept returning full pages beyond page {page - 1}"
                )


def _tags_path(job_id: str) -> str:
    return f"/modelarts-training-job/{path_segment(job_id, 'job id')}/tags"

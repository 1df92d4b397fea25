"""The training-job operations every front-end calls: check, plan, create, read, update, delete, list.

They take plain data (the inputs as declared, the outputs stored last time) plus a client and a ``Progress``,
and return plain results or raise the typed errors of ``errors``. Nothing here knows which front-end
(``pulumi.dynamic`` or a provider plugin) called it. The rules they apply are pure functions elsewhere:
``normalising`` (declared inputs), ``naming`` (job names), ``diffing`` (update versus replace),
``setting_values`` (wait targets, durations), ``waiting.polling`` (the loop). The steps, by module:

- ``checking``: check (validation, failures, warnings); re-exported here;
- ``ownership.held_names``: the create call, and what happens when the name is already held;
- ``waiting.goal``: a create's wait for wait_for, wait bounds, the retry budget;
- ``waiting.giving_up``: giving up on a job and the failure report;
- ``waiting.stopping``: terminating a job and deleting a stopped job's record;
- ``tagging``: tags; ``recorded``: the outputs the state records (``JobState`` is re-exported here).

Importing this module is cheap: pydantic, httpx and the wire models load on the first validation or call.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..account.settings import resolve_settings
from ..generated.fields import SETTINGS_FIELDS
from ..wire.api_errors import NotFoundError, ServerError, ThrottledError
from ..wire.errors import TransportError
from . import diffing
from .checking import Checked, Failure, check
from .errors import JobNotFoundError, ProvisioningError
from .labels import format_elapsed
from .normalising import normalise_inputs, secret_values
from .ownership.held_names import post_create
from .progress import Progress
from .recorded import (
    DECLARED_INPUTS,
    JobState,
    declared_from_job,
    declared_inputs,
    is_lookup,
    job_outputs,
    public_job,
    restrict,
)
from .setting_values import deletes_record
from .tagging import TAGS_FIELD, change_tags, tag_map, tag_new_job, tags_of
from .waiting import goal
from .waiting.giving_up import JobMayStillRun, give_up, lost_watch, warn_unknown_phase
from .waiting.stopping import delete_bound, delete_record, stop_job

if TYPE_CHECKING:
    from ..wire.api import ModelArtsAPI
    from ..wire.models import SearchFilter, TrainingJob

__all__ = [
    "CLIENT_MAX_ATTEMPTS",
    "Checked",
    "Failure",
    "JobState",
    "adopted_inputs",
    "check",
    "create",
    "delete",
    "list_jobs",
    "open_client",
    "plan",
    "read",
    "search_filters",
    "update",
]

# Attempts per API call (retries on throttling, 5xx and lost connections; never on bad credentials).
# A deployment makes many calls; with the client's default five attempts a throttled or flaky service (a third
# of calls refused) fails roughly one call in 300, i.e. often one resource per `pulumi up`.
CLIENT_MAX_ATTEMPTS = 10


def open_client(
    config: Mapping[str, str],
    progress: Progress,
    environ: Mapping[str, str] | None = None,
    *,
    limit: float | None = None,
    attempts: int = CLIENT_MAX_ATTEMPTS,
    retry_seconds: float | None = None,
) -> ModelArtsAPI:
    """A client for one operation, from the stack config and the environment (resolved afresh, never kept).

    Retries are announced through progress, so users see why a step is slow and when a lost create was found.
    limit: the operation's own time (Pulumi's customTimeouts; None or 0: none), which bounds the account's
    set-up too (a project lookup in IAM, temporary keys). retry_seconds: the most a call's retries may wait in
    all (None: the client's own bound), for a call that must not wait long.
    """
    from ..account.session import open_api

    settings = resolve_settings(config, os.environ if environ is None else environ)
    within = limit if limit else None
    bound = {} if retry_seconds is None else {"max_retry_seconds": retry_seconds}
    return open_api(settings, within=within, max_attempts=attempts, log=progress.say, **bound)


# ---------------------------------------------------------------------------------------------------------
# plan


def plan(
    job_id: str,
    old_outputs: Mapping[str, Any],
    news: Mapping[str, Any],
    progress: Progress,
    *,
    explain: bool = False,
) -> diffing.Decision:
    """What moving from the stored outputs to the new inputs means: nothing, an update, or a replacement.

    A job adopted by ``pulumi import`` has no declared inputs stored: it is judged against what it says of
    itself (``adopted_inputs``). A replacement because of the job's last phase is always said; with explain,
    every replacement is, naming the values that force it (for a front-end whose diff can only name
    top-level properties).
    """
    # Each value normalised once, here: the new inputs, and the old ones (declared, or the adopted job's).
    new = normalise_inputs(news)
    declared = declared_inputs(old_outputs)
    decision = diffing.compare(
        adopted_inputs(old_outputs, new) if declared is None else normalise_inputs(declared),
        new,
        last_phase=old_outputs.get("phase"),
        last_secondary_phase=old_outputs.get("secondary_phase"),
    )
    if "status" in decision.replaces or (explain and decision.replaces):
        name = old_outputs.get("name") or job_id
        progress.say(f"training job {name} will be replaced: {'; '.join(decision.reasons)}")
    return decision


def adopted_inputs(found: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The declared inputs of a job adopted by ``pulumi import`` (its stored outputs: the job as found), for
    a diff against what the program now declares (new, normalised): what the job says of itself, kept to
    what the program also says (the service's extra fields are no difference), the program's settings (they
    are only stored), and the tags the job was found with (they are the job's). Normalised."""
    adopted = restrict(declared_from_job(found), new)
    adopted.update({k: new[k] for k in SETTINGS_FIELDS if k in new and k != TAGS_FIELD})
    return normalise_inputs(adopted)  # the job as found: the state's numbers are floats


# ---------------------------------------------------------------------------------------------------------
# create


def create(
    inputs: Mapping[str, Any],
    client: ModelArtsAPI,
    progress: Progress,
    *,
    limit: float | None = None,
    stop: threading.Event | None = None,
) -> JobState:
    """Create the job and wait as wait_for says; a job that does not get there is stopped before raising.

    limit (seconds) caps the wait below wait_timeout (a front-end's own timeout, e.g. Pulumi's
    customTimeouts); setting stop (a cancelled deployment) ends the wait as a failed one.
    Raises InvalidInputsError before any call, ProvisioningError when the wait fails and the job was seen
    stopped or gone, its subclass JobMayStillRun (with the job's outputs, for the state) when the job may
    still run, or the client's errors when the create itself fails.
    """
    inputs = normalise_inputs(inputs)
    client.transport.hide(secret_values(inputs))  # the service may echo the request in its error messages
    wait_for, timeout = goal.wait_settings(inputs)
    bound = goal.clamp(limit, goal.Bound(timeout, "wait_timeout"))
    job: TrainingJob = post_create(inputs, client, progress)
    job_id = job.job_id or ""
    # From here the job exists and the engine learns its id only from what this returns or raises: whatever
    # fails, the job is given up on (stopped, or kept in the state as JobMayStillRun says), never just left.
    try:
        tags = tag_map(inputs.get(TAGS_FIELD))
        if tags:
            applied = tag_new_job(client, job, job_id, tags, progress)
            if applied != tags:
                # What the state records as declared is what the job carries: the next `up` sees the change.
                inputs = {**inputs, TAGS_FIELD: applied}
        if wait_for != "none":
            follow = goal.log_follower(client, job, inputs, progress) if wait_for == "completed" else None
            job = goal.wait_created(client, job, job_id, wait_for, bound, progress, stop, follow)
        return JobState(job_id, job_outputs(job, inputs, tags=tags_of(inputs)))
    except JobMayStillRun as exc:
        raise _kept(exc, inputs) from None
    except ProvisioningError:
        raise  # the job was seen stopped, or is gone
    except Exception as exc:
        failed = give_up(client, job, job_id, lost_watch(client, exc), wait_for, progress)
        raise (_kept(failed, inputs) if isinstance(failed, JobMayStillRun) else failed) from None


def _kept(error: JobMayStillRun, inputs: Mapping[str, Any]) -> JobMayStillRun:
    """The error with the outputs the state records for its job (as last read, with the declared inputs):
    the job's own, or, should they not build, the least a later refresh, update or destroy needs."""
    try:
        error.outputs = job_outputs(error.job, inputs, tags=tags_of(inputs))
    except Exception:
        job = {"metadata": {"id": error.job_id}, "phase": error.job.phase or ""}
        error.outputs = {**job, "declared_inputs": dict(inputs)}
    return error


# ---------------------------------------------------------------------------------------------------------
# read, update, delete


def read(
    job_id: str,
    old_outputs: Mapping[str, Any],
    client: ModelArtsAPI,
    progress: Progress,
) -> JobState | None:
    """The job as it is now, keeping the declared inputs of the stored outputs; None when it is gone.

    A read whose stored outputs carry no phase looks the job up by id (``is_lookup``: an import,
    ``TrainingJob.get``), so a missing job is an error, not news. Tags are read when the declared inputs
    manage them and on a lookup; a refresh records the tags found as the declared ones, and as
    ``drifted_tags`` when they changed elsewhere.
    """
    must_exist = is_lookup(old_outputs)
    client.transport.hide(secret_values(old_outputs))
    try:
        job: TrainingJob = client.get_job(job_id)
    except NotFoundError as exc:
        if must_exist:
            raise JobNotFoundError(
                f"training job {job_id} does not exist, so it cannot be read; check the id given to "
                f"TrainingJob.get ({exc})"
            ) from None
        progress.say(f"training job {job_id} no longer exists")
        return None
    warn_unknown_phase(job, job_id, progress)
    declared = declared_inputs(old_outputs)
    stored_tags = tags_of(declared)
    tags: dict[str, str] | None = None
    if must_exist or stored_tags is not None:
        try:
            tags = client.get_tags(job_id)
        except NotFoundError:
            tags = {}  # the job was found a moment ago: its tags are gone with it, or there are none
        if declared is not None and stored_tags is not None:
            declared = {**declared, TAGS_FIELD: tags}
    drifted = tags if stored_tags is not None and tags != stored_tags else None
    return JobState(job.job_id or job_id, job_outputs(job, declared, tags=tags), drifted)


def _judged(
    old_outputs: Mapping[str, Any], news: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None, diffing.Decision]:
    """The new inputs and the declared ones (normalised; None when the state holds none), and their diff."""
    inputs = normalise_inputs(news)
    declared = declared_inputs(old_outputs)
    before = normalise_inputs(declared) if declared is not None else None
    return inputs, before, diffing.compare(before or {}, inputs)


def _only_settings(before: Mapping[str, Any] | None, decision: diffing.Decision) -> bool:
    """Whether an update changes only provider settings (what the service never sees): stored, no call."""
    touched = decision.description_changed or decision.replaces or TAGS_FIELD in decision.settings_changed
    return before is not None and not touched


def stored_update(job_id: str, old_outputs: Mapping[str, Any], news: Mapping[str, Any]) -> JobState | None:
    """The update's new state when it changes only provider settings (the outputs as last read, the new inputs
    recorded); None when the job itself must change. The front-ends ask before they open a client, so such an
    update makes no call at all, IAM's included."""
    inputs, before, decision = _judged(old_outputs, news)
    stored = {**old_outputs, DECLARED_INPUTS: dict(inputs)}
    return JobState(job_id, stored) if _only_settings(before, decision) else None


def update(
    job_id: str,
    old_outputs: Mapping[str, Any],
    news: Mapping[str, Any],
    client: ModelArtsAPI,
    progress: Progress,
    *,
    limit: float | None = None,
) -> JobState:
    """Apply what can change in place (the description, the tags); provider settings are only stored, with
    no call to ModelArts (the outputs stay as last read, with the new inputs recorded).

    Tags: the job's tags are read and only the difference to the declared ones is sent; removing ``tags``
    from the program removes the tags it declared.

    limit (seconds, a front-end's own timeout such as Pulumi's customTimeouts) bounds the retries of the
    calls: a service that keeps refusing them (throttling, 5xx) fails the update once it is spent.
    """
    inputs, before, decision = _judged(old_outputs, news)
    if _only_settings(before, decision):
        return JobState(job_id, {**old_outputs, DECLARED_INPUTS: dict(inputs)})
    client.transport.hide(secret_values(inputs) | secret_values(old_outputs))
    retries = goal.clamp(limit, goal.Bound(client.transport.max_retry_seconds, ""))
    try:
        with goal.retry_budget(client, limit):
            if decision.description_changed:
                metadata = inputs.get("metadata")
                description = metadata.get("description") if isinstance(metadata, Mapping) else None
                client.update_description(job_id, description or "")
                progress.say(f"training job {job_id}: description updated")
            job: TrainingJob = client.get_job(job_id)
            want, had = tags_of(inputs), tags_of(before)
            if TAGS_FIELD in decision.settings_changed:  # declared (or found by refresh) against the new
                have = client.get_tags(job_id)
                # Without tags declared now, the ones declared before are removed; others stay unmanaged.
                target = want if want is not None else {k: v for k, v in have.items() if k not in (had or {})}
                change_tags(client, job_id, have, target, progress)
    except NotFoundError:
        raise ProvisioningError(
            f"training job {job_id} no longer exists; run `pulumi refresh` to drop it from the state "
            "(the next `pulumi up` then creates a new job)"
        ) from None
    except (ThrottledError, ServerError, TransportError) as exc:
        if retries.source != goal.CUSTOM_TIMEOUTS:
            raise
        raise ProvisioningError(
            f"training job {job_id} could not be updated within {format_elapsed(retries.seconds)} "
            f"({goal.CUSTOM_TIMEOUTS}): {exc}; the job runs on unchanged: run `pulumi up` again, or allow "
            "the update more time in the resource's customTimeouts"
        ) from None
    return JobState(job_id, job_outputs(job, inputs, tags=tags_of(inputs)))


def delete(
    job_id: str,
    client: ModelArtsAPI,
    progress: Progress,
    outputs: Mapping[str, Any] | None = None,
    *,
    limit: float | None = None,
) -> None:
    """Terminate the job if it still runs and wait until it has stopped; a job already gone is fine.

    The record then stays (logs readable, name taken) unless the declared inputs in outputs set on_destroy
    to delete (or keep_record to false): then it is deleted too, and delete waits until the service no
    longer knows the job.
    limit (seconds, a front-end's own timeout such as Pulumi's customTimeouts) caps each wait below the
    built-in one, and the retries of the calls too.
    """
    declared = declared_inputs(outputs or {}) or {}
    client.transport.hide(secret_values(outputs))
    bound = delete_bound(limit)
    with goal.retry_budget(client, limit):
        job = stop_job(job_id, client, progress, bound)
        if deletes_record(declared) and job is not None:
            delete_record(client, job, progress, bound, on_destroy=True)


# ---------------------------------------------------------------------------------------------------------
# list


def search_filters(
    *,
    name: str | None = None,
    phases: Sequence[str] = (),
    kind: str | None = None,
    created_after_ms: int | None = None,
    created_before_ms: int | None = None,
) -> list[SearchFilter]:
    """The search conditions; phases in any case. Raises pydantic's ValidationError (a ValueError) for a
    condition the service would refuse, before any call."""
    from ..wire.models import SearchFilter

    filters: list[SearchFilter] = []
    if name:
        filters.append(SearchFilter(key="name", operator="like", value=[name]))
    if phases:
        filters.append(SearchFilter(key="phase", operator="in", value=list(phases)))
    if kind:
        filters.append(SearchFilter(key="kind", operator="in", value=[kind]))
    if created_after_ms is not None or created_before_ms is not None:
        bounds = ["" if ms is None else str(int(ms)) for ms in (created_after_ms, created_before_ms)]
        filters.append(SearchFilter(key="create_time", operator="between", value=bounds))
    return filters


def list_jobs(
    client: ModelArtsAPI,
    filters: Sequence[SearchFilter],
    *,
    sort_by: str | None = None,
    order: str | None = None,
    tags: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Every job matching the filters (all pages of the search) and carrying every tag of tags (key and
    value), without secrets (``public_job``)."""
    found = client.iter_jobs(filters, sort_by=sort_by, order=order, tags=tags)
    return [public_job(job) for job in found]

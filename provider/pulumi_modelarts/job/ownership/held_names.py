"""A create whose name is already held (ModelArts.2751): the service names the holder, which is looked up and
judged (``judging``, ``matching.judge_holder``). The job this create declared is adopted; a running stranger
is an error; a stale holder is passed by (an auto-name moves to its next free generation) or, for a pinned
name, its record is deleted to free the name.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...wire.api_errors import DuplicateNameError, SearchRejectedError
from .. import naming
from ..errors import InvalidInputsError, ProvisioningError
from ..labels import job_label
from ..normalising import job_body
from ..progress import Progress
from ..waiting.stopping import delete_bound, delete_record
from . import judging, matching
from .lost_creates import LostCreate

if TYPE_CHECKING:
    from ...wire.api import ModelArtsAPI
    from ...wire.models import CreateTrainingJobRequest, TrainingJob

__all__ = ["HOLDER_LOOKUPS", "post_create"]

# How often create asks about a name that is held but whose holder the search cannot find (yet).
HOLDER_LOOKUPS = 3


def post_create(inputs: Mapping[str, Any], client: ModelArtsAPI, progress: Progress) -> TrainingJob:
    """Post the create; a name already held (ModelArts.2751) is the service telling who has it.

    The name is the idempotency key: the holder is looked up and judged (``matching.judge_holder``). The job
    this create declared (an earlier attempt whose answer was lost, or a killed `pulumi up`) is adopted; a
    running stranger is an error; a stopped or older finished job is stale: an auto-named job moves to the
    next generation of its name, a pinned name is freed by deleting the stale job's record.
    """
    since_ms = judging.since_ms(time.time())
    generation = naming.auto_name_generation(inputs)
    # Each request serialised once: the body posted is the one a holder is compared with.
    request, body = _create_request(inputs)
    lookups = freed = 0
    while True:
        name = request.metadata.name or ""
        try:
            # The recovery of a post whose answer is lost or unusable: the job found by name, judged from now.
            job: TrainingJob = client.post_job(body, LostCreate(client, name, started=time.time()))
        except DuplicateNameError:
            pass
        else:
            progress.say(f"{job_label(job)} created, phase {job.phase or 'unknown'}")
            return job
        holder, judgment = _holder(client, body, name, since_ms)
        if holder is None:
            lookups += 1
            if lookups >= HOLDER_LOOKUPS:
                raise ProvisioningError(
                    f"the service refuses the name {name!r} as taken, but no job of that name can be found; "
                    "try again later or choose another name"
                )
            time.sleep(1.0)  # the search may not list a job created a moment ago
            continue
        label = job_label(holder)
        if judgment.holding is judging.Holding.ADOPT:
            return _adopt(client, holder, "the name", request, progress)
        where = ", ".join(judgment.differences) or "its phase"
        if judgment.holding is judging.Holding.MISMATCH:
            raise ProvisioningError(
                f"the name {name!r} is held by the running {label}, which is not the job declared here "
                f"(it differs at {where}); choose another metadata.name, or stop and delete that job"
            )
        if generation is not None:
            later, new_name, adopt = _later_generation(client, inputs, body, generation + 1, since_ms)
            skipped = later - generation - 1
            progress.say(
                f"the name {name} is held by the {holder.phase or 'stopped'} {label}; "
                f"using the next generated name, {new_name}"
                + (f" ({skipped} generated names in between are held by stopped jobs)" if skipped else "")
            )
            if adopt is not None:
                return _adopt(client, adopt, new_name, request, progress)
            generation = later
            request, body = _create_request(_renamed(inputs, new_name))
            continue
        freed += 1
        if freed > HOLDER_LOOKUPS:
            raise ProvisioningError(f"the name {name!r} stays taken after deleting its stale holders")
        progress.say(
            f"the name {name} is held by the {holder.phase or 'stopped'} {label}; "
            "deleting that job's record to free the name"
        )
        delete_record(client, holder, progress, delete_bound(None))


def _adopt(
    client: ModelArtsAPI,
    job: TrainingJob,
    held: str,
    request: CreateTrainingJobRequest,
    progress: Progress,
) -> TrainingJob:
    """The job holding a name (held: which one, for the message) taken as this create's own."""
    progress.say(
        f"{job_label(job)} ({job.phase or 'unknown'}) already holds {held} and matches this declaration: "
        "adopting it (an earlier attempt of this create started it)"
    )
    return _with_description(client, job, request.metadata.description, progress)


def _with_description(
    client: ModelArtsAPI, job: TrainingJob, description: str | None, progress: Progress
) -> TrainingJob:
    """An adopted job with the declared description (the one field that may differ: it changes in place)."""
    if (job.metadata.description or "") == (description or "") or not job.job_id:
        return job
    client.update_description(job.job_id, description or "")
    progress.say(f"{job_label(job)}: description updated")
    return client.get_job(job.job_id)


def _holder(
    client: ModelArtsAPI, body: Mapping[str, Any], name: str, since_ms: float
) -> tuple[TrainingJob | None, judging.Judgment]:
    """The job holding name and its judgment (without unique names several may: the most favourable wins);
    body: the create request as sent."""
    found = _holders(client, {name: body}, since_ms, operator="like")
    return found.get(name, (None, judging.Judgment(judging.Holding.STALE)))


def _holders(
    client: ModelArtsAPI,
    declared: Mapping[str, Mapping[str, Any]],
    since_ms: float,
    *,
    operator: str,
) -> dict[str, tuple[TrainingJob, judging.Judgment]]:
    """Each held name of declared (name -> the wire body declared under it) with its holder, in one search."""
    from ...wire.models import SearchFilter

    rank = {judging.Holding.ADOPT: 0, judging.Holding.MISMATCH: 1, judging.Holding.STALE: 2}
    best: dict[str, tuple[TrainingJob, judging.Judgment]] = {}
    for job in client.iter_jobs([SearchFilter(key="name", operator=operator, value=list(declared))]):
        name = job.name or ""
        if name not in declared or not job.job_id:
            continue
        judgment = matching.judge_holder(
            declared[name],
            job.model_dump(mode="json", by_alias=True, exclude_none=True),
            phase=job.phase,
            created_ms=job.metadata.create_time,
            since_ms=since_ms,
        )
        if name not in best or rank[judgment.holding] < rank[best[name][1].holding]:
            best[name] = (job, judgment)
    return best


def _later_generation(
    client: ModelArtsAPI, inputs: Mapping[str, Any], body: Mapping[str, Any], start: int, since_ms: float
) -> tuple[int, str, TrainingJob | None]:
    """The first generation of the auto-name from start that is free, or held by the job declared (to adopt),
    with its name; body is the create request as sent (on the wire), whose name each generation replaces.

    Names are looked up as many at a time as a search filter takes values (ten), one search per batch, so a
    job whose earlier names are held by stopped records (every destroy-then-up keeps one) costs the same few
    calls however many there are. A service refusing that search gets start: the create then meets each held
    name in turn.
    """
    from ...wire.models import SEARCH_FILTER_MAX_VALUES as batch

    for first in range(start, naming.MAX_NAME_GENERATIONS, batch):
        generations = range(first, min(first + batch, naming.MAX_NAME_GENERATIONS))
        names = [naming.auto_name(inputs, generation) or "" for generation in generations]
        try:
            held = _holders(client, {name: _renamed(body, name) for name in names}, since_ms, operator="in")
        except SearchRejectedError:
            return start, names[0], None
        for generation, name in zip(generations, names, strict=True):
            if name not in held:
                return generation, name, None
            job, judgment = held[name]
            if judgment.holding is judging.Holding.ADOPT:
                return generation, name, job
            if judgment.holding is judging.Holding.MISMATCH:
                raise ProvisioningError(
                    f"the generated name {name!r} is held by the running {job_label(job)}, which is not the "
                    f"job declared here (it differs at {', '.join(judgment.differences) or 'its phase'}); "
                    "set metadata.name or triggers"
                )
    raise ProvisioningError(
        f"{naming.MAX_NAME_GENERATIONS} generated names for this job are all held by stopped jobs; delete "
        "old job records in ModelArts (or set on_destroy to delete), or set metadata.name or triggers"
    )


def _renamed(inputs: Mapping[str, Any], name: str) -> dict[str, Any]:
    metadata = inputs.get("metadata")
    return {**inputs, "metadata": {**(metadata if isinstance(metadata, Mapping) else {}), "name": name}}


def _create_request(inputs: Mapping[str, Any]) -> tuple[CreateTrainingJobRequest, dict[str, Any]]:
    """The create request of the inputs, validated, and its body on the wire (``to_wire``)."""
    import pydantic

    from ...wire.models import problems, to_wire, validate_create_request

    try:
        request = validate_create_request(job_body(inputs), require_name=True)
    except pydantic.ValidationError as exc:
        raise InvalidInputsError(problems(exc)) from None
    return request, to_wire(request)

"""What the state records of a job: its id and the resource's outputs (``resource_schema.ResourceOutputs``),
which are the job as the service sent it without secrets, its tags, and the inputs declared for it
(``declared_inputs``); and, for a job adopted by ``pulumi import``, the inputs it says were declared for it
(``declared_from_job``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .secret_paths import ATTRIBUTES, ENVIRONMENTS, JOB_ENVIRONMENTS, found, without

if TYPE_CHECKING:
    from ..wire.models import TrainingJob

__all__ = [
    "DECLARED_INPUTS",
    "JobState",
    "declared_from_job",
    "declared_inputs",
    "is_lookup",
    "job_outputs",
    "public_job",
    "restrict",
]

DECLARED_INPUTS = "declared_inputs"


@dataclass(frozen=True)
class JobState:
    """A job as the state records it: its id and the resource's outputs; after a refresh, the tags found
    when they changed elsewhere (``drifted_tags``: a front-end records them as the inputs' ``tags``, so the
    next preview shows the drift as a change of ``tags``)."""

    id: str
    outputs: dict[str, Any]
    drifted_tags: dict[str, str] | None = None


def is_lookup(stored: Mapping[str, Any]) -> bool:
    """Whether a read looks a job up by id (``pulumi import``, ``TrainingJob.get``) rather than refreshing
    one the state holds: only a stored job's outputs carry its last phase (the engine sends an import none,
    a lookup only what the program registered). A lookup's missing job is an error, a refresh's is news."""
    return not isinstance(stored.get("phase"), str)


def job_outputs(
    job: TrainingJob, declared: Mapping[str, Any] | None, *, tags: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The resource's outputs (``resource_schema.ResourceOutputs``): the job as the service returns it
    (JSON-ready), its tags (as last read or applied; empty when not managed) plus ``declared_inputs``, left
    out when declared is None.

    Environment variables appear only in ``environments`` (a secret output); they are removed from the
    ``algorithm`` output, which is not secret.
    """
    from ..wire.models import environments_map
    from .resource_schema import ResourceOutputs

    wire = public_job(job)
    sent = found(job, (JOB_ENVIRONMENTS,), ATTRIBUTES)
    environments = environments_map(sent[0]) if sent else {}
    if not environments and declared:
        given = found(declared, (JOB_ENVIRONMENTS,))
        if given and isinstance(given[0], Mapping):
            environments = {str(k): str(v) for k, v in given[0].items()}
    outputs = ResourceOutputs(
        kind=wire.get("kind") or "job",
        metadata=wire.get("metadata") or {},
        name=job.name or "",
        status=wire.get("status") or {},
        phase=job.phase or "",
        secondary_phase=job.secondary_phase or "",
        algorithm=wire.get("algorithm") or {},
        spec=wire.get("spec") or {},
        tasks=wire.get("tasks") or [],
        endpoints=job.endpoints.model_dump(mode="json", exclude_none=True) if job.endpoints else {},
        environments=environments,
        tags=dict(tags or {}),
        declared_inputs=dict(declared or {}),
    )
    return outputs.model_dump(exclude={DECLARED_INPUTS} if declared is None else None)


def public_job(job: TrainingJob) -> dict[str, Any]:
    """The job as JSON (the fields the service sent, nulls left out) without what must stay secret:
    environment variables (the algorithm's and every task's) and the endpoints' access tokens."""
    # What the service sent (exclude_unset): a field it left out is not an empty list or map in the state,
    # where every byte is written again at each of the engine's checkpoints.
    wire = job.model_dump(mode="json", exclude_none=True, exclude_unset=True)
    wire.pop("endpoints", None)
    public: dict[str, Any] = without(wire, ENVIRONMENTS)
    return public


def declared_inputs(outputs: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The inputs declared for the job, as its stored outputs record them (None: not recorded)."""
    declared = outputs.get(DECLARED_INPUTS)
    return declared if isinstance(declared, Mapping) else None


def declared_from_job(job: Mapping[str, Any]) -> dict[str, Any]:
    """What a job found by id (``pulumi import``) says about its declared inputs: the request fields only."""
    from ..wire.models import CreateTrainingJobRequest

    projected: dict[str, Any] = _project(job, CreateTrainingJobRequest)
    # The outputs hold {} for a job without remote access; as an input it would ask for SSH and name no key.
    if projected.get("endpoints") == {}:
        del projected["endpoints"]
    tags = job.get("tags")
    if isinstance(tags, Mapping) and tags:
        projected["tags"] = dict(tags)  # the tags found (read on import), managed from now on
    return projected


def _project(data: Any, model: Any) -> Any:
    from pydantic import BaseModel

    if not (isinstance(model, type) and issubclass(model, BaseModel)) or not isinstance(data, Mapping):
        return data
    kept: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if key not in data or extra.get("service_set"):
            continue
        kept[key] = _project_value(data[key], info.annotation)
    return kept


def _project_value(value: Any, annotation: Any) -> Any:
    model = _model_of(annotation)
    if model is None:
        return value
    if isinstance(value, list):
        return [_project(v, model) for v in value]
    return _project(value, model)


def _model_of(annotation: Any) -> Any:
    """The request model an annotation holds (through Optional, Annotated, list and dict), or None."""
    import types
    from typing import Annotated, Union, get_args, get_origin

    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = get_origin(annotation)
    if origin is Annotated:
        return _model_of(get_args(annotation)[0])
    if origin in (Union, types.UnionType, list):
        for arg in get_args(annotation):
            found = _model_of(arg)
            if found is not None:
                return found
    return None


def restrict(found: Any, declared: Any) -> Any:
    """found, keeping only what declared also says: an adopted job's extra service-filled fields are not
    differences from a program that leaves them out."""
    if isinstance(found, Mapping) and isinstance(declared, Mapping):
        return {k: restrict(v, declared[k]) for k, v in found.items() if k in declared}
    if isinstance(found, list) and isinstance(declared, list) and len(found) == len(declared):
        return [restrict(f, d) for f, d in zip(found, declared, strict=True)]
    return found

"""What the state records of a job: its id and the resource's outputs (``models.ResourceOutputs``), which are
the job as the service sent it without secrets, its tags, and the inputs declared for it
(``declared_inputs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import TrainingJob

__all__ = ["DECLARED_INPUTS", "JobState", "declared_inputs", "job_outputs", "public_job"]

DECLARED_INPUTS = "declared_inputs"


@dataclass(frozen=True)
class JobState:
    """A job as the state records it: its id and the resource's outputs."""

    id: str
    outputs: dict[str, Any]


def job_outputs(
    job: TrainingJob, declared: Mapping[str, Any] | None, *, tags: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The resource's outputs (``models.ResourceOutputs``): the job as the service returns it (JSON-ready),
    its tags (as last read or applied; empty when not managed) plus ``declared_inputs``, left out when
    declared is None.

    Environment variables appear only in ``environments`` (a secret output); they are removed from the
    ``algorithm`` output, which is not secret.
    """
    from .models import ResourceOutputs, environments_map

    wire = public_job(job)
    environments = environments_map(job.algorithm.environments) if job.algorithm is not None else {}
    if not environments and declared:
        declared_algorithm = declared.get("algorithm")
        if isinstance(declared_algorithm, Mapping):
            declared_env = declared_algorithm.get("environments")
            if isinstance(declared_env, Mapping):
                environments = {str(k): str(v) for k, v in declared_env.items()}
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
    for holder in [wire, *(t for t in wire.get("tasks") or [] if isinstance(t, dict))]:
        algorithm = holder.get("algorithm")
        if isinstance(algorithm, dict):
            algorithm.pop("environments", None)
    return wire


def declared_inputs(outputs: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The inputs declared for the job, as its stored outputs record them (None: not recorded)."""
    declared = outputs.get(DECLARED_INPUTS)
    return declared if isinstance(declared, Mapping) else None

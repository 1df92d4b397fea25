"""What a ``pulumi stack export`` says of the training jobs: the ids the state holds, the creates the engine
started and never saw finish (with the job name each one used), the stack it belongs to; and the same export
with the jobs found for those creates adopted as resources (``adopted_export``). Pure: secret values stay in
the export's encrypted form, copied, never opened.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..generated import schema_names
from ..job.recorded import DECLARED_INPUTS

if TYPE_CHECKING:
    from ..wire.models import TrainingJob

__all__ = [
    "NATIVE_TYPE",
    "TYPE_SUFFIXES",
    "Orphan",
    "PendingCreate",
    "adopted_export",
    "import_arguments",
    "pending_creates",
    "stack_identity",
    "state_job_ids",
]

# The TrainingJob resource types (their endings): the dynamic provider's and the native plugin's.
TYPE_SUFFIXES = ("modelarts:TrainingJob", "modelarts:index:TrainingJob")
NATIVE_TYPE = "modelarts:index:TrainingJob"


@dataclass(frozen=True)
class PendingCreate:
    urn: str
    job_name: str


@dataclass(frozen=True)
class Orphan:
    urn: str
    job: TrainingJob

    @property
    def job_id(self) -> str:
        return self.job.job_id or ""


def _deployment(export: Mapping[str, Any]) -> Mapping[str, Any]:
    deployment = export.get("deployment", export)
    if not isinstance(deployment, Mapping):
        raise ValueError("not a `pulumi stack export` document (no deployment)")
    return deployment


def state_job_ids(export: Mapping[str, Any]) -> set[str]:
    """Ids of the training jobs the state holds."""
    ids: set[str] = set()
    for resource in _deployment(export).get("resources") or []:
        if str(resource.get("type", "")).endswith(TYPE_SUFFIXES) and resource.get("id"):
            ids.add(str(resource["id"]))
    return ids


def pending_creates(export: Mapping[str, Any]) -> list[PendingCreate]:
    """Training-job creates the engine started and never saw finish, with the job name each one used."""
    found: list[PendingCreate] = []
    for operation in _deployment(export).get("pending_operations") or []:
        resource = operation.get("resource") or {}
        if operation.get("type") != "creating" or not str(resource.get("type", "")).endswith(TYPE_SUFFIXES):
            continue
        metadata = (resource.get("inputs") or {}).get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if isinstance(name, str) and name:
            found.append(PendingCreate(str(resource.get("urn", "")), name))
    return found


def import_arguments(orphans: Iterable[Orphan]) -> list[str] | None:
    """`--import-pending-creates URN ID` pairs, or None when a pending create matches several jobs."""
    by_urn: dict[str, list[Orphan]] = {}
    for orphan in orphans:
        by_urn.setdefault(orphan.urn, []).append(orphan)
    if any(len(group) > 1 for group in by_urn.values()):
        return None
    args: list[str] = []
    for urn, (orphan,) in by_urn.items():
        # The flag takes one value per use; the CLI reads the values as URN, ID pairs.
        args += ["--import-pending-creates", urn, "--import-pending-creates", orphan.job_id]
    return args


def adopted_export(export: Mapping[str, Any], orphans: Iterable[Orphan]) -> dict[str, Any]:
    """A copy of the export where each pending create with exactly one orphan became a resource with its id.

    `pulumi stack import` of this document puts the jobs in the state; a `pulumi refresh` then reads their
    real outputs. The outputs start as the declared inputs (``declared_inputs`` included, so the next
    `pulumi up` compares against what was declared and does not replace the job; ``declaredInputs`` for the
    native plugin, whose state holds its schema's names, as the inputs already are). Secret values stay in
    the export's encrypted form: this copies them, never opens them.
    """
    by_urn: dict[str, list[Orphan]] = {}
    for orphan in orphans:
        by_urn.setdefault(orphan.urn, []).append(orphan)
    document = json.loads(json.dumps(export))
    deployment = document.get("deployment", document)
    resources = list(deployment.get("resources") or [])
    kept_pending = []
    for operation in deployment.get("pending_operations") or []:
        resource = operation.get("resource") or {}
        group = by_urn.get(str(resource.get("urn", "")), [])
        if operation.get("type") != "creating" or len(group) != 1:
            kept_pending.append(operation)
            continue
        inputs = dict(resource.get("inputs") or {})
        declared = {k: v for k, v in inputs.items() if k != "__provider"}
        key = DECLARED_INPUTS
        if str(resource.get("type", "")).endswith(NATIVE_TYPE):
            key = schema_names.TYPES[schema_names.OUTPUTS][DECLARED_INPUTS][0]
        resources.append({**resource, "id": group[0].job_id, "outputs": {**inputs, key: declared}})
    deployment["resources"] = resources
    deployment["pending_operations"] = kept_pending
    return dict(document)


def stack_identity(export: Mapping[str, Any]) -> tuple[str, str] | None:
    """(stack, project) named by the export's URNs (``urn:pulumi:STACK::PROJECT::...``)."""
    deployment = _deployment(export)
    entries = list(deployment.get("resources") or [])
    entries += [op.get("resource") or {} for op in deployment.get("pending_operations") or []]
    for entry in entries:
        parts = str(entry.get("urn", "")).split("::")
        if len(parts) >= 2 and parts[0].startswith("urn:pulumi:"):
            return parts[0][len("urn:pulumi:") :], parts[1]
    return None

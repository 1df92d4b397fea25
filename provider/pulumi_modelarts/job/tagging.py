"""Tags on training jobs: the declared tags as a plain map, tagging a job just created (a refusal keeps the
job and leaves the difference to the next `pulumi up`), and moving a job's tags by their difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .labels import described, job_label
from .progress import Progress

if TYPE_CHECKING:
    from ..wire.api import ModelArtsAPI
    from ..wire.models import TrainingJob

__all__ = ["TAGS_FIELD", "change_tags", "tag_map", "tag_new_job", "tags_of"]

TAGS_FIELD = "tags"


def tag_map(value: object) -> dict[str, str] | None:
    """Declared tags as a plain map, or None when tags are not declared (then they are not managed)."""
    if not isinstance(value, Mapping):
        return None
    return {str(k): str(v) for k, v in value.items() if v is not None}


def tags_of(inputs: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The tags the declared inputs manage (None: tags are not managed)."""
    return tag_map(inputs.get(TAGS_FIELD)) if inputs is not None else None


def tag_new_job(
    client: ModelArtsAPI, job: TrainingJob, job_id: str, tags: Mapping[str, str], progress: Progress
) -> dict[str, str]:
    """Tag a job just created (the client retries throttling, 5xx and lost connections: the call is
    idempotent). The tags applied: all of them, or none when the service refused them.

    A refusal, or any other failure of the call (a credential source, the connection, a bug), does not undo
    the create: the job runs on untagged, lands in the state with no tags recorded as declared, and the next
    `pulumi up` shows and applies the difference. Stopping a job over its labels would cost the user the
    job; leaving it out of the state would orphan it.
    """
    try:
        client.add_tags(job_id, tags)
    except Exception as exc:
        progress.say(
            f"warning: {job_label(job, job_id)} was created but its tags were not applied "
            f"({described(exc, client.transport.scrub)}); the job is kept, and the next `pulumi up` applies "
            "them"
        )
        return {}
    progress.say(f"{job_label(job, job_id)}: {len(tags)} tag{'s' if len(tags) != 1 else ''} applied")
    return dict(tags)


def change_tags(
    client: ModelArtsAPI, job_id: str, have: Mapping[str, str], want: Mapping[str, str], progress: Progress
) -> None:
    """Move the job's tags from have to want, sending only the difference: the keys removed or whose value
    changes are deleted (with the value they have), the keys added or changed are created."""
    removed = {k: v for k, v in have.items() if want.get(k) != v}
    added = {k: v for k, v in want.items() if have.get(k) != v}
    client.remove_tags(job_id, removed)
    client.add_tags(job_id, added)
    if removed or added:
        changed = sorted({*removed, *added})
        progress.say(f"training job {job_id}: tags updated ({', '.join(changed)})")

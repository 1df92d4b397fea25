"""Find training jobs a stack created but its state does not know (after an interrupted ``pulumi up``).

When ``pulumi up`` dies after the create request reached ModelArts but before the provider could answer the
engine (SIGKILL, a crashed CI runner, a lost machine), the job exists and runs, while the state only holds a
*pending create* for its resource: the inputs, including the job name chosen at check time, but no id.
A later ``pulumi up`` creates the resource again under a new name, and the first job keeps running unseen.

    pulumi stack export --file state.json
    python -m pulumi_modelarts.orphans --stack-export state.json            # list them
    python -m pulumi_modelarts.orphans --stack-export state.json --terminate

For each pending create of a ``TrainingJob`` the job of that exact name is looked up; jobs whose id the state
does not hold are reported. Either adopt them (``--adopt-to adopted.json``, then ``pulumi stack import --file
adopted.json`` and ``pulumi refresh``: no second job is created) or stop them (``--terminate``, then ``pulumi
refresh --clear-pending-creates``). (``pulumi refresh --import-pending-creates URN ID`` would be the natural
tool, but in Pulumi 3.259 a non-interactive refresh drops the imported entries instead of keeping them.)

Connection settings come from the environment, as for the provider (``HW_MODELARTS_ENDPOINT`` or
``HW_REGION_NAME``, ``HW_PROJECT_ID``, ``HW_ACCESS_KEY``, ``HW_SECRET_KEY``, ...), and, with ``--config
FILE``, from the output of ``pulumi config --json --show-secrets`` (``modelarts:*`` keys).
Exit status: 0 nothing orphaned, 3 orphans found (and left running unless --terminate), 2 usage or
connection problem.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .client import ModelArtsClient
from .errors import ModelArtsError, NotFoundError
from .models import SearchFilter, TrainingJob
from .phases import is_terminable
from .settings import resolve_settings

__all__ = [
    "Orphan",
    "PendingCreate",
    "adopted_export",
    "find_orphans",
    "main",
    "pending_creates",
    "state_job_ids",
]

TYPE_SUFFIX = "modelarts:TrainingJob"
EXIT_FOUND = 3
EXIT_PROBLEM = 2


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
        if str(resource.get("type", "")).endswith(TYPE_SUFFIX) and resource.get("id"):
            ids.add(str(resource["id"]))
    return ids


def pending_creates(export: Mapping[str, Any]) -> list[PendingCreate]:
    """Training-job creates the engine started and never saw finish, with the job name each one used."""
    found: list[PendingCreate] = []
    for operation in _deployment(export).get("pending_operations") or []:
        resource = operation.get("resource") or {}
        if operation.get("type") != "creating" or not str(resource.get("type", "")).endswith(TYPE_SUFFIX):
            continue
        metadata = (resource.get("inputs") or {}).get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if isinstance(name, str) and name:
            found.append(PendingCreate(str(resource.get("urn", "")), name))
    return found


def find_orphans(client: ModelArtsClient, export: Mapping[str, Any]) -> list[Orphan]:
    """Jobs named by the state's pending creates whose ids the state does not hold."""
    known = state_job_ids(export)
    orphans: list[Orphan] = []
    for pending in pending_creates(export):
        for job in client.iter_jobs([SearchFilter(key="name", operator="like", value=[pending.job_name])]):
            if job.name == pending.job_name and job.job_id and job.job_id not in known:
                orphans.append(Orphan(pending.urn, job))
    return orphans


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
    `pulumi up` compares against what was declared and does not replace the job). Secret values stay in the
    export's encrypted form: this copies them, never opens them.
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
        resources.append(
            {**resource, "id": group[0].job_id, "outputs": {**inputs, "declared_inputs": declared}}
        )
    deployment["resources"] = resources
    deployment["pending_operations"] = kept_pending
    return dict(document)


def _settings_config(path: str | None) -> dict[str, str]:
    if path is None:
        return {}
    with open(path, encoding="utf-8") as handle:
        raw = json.load(handle)
    config: dict[str, str] = {}
    for key, entry in raw.items():
        value = entry.get("value") if isinstance(entry, Mapping) else entry
        if isinstance(key, str) and key.startswith("modelarts:") and value is not None:
            config[key] = str(value)
    return config


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pulumi_modelarts.orphans",
        description="List (or terminate) training jobs an interrupted `pulumi up` left out of the state.",
    )
    p.add_argument("--stack-export", required=True, help="file written by `pulumi stack export --file FILE`")
    p.add_argument(
        "--config", help="file written by `pulumi config --json --show-secrets` (modelarts:* keys)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    # Adopting and terminating are the two answers to one question: choose one.
    action = p.add_mutually_exclusive_group()
    action.add_argument("--terminate", action="store_true", help="terminate the orphans that still run")
    action.add_argument(
        "--adopt-to",
        metavar="FILE",
        help="write the export with the orphans as resources (for `pulumi stack import --file FILE`)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with open(args.stack_export, encoding="utf-8") as handle:
            export = json.load(handle)
        settings = resolve_settings(_settings_config(args.config), os.environ)
        with ModelArtsClient.from_settings(settings) as client:
            orphans = find_orphans(client, export)
            terminated: list[str] = []
            if args.terminate:
                for orphan in orphans:
                    if is_terminable(orphan.job.phase):
                        try:
                            client.terminate_job(orphan.job_id)
                        except NotFoundError:
                            continue
                        terminated.append(orphan.job_id)
    except (OSError, ValueError, ModelArtsError) as exc:
        # ModelArtsError and SettingsError messages never carry credentials.
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    imports = import_arguments(orphans)
    if args.adopt_to and not args.terminate:
        with open(args.adopt_to, "w", encoding="utf-8") as handle:
            json.dump(adopted_export(export, orphans), handle, indent=2)
    if args.json:
        print(
            json.dumps(
                {
                    "orphans": [
                        {"urn": o.urn, "id": o.job_id, "name": o.job.name, "phase": o.job.phase}
                        for o in orphans
                    ],
                    "terminated": terminated,
                    "import_pending_creates": imports,
                },
                indent=2,
            )
        )
    else:
        _print_text(orphans, terminated, imports, len(pending_creates(export)))
    return EXIT_FOUND if orphans else 0


def _print_text(
    orphans: list[Orphan], terminated: list[str], imports: list[str] | None, pending: int
) -> None:
    if not orphans:
        print(f"no orphaned training jobs ({pending} pending create(s) in the state, none reached ModelArts)")
        return
    print(f"{len(orphans)} training job(s) exist that the state does not know:")
    for orphan in orphans:
        state = "terminated now" if orphan.job_id in terminated else orphan.job.phase or "unknown phase"
        print(f"  {orphan.job_id}  {orphan.job.name}  ({state})  for {orphan.urn}")
    if terminated:
        print("Then drop the pending creates: pulumi refresh --clear-pending-creates --yes")
    elif imports:
        print("Adopt them into the state (no second job is created): run this command again with")
        print(
            "--adopt-to adopted.json, then: pulumi stack import --file adopted.json && pulumi refresh --yes"
        )
    else:
        print("Several jobs match one pending create: terminate the extra ones, then adopt the one to keep.")


if __name__ == "__main__":
    raise SystemExit(main())

"""The package's functions (invokes), below both front-ends: ``getTrainingJobs``, ``getTrainingJobFlavors``
and ``getTrainingJobEngines``. Each reads its arguments (wire names, as ``schema_names.FUNCTIONS`` translates
them), opens the client once and answers its one result as plain data in wire names. The native plugin serves
them by token (``BY_TOKEN``); the dynamic front-end's ``get_training_*`` lookups call them by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..job.progress import Progress
from .shared import find_jobs

__all__ = ["BY_TOKEN", "Function", "training_job_engines", "training_job_flavors", "training_jobs"]

#: A function: (the provider configuration, where progress goes, its arguments) -> its result.
Function = Callable[[Mapping[str, str], Progress, Mapping[str, Any]], dict[str, Any]]


def _text(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return str(value) if value not in (None, "") else None


def _millis(args: Mapping[str, Any], key: str) -> int | None:
    value = args.get(key)
    return None if value is None else int(value)


def training_jobs(config: Mapping[str, str], progress: Progress, args: Mapping[str, Any]) -> dict[str, Any]:
    """``{"jobs": [...]}``: every job the search finds (``shared.find_jobs``)."""
    jobs = find_jobs(
        config,
        progress,
        name=_text(args, "name"),
        phases=[str(p) for p in args.get("phases") or []],
        kind=_text(args, "kind"),
        created_after_ms=_millis(args, "created_after"),
        created_before_ms=_millis(args, "created_before"),
        tags=args.get("tags"),
        sort_by=_text(args, "sort_by"),
        order=_text(args, "order"),
    )
    return {"jobs": jobs}


def training_job_flavors(
    config: Mapping[str, str], progress: Progress, args: Mapping[str, Any]
) -> dict[str, Any]:
    """``{"flavors": [...]}``: the public-pool flavors the account is offered, of one type or all."""
    from ..job import core
    from ..job.catalogue import offered_flavors

    with core.open_client(config, progress) as client:
        return {"flavors": offered_flavors(client, _text(args, "flavor_type"))}


def training_job_engines(
    config: Mapping[str, str], progress: Progress, args: Mapping[str, Any]
) -> dict[str, Any]:
    """``{"engines": [...]}``: the preset engines the account lists."""
    from ..job import core
    from ..job.catalogue import offered_engines

    with core.open_client(config, progress) as client:
        return {"engines": offered_engines(client)}


#: Each function by its schema token.
BY_TOKEN: dict[str, Function] = {
    "modelarts:index:getTrainingJobs": training_jobs,
    "modelarts:index:getTrainingJobFlavors": training_job_flavors,
    "modelarts:index:getTrainingJobEngines": training_job_engines,
}

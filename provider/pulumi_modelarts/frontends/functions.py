"""The package's functions (invokes), below both front-ends: ``getTrainingJobs``, ``getTrainingJobFlavors``
and ``getTrainingJobEngines``. Each reads its arguments (wire names, as ``schema_names.FUNCTIONS`` translates
them), opens the client once and answers its one result as plain data in wire names. The native plugin serves
them by token (``BY_TOKEN``); the dynamic front-end's ``get_training_*`` lookups call them by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..job.progress import Progress

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
    """``{"jobs": [...]}``: every job the search finds (``find_jobs``)."""
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


def find_jobs(
    config: Mapping[str, str],
    progress: Progress,
    *,
    name: str | None = None,
    phases: Sequence[str] = (),
    kind: str | None = None,
    created_after_ms: int | None = None,
    created_before_ms: int | None = None,
    tags: Mapping[str, str] | None = None,
    sort_by: str | None = None,
    order: str | None = None,
) -> list[dict[str, Any]]:
    """Every page of the search, as the lookup answers it (no secrets); sort_by and order left out are the
    service's: create_time, newest first.

    Raises ValueError naming the filter the service would refuse, before any call.
    """
    from ..job import core
    from ..job.tagging import tag_map

    try:
        filters = core.search_filters(
            name=name,
            phases=list(phases),
            kind=kind,
            created_after_ms=created_after_ms,
            created_before_ms=created_before_ms,
        )
    except ValueError as exc:  # pydantic's ValidationError: a filter the service would refuse
        errors = getattr(exc, "errors", None)
        reasons = [str(e["msg"]) for e in errors()] if callable(errors) else [str(exc)]
        raise ValueError("; ".join(reasons)) from None
    with core.open_client(config, progress) as client:
        return core.list_jobs(client, filters, sort_by=sort_by, order=order, tags=tag_map(tags))

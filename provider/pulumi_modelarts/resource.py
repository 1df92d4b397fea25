"""The ``TrainingJob`` resource and the ``get_training_jobs`` lookup.

    job = TrainingJob("train",
        algorithm={"engine": {"image_url": "org/img:1"}, "command": "python train.py"},
        spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
        wait_for="running")

Secrets: ``algorithm.environments`` is wrapped in ``pulumi.Output.secret`` before registration, so the
state's inputs hold it encrypted; the outputs ``declared_inputs``, ``environments`` and ``endpoints`` are
always secret (``additional_secret_outputs``), and the non-secret ``algorithm`` output carries no
environment variables.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import pulumi
import pulumi.dynamic
from pulumi import _types

from .inputs import (
    TrainingJobAlgorithmArgs,
    TrainingJobAlgorithmArgsDict,
    TrainingJobArgs,
    TrainingJobMetadataArgs,
    TrainingJobMetadataArgsDict,
    TrainingJobSpecArgs,
    TrainingJobSpecArgsDict,
)
from .provider import TrainingJobProvider

# ruff: noqa: UP007, UP045  (Optional/Union spelled out, as generated SDKs do)

__all__ = ["SECRET_OUTPUTS", "TrainingJob", "get_training_jobs"]

SECRET_OUTPUTS = ["declared_inputs", "environments", "endpoints"]
_OUTPUT_ONLY = ("declared_inputs", "name", "status", "phase", "secondary_phase", "endpoints", "environments")
_ARG_NAMES = (
    "metadata",
    "algorithm",
    "spec",
    "tasks",
    "kind",
    "wait_for",
    "wait_timeout",
    "triggers",
    "replace_when_failed",
    "name_prefix",
)


def _plain(value: Any) -> Any:
    """Input-type objects (``...Args``) turned into dicts, recursively; Outputs and plain values untouched."""
    if value is not None and _types.is_input_type(type(value)):
        return {k: _plain(v) for k, v in _types.input_type_to_dict(value).items() if v is not None}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _with_secret_environments(algorithm: Any) -> Any:
    if algorithm is None:
        return None
    if isinstance(algorithm, Mapping):
        env = algorithm.get("environments")
        if env is None:
            return dict(algorithm)
        return {**algorithm, "environments": pulumi.Output.secret(env)}

    # The whole algorithm is not known yet (an Output): mark it secret once it resolves with environments.
    def mark(resolved: Any) -> Any:
        resolved = _plain(resolved)
        if isinstance(resolved, Mapping) and resolved.get("environments") is not None:
            return {**resolved, "environments": pulumi.Output.secret(resolved["environments"])}
        return resolved

    return pulumi.Output.from_input(algorithm).apply(mark)


class TrainingJob(pulumi.dynamic.Resource, module="modelarts", name="TrainingJob"):
    """A ModelArts training job.

    Only ``metadata.description`` changes in place; any other change to the job (and any change to
    ``triggers``) creates a new job. The old job is terminated first (delete-before-replace): a replaced job
    is obsolete, and two live jobs must not share a name.
    """

    kind: pulumi.Output[str]
    """Job type (``job``)."""
    metadata: pulumi.Output[dict[str, Any]]
    """Metadata as the service returns it: id, name (also the generated one), description, create_time..."""
    name: pulumi.Output[str]
    """The job's name."""
    status: pulumi.Output[dict[str, Any]]
    """phase, secondary_phase, duration (ms), start_time, tasks, task_statuses, running_records."""
    phase: pulumi.Output[str]
    """Level-1 phase as last seen (Creating, Pending, Running, Completed, Failed, Terminated, ...)."""
    secondary_phase: pulumi.Output[str]
    """Level-2 phase as last seen."""
    algorithm: pulumi.Output[dict[str, Any]]
    """The algorithm as the service returns it, without environment variables."""
    spec: pulumi.Output[dict[str, Any]]
    """The spec as the service returns it (flavor details, log path, volumes...)."""
    tasks: pulumi.Output[list[dict[str, Any]]]
    """Tasks of a heterogeneous job, as returned."""
    endpoints: pulumi.Output[dict[str, Any]]
    """Remote access endpoints (SSH, JupyterLab, TensorBoard), with tokens. Secret."""
    environments: pulumi.Output[dict[str, str]]
    """Environment variables of the job. Secret."""
    declared_inputs: pulumi.Output[dict[str, Any]]
    """The inputs as declared (normalised); what changes are judged against. Secret."""

    def __init__(
        self,
        resource_name: str,
        args: Optional[TrainingJobArgs] = None,
        opts: Optional[pulumi.ResourceOptions] = None,
        *,
        metadata: Optional[pulumi.Input[Union[TrainingJobMetadataArgs, TrainingJobMetadataArgsDict]]] = None,
        algorithm: Optional[
            pulumi.Input[Union[TrainingJobAlgorithmArgs, TrainingJobAlgorithmArgsDict]]
        ] = None,
        spec: Optional[pulumi.Input[Union[TrainingJobSpecArgs, TrainingJobSpecArgsDict]]] = None,
        tasks: Optional[pulumi.Input[Sequence[Mapping[str, Any]]]] = None,
        kind: Optional[pulumi.Input[str]] = None,
        wait_for: Optional[pulumi.Input[str]] = None,
        wait_timeout: Optional[pulumi.Input[Union[float, str]]] = None,
        triggers: Optional[Any] = None,
        replace_when_failed: Optional[pulumi.Input[bool]] = None,
        name_prefix: Optional[pulumi.Input[str]] = None,
    ) -> None:
        """
        :param resource_name: The Pulumi resource name; also the default prefix of the job name.
        :param args: All arguments as one ``TrainingJobArgs`` (or pass them as keywords).
        :param opts: Resource options.
        """
        given: dict[str, Any] = {
            "metadata": metadata,
            "algorithm": algorithm,
            "spec": spec,
            "tasks": tasks,
            "kind": kind,
            "wait_for": wait_for,
            "wait_timeout": wait_timeout,
            "triggers": triggers,
            "replace_when_failed": replace_when_failed,
            "name_prefix": name_prefix,
        }
        if args is not None:
            for key in _ARG_NAMES:
                if given[key] is None:
                    given[key] = getattr(args, key)
        reading = opts is not None and opts.id is not None
        props: dict[str, Any] = {key: _plain(value) for key, value in given.items()}
        if not reading:
            # Dynamic providers never see the resource name: pass it in for auto-naming.
            if props["name_prefix"] is None:
                props["name_prefix"] = resource_name
            props["algorithm"] = _with_secret_environments(props["algorithm"])
        for key in _OUTPUT_ONLY:
            props[key] = None
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=list(SECRET_OUTPUTS))
        )
        super().__init__(TrainingJobProvider(), resource_name, props, opts)

    @staticmethod
    def get(
        resource_name: str, id: pulumi.Input[str], opts: Optional[pulumi.ResourceOptions] = None
    ) -> TrainingJob:
        """Look up an existing training job by id (read-only: Pulumi will not change or delete it)."""
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(id=id))
        return TrainingJob(resource_name, opts=opts)


def _millis(value: Union[_dt.datetime, int, float, None]) -> str:
    if value is None:
        return ""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return str(int(value.timestamp() * 1000))
    return str(int(value))


def _program_config() -> dict[str, str]:
    from pulumi.runtime.config import get_config

    from .settings import CONFIG_NAMESPACE, SOURCES

    found: dict[str, str] = {}
    for config_key, _env in SOURCES.values():
        full = f"{CONFIG_NAMESPACE}:{config_key}"
        value = get_config(full)
        if value is not None:
            found[full] = str(value)
    return found


def get_training_jobs(
    name: Optional[str] = None,
    phase: Optional[Union[str, Sequence[str]]] = None,
    created_after: Union[_dt.datetime, int, float, None] = None,
    created_before: Union[_dt.datetime, int, float, None] = None,
    *,
    kind: Optional[str] = None,
    sort_by: str = "create_time",
    order: str = "desc",
) -> list[dict[str, Any]]:
    """Training jobs of the project, newest first, as plain dicts (all pages of the search API).

    name matches as a substring ("like"); phase is one phase or a list; created_after/created_before are
    datetimes (naive = UTC) or epoch milliseconds. Settings come from ``pulumi.Config("modelarts")`` and the
    environment, as for the resource. Environment variables and endpoint tokens are left out of the result,
    which is not secret.
    """
    from .client import ModelArtsClient
    from .models import SearchFilter
    from .settings import resolve_settings

    filters: list[SearchFilter] = []
    if name:
        filters.append(SearchFilter(key="name", operator="like", value=[name]))
    if phase:
        phases = [phase] if isinstance(phase, str) else list(phase)
        filters.append(SearchFilter(key="phase", operator="in", value=phases))
    if kind:
        filters.append(SearchFilter(key="kind", operator="in", value=[kind]))
    if created_after is not None or created_before is not None:
        filters.append(
            SearchFilter(
                key="create_time",
                operator="between",
                value=[_millis(created_after), _millis(created_before)],
            )
        )
    settings = resolve_settings(_program_config(), os.environ)
    jobs: list[dict[str, Any]] = []
    with ModelArtsClient.from_settings(settings) as client:
        for job in client.iter_jobs(filters, sort_by=sort_by, order=order):
            data = job.model_dump(mode="json", exclude_none=True)
            if isinstance(data.get("algorithm"), dict):
                data["algorithm"].pop("environments", None)
            data.pop("endpoints", None)
            jobs.append(data)
    return jobs

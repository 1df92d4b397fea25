"""Turning a create request into the job the service answers with (pure; no status, which is computed later).

The service fills in fields the caller never sent: metadata ids and times, the ``job_template`` annotation
("Template DL", or "Template RL" for heterogeneous jobs), spec.resource.policy/flavor_name/flavor_detail,
``spec.runtime_type`` ("production"), parameter constraints, local_dir for inputs and outputs, and for a
custom image ``engine.install_sys_packages`` and ``engine.image_repo_id``; it answers algorithm.environments
as an array of maps although the request sends a map, and drops null or empty leftovers such as
log_export_path.obs_url "". Everything else the request carried (the official SDK's extra fields included)
comes back as sent.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from typing import Any

from .catalogue import FLAVORS

JOB_TEMPLATE = "job_template"

_CONSTRAINT = {
    "type": "String",
    "editable": True,
    "required": False,
    "sensitive": False,
    "valid_type": "None",
    "valid_range": [],
}


_PARAMETER_DEFAULTS: dict[str, Any] = {"description": "", "i18n_description": None, "constraint": _CONSTRAINT}


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def _channels(channels: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    out = []
    for channel in channels:
        filled = dict(channel)
        filled.setdefault("local_dir", f"/home/ma-user/modelarts/{kind}/{channel.get('name', 'data')}_0")
        out.append(filled)
    return out


def _algorithm(algorithm: dict[str, Any]) -> dict[str, Any]:
    out = dict(algorithm)
    if "parameters" in out:
        out["parameters"] = [
            {**param, **{k: v for k, v in _PARAMETER_DEFAULTS.items() if k not in param}}
            for param in out["parameters"]
        ]
    for kind in ("inputs", "outputs"):
        if kind in out:
            out[kind] = _channels(out[kind], kind)
    engine = out.get("engine")
    if isinstance(engine, Mapping) and engine.get("image_url"):
        out["engine"] = {"install_sys_packages": False, "image_repo_id": "", **engine}
    if "environments" in out and isinstance(out["environments"], Mapping):
        # The create request sends a map; answers carry an array of maps (one per variable here).
        out["environments"] = [{key: value} for key, value in out["environments"].items()]
    return out


def _spec(spec: dict[str, Any]) -> dict[str, Any]:
    out = dict(spec)
    resource = dict(out.get("resource") or {})
    if resource:
        resource.setdefault("policy", "regular")
        # A public flavor the catalogue lists gets its details; any other flavor is accepted without them.
        flavor = FLAVORS.get(str(resource.get("flavor_id", "")))
        if flavor is not None and "pool_id" not in resource:
            resource.setdefault("flavor_name", flavor["flavor_name"])
            resource.setdefault("flavor_detail", copy.deepcopy(flavor["flavor_detail"]))
        elif "flavor_id" in resource:
            resource.setdefault("flavor_name", resource["flavor_id"])
        out["resource"] = resource
    if "log_export_path" in out:
        out["log_export_path"] = {
            k: v for k, v in dict(out["log_export_path"]).items() if v not in ("", None)
        }
    out.setdefault("runtime_type", "production")
    return out


def tasks_of(job: Mapping[str, Any]) -> list[str]:
    """Task names the status lists: one worker per requested node."""
    resource = (job.get("spec") or {}).get("resource") or {}
    count = resource.get("node_count", 1)
    return [f"worker-{i}" for i in range(count if isinstance(count, int) and count > 0 else 1)]


def task_ips(job: Mapping[str, Any], tasks: list[str]) -> list[dict[str, Any]]:
    """Where each task runs: a container IP and, on a dedicated pool, its host's IP (both from the job id)."""
    digest = hashlib.sha256(str(job["metadata"]["id"]).encode()).digest()
    on_pool = bool(((job.get("spec") or {}).get("resource") or {}).get("pool_id"))
    return [
        {
            "task": task,
            "ip": f"172.16.{digest[0]}.{10 + index}",
            "host_ip": f"192.168.{digest[1]}.{10 + index}" if on_pool else "",
            "schedule_count": 1,
        }
        for index, task in enumerate(tasks)
    ]


def build_job(
    request: Mapping[str, Any], *, job_id: str, create_time_ms: int, user_name: str
) -> dict[str, Any]:
    """The stored job for a validated create request (without status)."""
    body = _drop_nulls(copy.deepcopy(dict(request)))
    kind = body.get("kind", "job")
    metadata = dict(body.get("metadata") or {})
    template = "Template RL" if kind == "hetero_job" else "Template DL"
    job: dict[str, Any] = {
        "kind": kind,
        "metadata": {
            "id": job_id,
            "name": metadata.get("name", ""),
            "description": metadata.get("description", ""),
            "create_time": create_time_ms,
            "workspace_id": metadata.get("workspace_id", "0"),
            "user_name": user_name,
            "annotations": {JOB_TEMPLATE: template, **(metadata.get("annotations") or {})},
        },
    }
    if "training_experiment_reference" in metadata:
        job["metadata"]["training_experiment_reference"] = metadata["training_experiment_reference"]
    if "algorithm" in body:
        job["algorithm"] = _algorithm(body["algorithm"])
    if "tasks" in body:
        job["tasks"] = body["tasks"]
    if "spec" in body:
        job["spec"] = _spec(body["spec"])
    for key in ("endpoints", "train_type", "ftjob_config"):
        if key in body:
            job[key] = body[key]
    return job

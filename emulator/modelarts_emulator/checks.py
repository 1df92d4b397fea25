"""The emulator's own checks of request bodies, written from the API pages and the official SDK's models.

A body is checked against a small declarative schema: every object lists the fields it accepts (unknown keys
are errors naming their path), fields have types and limits, and a few rules relate fields of one object.
Only what the service is known to refuse, or a request that names nothing to act on, is refused: the pages'
advice ("must be used together with", "leave it blank if") is not, because the real service accepts requests
that ignore it (Huawei's Terraform acceptance tests send an algorithm id with code_dir and boot_file, an
engine_id with engine_name and engine_version, and code_dir with a command but no boot_file). ``null``
means "not given" for optional fields, as the pages' own examples send it. Each problem is a (path, message)
pair such as ``("spec.resource.node_count", "must be at least 1")``.

The create schema accepts the union of the create page's fields and the official SDK's create request (its
``Job`` model), so a client may send either.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .lifecycle import HOOK_PREFIX, hook_problems

Problem = tuple[str, str]
Check = Callable[[Any, str, list[Problem]], None]
Rule = Callable[[Mapping[str, Any]], Iterable[Problem]]

NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
KINDS = ("job", "hetero_job", "autosearch_job", "mrs_job", "edge_job")


def _join(path: str, key: str) -> str:
    if not key:
        return path
    return f"{path}.{key}" if path else key


def _given(value: Any) -> bool:
    # The pages say "leave it blank": an empty string counts as not given.
    return value is not None and value != ""


def text(*, max_len: int | None = None, pattern: re.Pattern[str] | None = None, hint: str = "") -> Check:
    def check(value: Any, path: str, out: list[Problem]) -> None:
        if not isinstance(value, str):
            out.append((path, "must be a string"))
        elif max_len is not None and len(value) > max_len:
            out.append((path, f"must be at most {max_len} characters"))
        elif pattern is not None and not pattern.fullmatch(value):
            out.append((path, hint or f"must match {pattern.pattern}"))

    return check


def choice(*options: str) -> Check:
    def check(value: Any, path: str, out: list[Problem]) -> None:
        if value not in options:
            out.append((path, f"must be one of {', '.join(options)}"))

    return check


def integer(*, minimum: int | None = None, maximum: int | None = None) -> Check:
    def check(value: Any, path: str, out: list[Problem]) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            out.append((path, "must be an integer"))
        elif minimum is not None and value < minimum:
            out.append((path, f"must be at least {minimum}"))
        elif maximum is not None and value > maximum:
            out.append((path, f"must be at most {maximum}"))

    return check


def number(*, minimum: float | None = None) -> Check:
    def check(value: Any, path: str, out: list[Problem]) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            out.append((path, "must be a number"))
        elif minimum is not None and value < minimum:
            out.append((path, f"must be at least {minimum:g}"))

    return check


def boolean() -> Check:
    def check(value: Any, path: str, out: list[Problem]) -> None:
        if not isinstance(value, bool):
            out.append((path, "must be true or false"))

    return check


def array(item: Check, *, max_items: int | None = None) -> Check:
    def check(value: Any, path: str, out: list[Problem]) -> None:
        if not isinstance(value, list):
            out.append((path, "must be a list"))
            return
        if max_items is not None and len(value) > max_items:
            out.append((path, f"must have at most {max_items} items"))
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]", out)

    return check


def string_map() -> Check:
    """A ``Map<String,String>``."""

    def check(value: Any, path: str, out: list[Problem]) -> None:
        if not isinstance(value, Mapping):
            out.append((path, "must be an object of strings"))
            return
        for key, element in value.items():
            if not isinstance(element, str):
                out.append((_join(path, str(key)), "must be a string"))

    return check


def obj(fields: Mapping[str, Check], *, required: Sequence[str] = (), rules: Sequence[Rule] = ()) -> Check:
    """An object with exactly these fields; ``rules`` run only when the fields themselves are fine."""

    def check(value: Any, path: str, out: list[Problem]) -> None:
        if not isinstance(value, Mapping):
            out.append((path or "body", "must be an object"))
            return
        before = len(out)
        for key in value:
            if key not in fields:
                out.append((_join(path, str(key)), "is not a known field"))
        for key in required:
            if value.get(key) is None:
                out.append((_join(path, key), "is required"))
        for key, field_check in fields.items():
            if value.get(key) is not None:
                field_check(value[key], _join(path, key), out)
        if len(out) == before:
            for rule in rules:
                out.extend((_join(path, at), message) for at, message in rule(value))

    return check


# ------------------------------------------------------------------------------------------------ rules


def one_of(*keys: str) -> Rule:
    """An object that is one of several kinds must be at least one (the pages do not say the service
    refuses two)."""

    def rule(value: Mapping[str, Any]) -> Iterable[Problem]:
        if not any(value.get(key) is not None for key in keys):
            yield "", f"must have one of {', '.join(keys)}"

    return rule


def _algorithm_source(value: Mapping[str, Any]) -> Iterable[Problem]:
    # Create page: an algorithm is given by id, by subscription_id + item_version_id, or by code/image on an
    # engine. The pages' "leave it blank" for the others is advice the service does not enforce.
    if any(_given(value.get(key)) for key in ("id", "subscription_id", "item_version_id")):
        return
    if value.get("engine") is None:
        own = [key for key in ("code_dir", "boot_file", "command") if _given(value.get(key))]
        if own:
            yield "engine", f"is required to run {own[0]}"
        else:
            yield "", "needs id, subscription_id with item_version_id, or an engine"


def _engine_choice(value: Mapping[str, Any]) -> Iterable[Problem]:
    # "The value can be engine_id, engine_name + engine_version, or image_url"; an engine naming none of them
    # names nothing to run on. Extra fields beside engine_id are accepted, as by the service.
    if not any(_given(value.get(k)) for k in ("engine_id", "engine_name", "engine_version", "image_url")):
        yield "", "needs engine_id, engine_name with engine_version, or image_url"


def _flavor_or_pool(value: Mapping[str, Any]) -> Iterable[Problem]:
    if not any(_given(value.get(k)) for k in ("flavor_id", "pool_id", "pool_group_id")):
        yield "flavor_id", "is required (or pool_id for a dedicated pool)"


def _job_body(value: Mapping[str, Any]) -> Iterable[Problem]:
    if value.get("algorithm") is None and not value.get("tasks"):
        yield "algorithm", "is required (or tasks for a heterogeneous job)"


# ------------------------------------------------------------------------------------------------ schemas

STR = text()
INT = integer()
BOOL = boolean()
STRINGS = array(STR)

_CONSTRAINT = obj(
    {
        "type": STR,
        "editable": BOOL,
        "required": BOOL,
        "sensitive": BOOL,
        "valid_type": STR,
        "valid_range": STRINGS,
    }
)
_PARAMETER = obj(
    {
        "name": STR,
        "value": STR,
        "description": STR,
        "constraint": _CONSTRAINT,
        "i18n_description": obj({"language": STR, "description": STR}),
    }
)
_AUTO_SEARCH = obj(
    {
        "skip_search_params": STR,
        "reward_attrs": array(obj({"name": STR, "mode": STR, "regex": STR})),
        "search_params": array(
            obj(
                {
                    "name": STR,
                    "param_type": STR,
                    "lower_bound": STR,
                    "upper_bound": STR,
                    "discrete_points_num": STR,
                    "discrete_values": STRINGS,
                }
            )
        ),
        "algo_configs": array(
            obj({"name": STR, "params": array(obj({"key": STR, "value": STR, "type": STR}))})
        ),
    }
)
_OBS = obj({"obs_url": text(max_len=1024)}, required=("obs_url",))
_DATASET = obj(
    {
        "id": STR,
        "version_id": STR,
        "obs_url": STR,
        "service_type": STR,
        "name": STR,
        "dataset_proportion": integer(minimum=0),
    },
    required=("id", "version_id"),
)
_INPUT_REMOTE = obj({"dataset": _DATASET, "obs": _OBS}, rules=(one_of("dataset", "obs"),))
_INPUT = obj(
    {
        "name": STR,
        "description": STR,
        "local_dir": STR,
        "access_method": STR,
        "remote": _INPUT_REMOTE,
        "remote_constraint": array(obj({"data_type": STR, "attributes": STR})),
    },
    required=("name", "remote"),
)
_OUTPUT = obj(
    {
        "name": STR,
        "description": STR,
        "local_dir": STR,
        "access_method": STR,
        "remote": obj({"obs": _OBS}, required=("obs",)),
        "mode": STR,
        "period": STR,
    },
    required=("name", "remote"),
)
_ENGINE = obj(
    {
        "engine_id": STR,
        "engine_name": STR,
        "engine_version": STR,
        "image_url": STR,
        "install_sys_packages": BOOL,
        "image_repo_id": STR,
    },
    rules=(_engine_choice,),
)
_SUMMARY = obj(
    {
        "log_type": STR,
        "log_dir": obj({"pfs": obj({"pfs_path": STR})}),
        "data_sources": array(obj({"job": obj({"job_id": STR}), "nfs": obj({"nfs_path": STR})})),
    }
)
ALGORITHM = obj(
    {
        "id": STR,
        "name": STR,
        "subscription_id": STR,
        "item_version_id": STR,
        "code_dir": STR,
        "boot_file": STR,
        "autosearch_config_path": STR,
        "autosearch_framework_path": STR,
        "command": STR,
        "parameters": array(_PARAMETER),
        "policies": obj({"auto_search": _AUTO_SEARCH}),
        "inputs": array(_INPUT),
        "outputs": array(_OUTPUT),
        "engine": _ENGINE,
        "local_code_dir": STR,
        "working_dir": STR,
        "environments": string_map(),
        "summary": _SUMMARY,
    },
    rules=(_algorithm_source,),
)

_TASK_ENGINE = obj(
    {"engine_id": STR, "engine_name": STR, "engine_version": STR, "image_url": STR, "run_user": STR}
)
_TASK = obj(
    {
        "role": STR,
        "algorithm": obj(
            {
                "job_config": obj(
                    {
                        "parameters": array(_PARAMETER),
                        "inputs": array(_INPUT),
                        "outputs": array(_OUTPUT),
                        "engine": _TASK_ENGINE,
                    }
                ),
                "code_dir": STR,
                "boot_file": STR,
                "engine": _TASK_ENGINE,
                "inputs": array(
                    obj(
                        {"name": STR, "description": STR, "local_dir": STR, "remote": _INPUT_REMOTE},
                        required=("name", "remote"),
                    )
                ),
                "outputs": array(
                    obj(
                        {
                            "name": STR,
                            "description": STR,
                            "local_dir": STR,
                            "remote": obj({"obs": _OBS}, required=("obs",)),
                        },
                        required=("name", "remote"),
                    )
                ),
                "local_code_dir": STR,
                "working_dir": STR,
                "environments": string_map(),
            },
        ),
        "task_resource": obj(
            {"flavor_id": STR, "node_count": integer(minimum=1), "pool_id": STR}, required=("node_count",)
        ),
        "log_export_path": obj({"obs_url": STR}),
    }
)

_SELECTOR_REQUIREMENT = obj({"key": STR, "operator": STR, "values": STRINGS})
_SELECTOR_TERM = obj(
    {"matchExpressions": array(_SELECTOR_REQUIREMENT), "matchFields": array(_SELECTOR_REQUIREMENT)}
)
_SCHEDULE_POLICY = obj(
    {
        "required_affinity": obj(
            {
                "affinity_type": STR,
                "job_level": STR,
                "affinity_group_size": integer(minimum=1),
                "affinity_group_level": STR,
                "node_affinity": obj({"nodeSelectorTerms": array(_SELECTOR_TERM)}),
            }
        ),
        "preferred_affinity": obj(
            {"node_affinity": array(obj({"weight": INT, "preference": _SELECTOR_TERM}))}
        ),
        "priority": INT,
        "preemptible": BOOL,
    }
)
_DURATION = obj({"time_unit": STR, "duration": integer(minimum=1)})
_LOCAL_PATH = {"local_path": STR}
SPEC = obj(
    {
        "resource": obj(
            {
                "flavor_id": STR,
                "node_count": integer(minimum=1),
                "pool_id": STR,
                "pool_group_id": STR,
                "main_container_customized_flavor": obj(
                    {
                        "cpu_core_num": number(minimum=0),
                        "mem_size": number(minimum=0),
                        "accelerator_num": number(minimum=0),
                    }
                ),
            },
            rules=(_flavor_or_pool,),
        ),
        "volumes": array(
            obj(
                {
                    "nfs": obj({"nfs_server_path": STR, **_LOCAL_PATH, "read_only": BOOL}),
                    "pfs": obj({"pfs_path": STR, **_LOCAL_PATH}),
                    "obs": obj({"obs_path": STR, **_LOCAL_PATH}),
                },
                rules=(one_of("nfs", "pfs", "obs"),),
            )
        ),
        "log_export_path": obj({"obs_url": STR, "host_path": STR}),
        "auto_stop": _DURATION,
        "retention": obj({"policy": STR}),
        "schedule_policy": _SCHEDULE_POLICY,
        "runtime_type": STR,
        "log_export_config": obj({"version": STR, "rotation_enabled": BOOL}),
        "notification": obj({"topic_urn": STR, "events": STRINGS}),
        "custom_metrics": array(
            obj({"exec": obj({"command": STRINGS}), "http_get": obj({"path": STR, "port": INT})})
        ),
        "output_model": obj({"obs": obj({"obs_path": STR, **_LOCAL_PATH})}),
        "asset_model": obj(
            {
                key: STR
                for key in (
                    "name",
                    "code",
                    "version",
                    "desc",
                    "series",
                    "type",
                    "model_desc",
                    "parent_asset_id",
                )
            }
        ),
        "asset_id": STR,
        "reserved_time": _DURATION,
    }
)

METADATA = obj(
    {
        "id": STR,
        "name": text(pattern=NAME_RE, hint="must be 1 to 64 letters, digits, '_' or '-'"),
        "workspace_id": STR,
        "description": text(max_len=256),
        "create_time": INT,
        "user_name": STR,
        "annotations": string_map(),
        "training_experiment_reference": obj({"id": STR, "name": STR, "description": STR}),
    },
    required=("name",),
)
_FTJOB_CONFIG = obj(
    {
        "ft_job_uuid": STR,
        "ft_train_type": STR,
        "model_type": STR,
        "train_output_path": STR,
        "train_process": number(minimum=0),
        "checkpoint_id": STR,
        "task_env": obj(
            {
                "envs": array(
                    obj(
                        {
                            "label": STR,
                            "des": STR,
                            "env_name": STR,
                            "env_type": STR,
                            "value": STR,
                            "modifiable": BOOL,
                            "displayable": BOOL,
                            "used_steps": STRINGS,
                        }
                    )
                )
            }
        ),
        "checkpoint_config": obj(
            {
                "checkpoint_id": STR,
                "save_checkpoints_max": integer(minimum=1),
                "skipped_steps": integer(minimum=0),
                "restore_training": INT,
            }
        ),
    }
)
CREATE = obj(
    {
        "kind": choice(*KINDS),
        "metadata": METADATA,
        "algorithm": ALGORITHM,
        "tasks": array(_TASK),
        "spec": SPEC,
        "endpoints": obj({"ssh": obj({"key_pair_names": STRINGS})}),
        "train_type": STR,
        "ftjob_config": _FTJOB_CONFIG,
    },
    required=("metadata",),
    rules=(_job_body,),
)


def _ip(value: Any, path: str, out: list[Problem]) -> None:
    try:
        ipaddress.ip_address(value if isinstance(value, str) else "")
    except ValueError:
        out.append((path, "must be an IPv4 or IPv6 address"))


# The shape of a search body; each filter's key, operator and values are judged when it is answered.
SEARCH = obj(
    {
        "offset": integer(minimum=0),
        "limit": integer(minimum=1, maximum=50),
        "sort_by": STR,
        "order": choice("asc", "desc"),
        "group_by": STR,
        "workspace_id": STR,
        "train_type": choice("job", "ftjob"),
        "tags": array(obj({"key": STR, "values": STRINGS}, required=("key",)), max_items=10),
        "host_ips": array(_ip, max_items=10),
        "filters": array(lambda value, path, out: None),
    }
)

ACTION = obj({"action_type": STR}, required=("action_type",))

# Tags of a training job (TMS tags): a key has 1-128 characters, letters of any language, digits, spaces and
# _ . : = + - @, no space at either end, not starting with _sys_; a value at most 255 characters, / allowed
# too; a job carries at most 20 tags.
MAX_TAGS = 20
_KEY_MARKS = set(" _.:=+-@")
_VALUE_MARKS = set(" _.:/=+-@")


def _tag_chars(text_: str, marks: set[str]) -> bool:
    return all(ch.isalpha() or ch.isdigit() or ch in marks for ch in text_)


def tag_problems(body: Any, *, deleting: bool = False) -> list[Problem]:
    """The problems of a tag create (or, deleting, delete) body ``{"tags": [{"key", "value"}]}``."""
    if not isinstance(body, Mapping) or not isinstance(body.get("tags"), list):
        return [("tags", "must be a list of {key, value} objects")]
    out: list[Problem] = []
    for index, tag in enumerate(body["tags"]):
        where = f"tags[{index}]"
        if not isinstance(tag, Mapping) or set(tag) - {"key", "value"}:
            out.append((where, "must be an object with key and value"))
            continue
        key, value = tag.get("key"), tag.get("value")
        if not isinstance(key, str) or not 1 <= len(key) <= 128:
            out.append((f"{where}.key", "must be 1 to 128 characters"))
        elif not deleting and (
            not _tag_chars(key, _KEY_MARKS) or key != key.strip(" ") or key.startswith("_sys_")
        ):
            out.append((f"{where}.key", "has characters the service does not allow, or is reserved"))
        if value is None and deleting:
            continue
        if not isinstance(value, str) or len(value) > 255:
            out.append((f"{where}.value", "must be at most 255 characters"))
        elif not deleting and not _tag_chars(value, _VALUE_MARKS):
            out.append((f"{where}.value", "has characters the service does not allow"))
    return out


def problems(schema: Check, body: Any) -> list[Problem]:
    """Everything wrong with ``body`` for ``schema``; empty when it is fine."""
    out: list[Problem] = []
    schema(body, "", out)
    return out


def create_problems(body: Any) -> list[Problem]:
    """A create body's problems, including unusable values of the emulator's annotation hooks."""
    found = problems(CREATE, body)
    metadata = body.get("metadata") if isinstance(body, Mapping) else None
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    if isinstance(annotations, Mapping):
        hooks = {str(k): str(v) for k, v in annotations.items() if str(k).startswith(HOOK_PREFIX)}
        found.extend(hook_problems(hooks))
    return found

"""CrossGuard policies for training jobs, for ``pulumi preview --policy-pack``: a team serves them as they are
(``serve``, what ``policy/__main__.py`` does) or composes its own pack from ``resource_policies`` and
``POLICIES``.

Each policy is a plain function over a job's inputs (``Job``) and the policy's settings, returning the
violations as text, so it is tested without the policy SDK; ``pulumi_policy`` is imported only when policies
are built for a pack, and the package itself never needs it.

A job is recognised on either front-end (``recognise``): the native plugin's by its type token, with schema
(camelCase) property names; the dynamic provider's by the serialised provider in its ``__provider`` input
naming this package's provider class, with wire (snake_case) names. Both sets of names come from the
generated tables (``generated.schema_names``), never written here.
"""

from __future__ import annotations

import base64
import binascii
import math
import pickletools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..generated.fields import NAME_SCOPE_FIELD
from ..generated.schema_names import INPUTS, TYPES
from ..job.setting_values import parse_duration

__all__ = [
    "DYNAMIC",
    "NATIVE",
    "NATIVE_TYPE",
    "POLICIES",
    "Job",
    "PolicySpec",
    "recognise",
    "resource_policies",
    "serve",
]

FrontEnd = Literal["native", "dynamic"]
NATIVE: Final[FrontEnd] = "native"
DYNAMIC: Final[FrontEnd] = "dynamic"

NATIVE_TYPE: Final = "modelarts:index:TrainingJob"
# Every dynamic resource's type starts so: "pulumi-python:dynamic:Resource", or with a module and a name
# ("pulumi-python:dynamic/modelarts:TrainingJob") that any other dynamic resource could choose as well.
_DYNAMIC_TYPE_PREFIX: Final = "pulumi-python:dynamic"
# Where pulumi.dynamic keeps the serialised provider among the inputs (frontends.dynamic.PROVIDER_KEY).
_PROVIDER_KEY: Final = "__provider"
# The dynamic provider's class as its pickle names it: where it lives now, and the path older states recorded
# (pulumi_modelarts.provider re-exports it). tests/tools/test_policies.py proves these against the class.
PROVIDER_CLASS_PATHS: Final = frozenset(
    {
        ("pulumi_modelarts.frontends.dynamic", "TrainingJobProvider"),
        ("pulumi_modelarts.provider", "TrainingJobProvider"),
    }
)
_STRING_OPS: Final = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"})


def _pickled_class(serialised: object) -> tuple[str, str] | None:
    """The first class a base64 pickle names (module, name), read from its opcodes without unpickling it:
    the state is not trusted code. None when it is not such a text."""
    serialised = getattr(serialised, "value", serialised)  # a pulumi_policy.Secret, should one arrive
    if not isinstance(serialised, str):
        return None
    try:
        data = base64.b64decode(serialised, validate=True)
        strings: list[str] = []
        for opcode, arg, _ in pickletools.genops(data):
            if opcode.name in _STRING_OPS and isinstance(arg, str):
                strings.append(arg)
            elif opcode.name == "STACK_GLOBAL":
                return (strings[-2], strings[-1]) if len(strings) >= 2 else None
            elif opcode.name in ("GLOBAL", "INST") and isinstance(arg, str) and " " in arg:
                module, name = arg.split(" ", 1)
                return module, name
    except (binascii.Error, ValueError):
        return None
    return None


@dataclass(frozen=True)
class Job:
    """A training job as a policy sees it: its front-end (which names its properties) and its inputs."""

    front_end: FrontEnd
    name: str
    props: Mapping[str, Any]
    # The create timeout of the resource's customTimeouts option, in seconds (None when not set).
    create_timeout: float | None = field(default=None)

    def values(self, path: str) -> Iterator[tuple[str, Any]]:
        """Each value set at a wire path (``spec.resource.node_count``; ``[]`` after a list's name visits
        each item), with the path as this front-end names it (``spec.resource.nodeCount``, ``tasks[0]…``)."""
        yield from _walk(self.props, INPUTS, path.split("."), self.front_end == NATIVE, "")


def _walk(
    node: object, type_name: str, keys: list[str], native: bool, shown: str
) -> Iterator[tuple[str, Any]]:
    if not keys:
        if node is not None:
            yield shown, node
        return
    if not isinstance(node, Mapping):
        return
    key, rest = keys[0], keys[1:]
    wire = key.removesuffix("[]")
    schema_name, value_type = TYPES[type_name][wire]  # a KeyError here is a wrong wire path: a bug
    name = schema_name if native else wire
    value = node.get(name)
    if value is None:
        return
    here = f"{shown}.{name}" if shown else name
    inner = value_type.removeprefix("[]").removeprefix("{}")
    if key.endswith("[]"):
        if isinstance(value, Sequence) and not isinstance(value, str):
            for index, item in enumerate(value):
                yield from _walk(item, inner, rest, native, f"{here}[{index}]")
        return
    yield from _walk(value, inner, rest, native, here)


def recognise(
    resource_type: str, props: Mapping[str, Any], name: str = "", create_timeout: float | None = None
) -> Job | None:
    """The resource as a training job, or None when it is none (any other resource, dynamic ones included)."""
    if resource_type == NATIVE_TYPE:
        return Job(NATIVE, name, props, create_timeout)
    if not resource_type.startswith(_DYNAMIC_TYPE_PREFIX):
        return None
    if _PROVIDER_KEY in props:
        ours = _pickled_class(props.get(_PROVIDER_KEY)) in PROVIDER_CLASS_PATHS
        return Job(DYNAMIC, name, props, create_timeout) if ours else None
    # Without the serialised provider (a CLI hands the analyzer the inputs the provider's check returned,
    # which leave it out), the job's own marks: the stack scope the resource always registers (``name_scope``,
    # a text) beside a job body. Another dynamic resource would need both to be taken for one.
    body = isinstance(props.get("algorithm"), Mapping) or isinstance(props.get("tasks"), Sequence)
    if isinstance(props.get(NAME_SCOPE_FIELD), str) and body:
        return Job(DYNAMIC, name, props, create_timeout)
    return None


# --- The policies: each takes a job and its settings, and returns its violations ---------------------------

Check = Callable[[Job, Mapping[str, Any]], list[str]]


@dataclass(frozen=True)
class PolicySpec:
    """A policy without the policy SDK: its name, description, settings' JSON schema and check."""

    name: str
    description: str
    settings: Mapping[str, Mapping[str, Any]]
    check: Check


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _shown(value: object) -> str:
    """A value as the program wrote it: numbers reach a pack as floats (protobuf Structs hold no integers)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return repr(value)


def _shown_seconds(seconds: float) -> str:
    return f"{seconds:g}s"


MAX_NODES: Final = "modelarts-max-nodes"
ALLOWED_FLAVORS: Final = "modelarts-allowed-flavors"
REQUIRED_TAGS: Final = "modelarts-required-tags"
MAX_WAIT: Final = "modelarts-max-wait"
IMAGE_REGISTRIES: Final = "modelarts-image-registries"

_NODE_COUNTS: Final = ("spec.resource.node_count", "tasks[].task_resource.node_count")
_FLAVORS: Final = ("spec.resource.flavor_id", "tasks[].task_resource.flavor_id")
_POOLS: Final = ("spec.resource.pool_id", "tasks[].task_resource.pool_id")
_IMAGES: Final = (
    "algorithm.engine.image_url",
    "tasks[].algorithm.engine.image_url",
    "tasks[].algorithm.job_config.engine.image_url",
)


def check_max_nodes(job: Job, settings: Mapping[str, Any]) -> list[str]:
    limit = settings.get("maxNodes")
    if not _is_number(limit):
        return []
    return [
        f"{MAX_NODES}: training job {job.name!r}: {path} is {_shown(value)}, "
        f"more than maxNodes ({_shown(limit)})"
        for wire_path in _NODE_COUNTS
        for path, value in job.values(wire_path)
        if _is_number(value) and value > limit
    ]


def check_allowed_flavors(job: Job, settings: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for key, wire_paths in (("flavors", _FLAVORS), ("pools", _POOLS)):
        allowed = settings.get(key)
        if allowed is None:  # not configured: anything goes
            continue
        found += [
            f"{ALLOWED_FLAVORS}: training job {job.name!r}: {path} is {value!r}, "
            f"not one of {key} {list(allowed)}"
            for wire_path in wire_paths
            for path, value in job.values(wire_path)
            if value not in allowed
        ]
    return found


def check_required_tags(job: Job, settings: Mapping[str, Any]) -> list[str]:
    required = settings.get("tags") or []
    tags_path = "tags"
    given: Mapping[str, Any] = {}
    for path, value in job.values("tags"):
        tags_path = path
        if isinstance(value, Mapping):
            given = value
    missing = [key for key in required if key not in given]
    if not missing:
        return []
    return [
        f"{REQUIRED_TAGS}: training job {job.name!r}: {tags_path} is {sorted(given)} (its keys), "
        f"missing {missing}"
    ]


def check_max_wait(job: Job, settings: Mapping[str, Any]) -> list[str]:
    if settings.get("maxWaitTimeout") is None:
        return []
    limit = parse_duration(settings["maxWaitTimeout"])  # the config schema lets only numbers and texts in
    found: list[str] = []
    for path, value in job.values("wait_timeout"):
        try:
            seconds = parse_duration(value)
        except ValueError as error:
            found.append(f"{MAX_WAIT}: training job {job.name!r}: {path} is {_shown(value)}, which {error}")
            continue
        if seconds > limit:
            found.append(
                f"{MAX_WAIT}: training job {job.name!r}: {path} is {_shown(value)} "
                f"({_shown_seconds(seconds)}), longer than maxWaitTimeout ({_shown_seconds(limit)})"
            )
    # The engine gives the whole create this long: a longer one outlives the wait the team allows.
    if job.create_timeout and job.create_timeout > limit:
        found.append(
            f"{MAX_WAIT}: training job {job.name!r}: customTimeouts.create is "
            f"{_shown_seconds(job.create_timeout)}, longer than maxWaitTimeout ({_shown_seconds(limit)})"
        )
    return found


def check_image_registries(job: Job, settings: Mapping[str, Any]) -> list[str]:
    prefixes = settings.get("registries")
    if prefixes is None:
        return []
    return [
        f"{IMAGE_REGISTRIES}: training job {job.name!r}: {path} is {value!r}, "
        f"which starts with none of registries {list(prefixes)}"
        for wire_path in _IMAGES
        for path, value in job.values(wire_path)
        if not (isinstance(value, str) and value.startswith(tuple(prefixes)))
    ]


_TEXTS: Final = {"type": "array", "items": {"type": "string"}}

POLICIES: Final[tuple[PolicySpec, ...]] = (
    PolicySpec(
        MAX_NODES,
        "Training jobs ask for at most maxNodes nodes (spec.resource and each task's resource).",
        {"maxNodes": {"type": "integer", "minimum": 1}},
        check_max_nodes,
    ),
    PolicySpec(
        ALLOWED_FLAVORS,
        "Training jobs use only the listed flavors, and only the listed dedicated pools.",
        {"flavors": _TEXTS, "pools": _TEXTS},
        check_allowed_flavors,
    ),
    PolicySpec(
        REQUIRED_TAGS,
        "Every training job carries the listed tag keys.",
        {"tags": _TEXTS},
        check_required_tags,
    ),
    PolicySpec(
        MAX_WAIT,
        "Training jobs wait at most maxWaitTimeout (wait_timeout, and the create custom timeout).",
        {"maxWaitTimeout": {"type": ["number", "string"]}},
        check_max_wait,
    ),
    PolicySpec(
        IMAGE_REGISTRIES,
        "Training jobs' custom images come from the listed registries (prefixes of the image URL).",
        {"registries": _TEXTS},
        check_image_registries,
    ),
)


# --- The policy SDK's side -------------------------------------------------------------------------------


def _policy_sdk() -> Any:
    try:
        import pulumi_policy
    except ImportError as error:  # the package runs without it; only a pack needs it
        raise ImportError(
            "the training job policies need the pulumi-policy package: pip install pulumi-policy"
        ) from error
    return pulumi_policy


def _validation(spec: PolicySpec) -> Callable[[Any, Callable[..., None]], None]:
    def validate(args: Any, report_violation: Callable[..., None]) -> None:
        timeouts = getattr(args.opts, "custom_timeouts", None)
        job = recognise(args.resource_type, args.props, args.name, getattr(timeouts, "create_seconds", None))
        if job is None:
            return
        for message in spec.check(job, args.get_config()):
            report_violation(message)

    return validate


def resource_policies(
    specs: Sequence[PolicySpec] = POLICIES, enforcement_level: str | None = None
) -> list[Any]:
    """The policies as pulumi_policy ResourceValidationPolicy objects, to put in a PolicyPack.

    enforcement_level ("advisory", "mandatory", "disabled") applies to each unless its config says otherwise;
    by default the pack's level applies (advisory for ``serve``).
    """
    sdk = _policy_sdk()
    level = sdk.EnforcementLevel(enforcement_level) if enforcement_level else None
    return [
        sdk.ResourceValidationPolicy(
            name=spec.name,
            description=spec.description,
            validate=_validation(spec),
            enforcement_level=level,
            config_schema=sdk.PolicyConfigSchema(properties={k: dict(v) for k, v in spec.settings.items()}),
        )
        for spec in specs
    ]


def serve(name: str = "modelarts-training-jobs", enforcement_level: str = "advisory") -> None:
    """Serve the pack to the engine (a pack's ``__main__``): it does not return."""
    sdk = _policy_sdk()
    sdk.PolicyPack(
        name=name, policies=resource_policies(), enforcement_level=sdk.EnforcementLevel(enforcement_level)
    )

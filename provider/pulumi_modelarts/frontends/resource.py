"""The ``TrainingJob`` resource and the lookups: ``get_training_jobs`` and the account's catalogue
(``get_training_job_flavors``, ``get_training_job_engines``).

    job = TrainingJob("train",
        algorithm={"engine": {"image_url": "org/img:1"}, "command": "python train.py"},
        spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
        wait_for="running")

Secrets: the secret inputs (``fields.SECRET_INPUTS``: ``algorithm.environments`` and each task's
``environments``) are wrapped in ``pulumi.Output.secret`` before registration, so the state's inputs hold them
encrypted; the outputs ``declared_inputs``, ``environments`` and ``endpoints`` are always secret
(``additional_secret_outputs``), and the non-secret ``algorithm`` output carries no environment variables.
"""

from __future__ import annotations

import copy
import datetime as _dt
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

import pulumi
import pulumi.dynamic

from ..generated.fields import OUTPUT_ONLY_FIELDS, SECRET_OUTPUTS
from ..job.secret_paths import Steps, mark
from ..wire.errors import ModelArtsError
from .dynamic import TrainingJobProvider
from .naming import stack_scope, with_naming
from .provider_config import CONFIG_KEYS

if TYPE_CHECKING:
    # Only annotations name the typed inputs: a program that passes plain dicts never loads them. The typed
    # outputs are for type checkers only.
    # ruff: noqa: UP007, UP045  (Optional/Union spelled out, as generated SDKs do)
    from ..generated import inputs, outputs

# ruff: noqa: UP007, UP045  (Optional/Union spelled out, as generated SDKs do)

__all__ = [
    "SECRET_OUTPUTS",
    "TrainingJob",
    "get_training_job_engines",
    "get_training_job_flavors",
    "get_training_jobs",
]


def _into_field(value: Any, name: str, inner: Callable[[Any], Any]) -> Any:
    if isinstance(value, pulumi.Output):
        # Not known yet: marked once it resolves.
        return value.apply(lambda resolved: _into_field(resolved, name, inner))
    if isinstance(value, Mapping):
        return {k: inner(v) if k == name else v for k, v in value.items()}
    attribute = getattr(type(value), name, None)
    if isinstance(attribute, property) and attribute.fset is not None:
        # A typed input (``inputs.…Args``; the secret paths are spelled as its property names): a copy with
        # the property marked, leaving the caller's object alone. Pulumi serialises it as it does any Args.
        marked = copy.copy(value)
        setattr(marked, name, inner(getattr(value, name)))
        return marked
    return value


def _into_items(value: Any, inner: Callable[[Any], Any]) -> Any:
    if isinstance(value, pulumi.Output):
        return value.apply(lambda resolved: _into_items(resolved, inner))
    return [inner(item) for item in value] if isinstance(value, (list, tuple)) else value


def _secret(value: Any) -> Any:
    return None if value is None else pulumi.Output.secret(value)


# A program's values: plain data, typed Args and Outputs, in any mix.
_PROGRAM_VALUES: Steps[Any] = Steps(_into_field, _into_items)


def _with_secrets(props: dict[str, Any]) -> dict[str, Any]:
    """props with every secret input (``fields.SECRET_INPUTS``) wrapped, so the state holds it encrypted."""
    return mark(props, _PROGRAM_VALUES, _secret)


class TrainingJob(pulumi.dynamic.Resource, module="modelarts", name="TrainingJob"):
    """A ModelArts training job.

    Only ``metadata.description`` changes in place; any other change to the job (and any change to
    ``triggers``) creates a new job. The old job is terminated first (delete-before-replace): a replaced job
    is obsolete, and two live jobs must not share a name.
    """

    # BEGIN GENERATED resource properties (scripts/generate; do not edit)
    if TYPE_CHECKING:
        # The job's sections typed from the response models (outputs.py), as the native SDK's are.
        # At run time they stay plain dicts (the branch below): Pulumi converts an output to the
        # type its annotation names, which must then be one of its own output classes.
        kind: pulumi.Output[str]
        """Job type."""
        metadata: pulumi.Output[outputs.MetadataResponse]
        """Metadata as the service returns it: id, name (also a generated one), description, create_time..."""
        name: pulumi.Output[str]
        """The job's name."""
        status: pulumi.Output[outputs.JobStatus]
        """phase, secondary_phase, duration (ms), start_time, tasks, task_statuses, running_records."""
        phase: pulumi.Output[str]
        """Level-1 phase as last seen (Creating, Pending, Running, Completed, Failed, Terminated, ...)."""
        secondary_phase: pulumi.Output[str]
        """Level-2 phase as last seen."""
        algorithm: pulumi.Output[outputs.AlgorithmResponse]
        """The algorithm as the service returns it, without environment variables."""
        spec: pulumi.Output[outputs.SpecResponse]
        """The spec as the service returns it (flavor details, log path, volumes...)."""
        tasks: pulumi.Output[list[outputs.TaskResponse]]
        """Tasks of a heterogeneous job, as returned."""
        endpoints: pulumi.Output[outputs.Endpoints]
        """Remote access endpoints (SSH, JupyterLab, TensorBoard), with tokens. Secret."""
        environments: pulumi.Output[dict[str, str]]
        """Environment variables of the job. Secret."""
        tags: pulumi.Output[dict[str, str]]
        """
        The job's tags as the service last reported them (read only when `tags` is declared, and on import).
        """
        declared_inputs: pulumi.Output[dict[str, Any]]
        """The inputs as declared (normalised); what changes are judged against. Secret."""
    else:
        kind: pulumi.Output[str]
        metadata: pulumi.Output[dict[str, Any]]
        name: pulumi.Output[str]
        status: pulumi.Output[dict[str, Any]]
        phase: pulumi.Output[str]
        secondary_phase: pulumi.Output[str]
        algorithm: pulumi.Output[dict[str, Any]]
        spec: pulumi.Output[dict[str, Any]]
        tasks: pulumi.Output[list[dict[str, Any]]]
        endpoints: pulumi.Output[dict[str, Any]]
        environments: pulumi.Output[dict[str, str]]
        tags: pulumi.Output[dict[str, str]]
        declared_inputs: pulumi.Output[dict[str, Any]]

    def __init__(
        self,
        resource_name: str,
        args: Optional[inputs.TrainingJobArgs] = None,
        opts: Optional[pulumi.ResourceOptions] = None,
        *,
        kind: Optional[pulumi.Input[str]] = None,
        metadata: Optional[
            pulumi.Input[Union[inputs.TrainingJobMetadataArgs, inputs.TrainingJobMetadataArgsDict]]
        ] = None,
        algorithm: Optional[
            pulumi.Input[Union[inputs.TrainingJobAlgorithmArgs, inputs.TrainingJobAlgorithmArgsDict]]
        ] = None,
        tasks: Optional[
            pulumi.Input[
                Sequence[pulumi.Input[Union[inputs.TrainingJobTaskArgs, inputs.TrainingJobTaskArgsDict]]]
            ]
        ] = None,
        spec: Optional[
            pulumi.Input[Union[inputs.TrainingJobSpecArgs, inputs.TrainingJobSpecArgsDict]]
        ] = None,
        endpoints: Optional[
            pulumi.Input[Union[inputs.TrainingJobEndpointsArgs, inputs.TrainingJobEndpointsArgsDict]]
        ] = None,
        train_type: Optional[pulumi.Input[str]] = None,
        ftjob_config: Optional[
            pulumi.Input[Union[inputs.TrainingJobFtJobConfigArgs, inputs.TrainingJobFtJobConfigArgsDict]]
        ] = None,
        wait_for: Optional[pulumi.Input[str]] = None,
        wait_timeout: Optional[pulumi.Input[Union[float, str]]] = None,
        triggers: Optional[pulumi.Input[Any]] = None,
        replace_when_failed: Optional[pulumi.Input[bool]] = None,
        name_prefix: Optional[pulumi.Input[str]] = None,
        on_destroy: Optional[pulumi.Input[str]] = None,
        keep_record: Optional[pulumi.Input[bool]] = None,
        tags: Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]] = None,
        show_logs: Optional[pulumi.Input[bool]] = None,
    ) -> None:
        """
        :param resource_name: The Pulumi resource name; also the default prefix of the job name.
        :param args: All arguments as one ``TrainingJobArgs`` (or pass them as keywords).
        :param opts: Resource options.
        :param kind: Job type. One of `job`, `federated_pool_job`, `edge_job`, `hetero_job`, `mrs_job`,
            `autosearch_job`, `diag_job` or `visualization_job`. Defaults to `job`.
        :param metadata: The job's name (optional: auto-named `<name_prefix>-<6 characters>` from a hash of
            the stack and the inputs, kept across updates), its description (the one field changed in place)
            and advanced settings.
        :param algorithm: What runs, from exactly one source: `id`; or `subscription_id` with
            `item_version_id`; or your own code or image: `engine` with `code_dir` and `boot_file`, or a
            custom image (`engine.image_url`) with a `command`. The `environments` are kept secret.
        :param tasks: Tasks of a heterogeneous job, instead of `spec`.
        :param spec: The machines (`resource`: a flavor, or `pool_id` for a dedicated pool; `node_count` at
            least 1), volumes, logs, scheduling and what the job produces.
        :param endpoints: Remote access to the job: SSH key pairs allowed to log in.
        :param train_type: Training type of a fine-tuning job: full fine-tuning, pre-training, LoRA
            fine-tuning, DPO or RFT reinforcement learning. One of `SFT`, `PRETRAIN`, `LORA`, `DPO` or `RFT`.
        :param ftjob_config: Settings of a fine-tuning job.
        :param wait_for: How far a new job must get before the deployment goes on (`pending`: past Creating).
            A job that fails or times out while waited on is terminated and reported. One of `none`,
            `pending`, `running` or `completed`. Defaults to `pending`.
        :param wait_timeout: Longest wait for `wait_for`: seconds, or a duration such as `"90s"`, `"30m"` or
            `"1h30m"`. Defaults to `30m`.
        :param triggers: Any value; changing it replaces the job (like `keepers` in pulumi-random).
        :param replace_when_failed: When the phase last stored (after create or refresh) is Failed, Abnormal
            or CreateFailed, the next `up` replaces the job. Defaults to `false`.
        :param name_prefix: Prefix of the generated job name; the resource name when left out. Ignored once
            the job has a name.
        :param on_destroy: What destroy (and the delete half of a replacement) does with the job: `terminate`
            stops it and keeps its record (logs stay readable, the name stays taken); `delete` stops it, waits
            for a final phase, then deletes the record (the name is free again). A job already gone counts as
            done. A change is an update of the state only, with no call to ModelArts. To leave a job running
            on destroy, use Pulumi's `retainOnDelete` option. One of `terminate` or `delete`. Defaults to
            `terminate`.
        :param keep_record: The older spelling of `on_destroy`: `false` is `on_destroy: delete`. Both may be
            set only when they agree. Defaults to `true`.
        :param tags: Tags of the job (key to value), for cost allocation and ownership on a shared account.
            They change in place (only the keys added, changed or removed are sent) and are read back on
            refresh and import. Left out, the job's tags are not managed (neither set nor read). The service's
            rules (TMS tags, as the official SDK's `TmsTag` documents them): at most 20 tags; a key has 1 to
            128 characters (letters of any language, digits, spaces and `_ . : = + - @`), neither starts nor
            ends with a space and does not start with `_sys_`; a value has at most 255 characters (letters of
            any language, digits, spaces and `_ . : / = + - @`).
        :param show_logs: While a create waits for the job to complete (`wait_for: completed`), show the
            newest line of its log on its row (read at most every 30 s; credentials and environment values
            hidden). `false` turns it off. Defaults to `true`.
        """
        given: dict[str, Any] = {
            "kind": kind,
            "metadata": metadata,
            "algorithm": algorithm,
            "tasks": tasks,
            "spec": spec,
            "endpoints": endpoints,
            "train_type": train_type,
            "ftjob_config": ftjob_config,
            "wait_for": wait_for,
            "wait_timeout": wait_timeout,
            "triggers": triggers,
            "replace_when_failed": replace_when_failed,
            "name_prefix": name_prefix,
            "on_destroy": on_destroy,
            "keep_record": keep_record,
            "tags": tags,
            "show_logs": show_logs,
        }
        _register(self, resource_name, args, opts, given)

    # END GENERATED resource properties

    @staticmethod
    def get(
        resource_name: str, id: pulumi.Input[str], opts: Optional[pulumi.ResourceOptions] = None
    ) -> TrainingJob:
        """Look up an existing training job by id (read-only: Pulumi will not change or delete it)."""
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(id=id))
        return TrainingJob(resource_name, opts=opts)


# Pulumi reads a resource class's annotations (typing.get_type_hints) for every resource it registers; as
# strings (``from __future__ import annotations``) they would be compiled and evaluated each time, so they are
# evaluated once here.
TrainingJob.__annotations__ = inspect.get_annotations(TrainingJob, eval_str=True)


def _register(
    job: TrainingJob,
    resource_name: str,
    args: Optional[inputs.TrainingJobArgs],
    opts: Optional[pulumi.ResourceOptions],
    given: dict[str, Any],
) -> None:
    """Register the job with the engine: keyword arguments win over ``args``; outputs are declared empty."""
    if args is not None:
        for key, value in given.items():
            if value is None:
                given[key] = getattr(args, key)
    reading = opts is not None and opts.id is not None
    props: dict[str, Any] = dict(given)
    if not reading:
        # Dynamic providers never see the resource name nor the stack: pass them in for auto-naming.
        scope = stack_scope(pulumi.get_project(), pulumi.get_stack())
        props = _with_secrets(with_naming(props, resource_name, scope))
    for key in OUTPUT_ONLY_FIELDS:
        props[key] = None
    opts = pulumi.ResourceOptions.merge(
        opts, pulumi.ResourceOptions(additional_secret_outputs=list(SECRET_OUTPUTS))
    )
    pulumi.dynamic.Resource.__init__(job, TrainingJobProvider(), resource_name, props, opts)


def _millis(value: Union[_dt.datetime, int, float, None]) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return int(value.timestamp() * 1000)
    return int(value)


def _program_config() -> dict[str, str]:
    """The settings' keys (``provider_config.CONFIG_KEYS``) as the program's stack config gives them."""
    from pulumi.runtime.config import get_config

    found: dict[str, str] = {}
    for key in CONFIG_KEYS:
        value = get_config(key)
        if value is not None:
            found[key] = str(value)
    return found


def get_training_jobs(
    name: Optional[str] = None,
    phase: Optional[Union[str, Sequence[str]]] = None,
    created_after: Union[_dt.datetime, int, float, None] = None,
    created_before: Union[_dt.datetime, int, float, None] = None,
    *,
    kind: Optional[str] = None,
    tags: Optional[Mapping[str, str]] = None,
    sort_by: Optional[str] = None,
    order: Optional[str] = None,
) -> list[dict[str, Any]]:
    """Training jobs of the project, as plain dicts (all pages of the search API): newest first unless sort_by
    and order ("asc" or "desc") say otherwise, the service's default being create_time, desc.

    name matches as a substring ("like"); phase is one phase or a list, in any case ("running" or "Running";
    an unknown phase raises ValueError); created_after/created_before are
    datetimes (naive = UTC) or epoch milliseconds; tags keeps the jobs carrying every one of them (key and
    value). Settings come from ``pulumi.Config("modelarts")`` and the
    environment, as for the resource. Environment variables and endpoint tokens are left out of the result,
    which is not secret.
    """
    from .engine import StderrProgress
    from .functions import training_jobs

    # getTrainingJobs' arguments (wire names), read by the function both front-ends serve.
    args = {
        "name": name,
        "phases": [phase] if isinstance(phase, str) else list(phase or []),
        "kind": kind,
        "created_after": _millis(created_after),
        "created_before": _millis(created_before),
        "tags": tags,
        "sort_by": sort_by,
        "order": order,
    }
    try:
        jobs: list[dict[str, Any]] = training_jobs(_program_config(), StderrProgress(None), args)["jobs"]
        return jobs
    except ModelArtsError:
        raise
    except ValueError as exc:  # a filter the service would refuse
        raise ValueError(f"get_training_jobs: {exc}") from None


def get_training_job_flavors(flavor_type: Optional[str] = None) -> list[outputs.OfferedFlavor]:
    """The public-pool flavors the account may run training jobs on, as plain dicts (wire names): each
    ``flavor_id`` goes in ``spec.resource.flavor_id``, and a job asks at most its ``max_num`` nodes.

    flavor_type: only flavors of this type (``CPU``, ``GPU`` or ``Ascend``); all when None. Settings as for
    the resource.
    """
    from .engine import StderrProgress
    from .functions import training_job_flavors

    found = training_job_flavors(_program_config(), StderrProgress(None), {"flavor_type": flavor_type})
    return found["flavors"]  # type: ignore[no-any-return]


def get_training_job_engines() -> list[outputs.OfferedEngine]:
    """The preset engines the account may train with, as plain dicts (wire names): ``engine_id``, or
    ``engine_name`` with ``engine_version``, goes in ``algorithm.engine``. Settings as for the resource."""
    from .engine import StderrProgress
    from .functions import training_job_engines

    return training_job_engines(_program_config(), StderrProgress(None), {})["engines"]  # type: ignore[no-any-return]

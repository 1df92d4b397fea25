"""The rules between the create request's fields: the ``INPUT_RULES`` table and the helpers rules use.

Each rule is declared once (``declare``) with how sure we are that the service refuses a request breaking it:
an ``error`` rule refuses the inputs at preview, a ``warning`` rule is the API pages' advice the service does
not enforce (``advice()`` in messages.py collects it). docs/input-rules.md is generated from ``INPUT_RULES``.
"""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple, Protocol

from pydantic_core import PydanticCustomError


class Advised(Protocol):
    """What a warning rule notes its advice on: a request model (``model_base.RequestModel``), named by what
    it offers so that the rules need not import the models' base (which imports them)."""

    @property
    def advice_notes(self) -> list[tuple[tuple[str, ...], str, str]]: ...


# ----------------------------------------------------------------------------------------------------
# Shared pieces

#: Validation-context key: when true, ``metadata.name`` must be present (the request actually sent).
REQUIRE_NAME: Final = "require_name"
RULE_ERROR: Final = "modelarts_rule"


def rule_error(message: str, at: str | None = None) -> PydanticCustomError:
    """A rule violation; ``at`` names the field below the validated model that the message is about."""
    context: dict[str, Any] = {"at": at} if at else {}
    return PydanticCustomError(RULE_ERROR, message, context)


def is_given(value: object) -> bool:
    # Blank strings count as "not given": the API pages say "leave blank" for fields that must not be used.
    return value is not None and value != ""


# ----------------------------------------------------------------------------------------------------
# Cross-field rules: each declared once, with how sure we are that the service refuses a request breaking it.
#
# An ``error`` rule refuses the inputs at preview: the evidence says the service refuses such a request (or
# the request names nothing to act on). A ``warning`` rule is advice from the API pages ("leave it blank",
# "must be used together with") that real, accepted requests contradict or nothing shows the service
# enforcing: the inputs pass, the request is sent as written, and the user is told what the pages say. The
# table in docs/input-rules.md is generated from INPUT_RULES (scripts/generate).

Severity = Literal["error", "warning"]

# Where the evidence comes from (the names docs/input-rules.md explains).
_PAGES = "API pages (create a training job)"
_SDK = "official SDK (huaweicloudsdkmodelarts v1 models)"
_TF = "Terraform resource huaweicloud_modelarts_training_job"
_TF_BASIC = "Terraform acceptance test TestAccTrainingJob_basic (run against the service)"
_TF_DEBUG = "Terraform acceptance test TestAccTrainingJob_debug_job (run against the service)"


class InputRule(NamedTuple):
    """One cross-field rule of the create request's inputs."""

    key: str
    where: str  # the object the rule is about, as a path with [] for list items
    rule: str  # the rule in words
    severity: Severity
    evidence: str

    def error(self, message: str, at: str | None = None) -> PydanticCustomError:
        """The validation error for a broken ``error`` rule."""
        assert self.severity == "error", self.key
        return rule_error(message, at)

    def warn(self, model: Advised, message: str, at: str | tuple[str, ...] | None = None) -> None:
        """Note a broken ``warning`` rule on the model; ``advice()`` collects the notes with their paths.

        ``at`` is a dotted path below the model, or its parts (for a map key, which may hold dots).
        """
        assert self.severity == "warning", self.key
        parts = tuple(at.split(".")) if isinstance(at, str) else at or ()
        note = (parts, message, self.key)
        if note not in model.advice_notes:
            model.advice_notes.append(note)


INPUT_RULES: dict[str, InputRule] = {}


def _declare(key: str, where: str, rule: str, severity: Severity, evidence: str) -> InputRule:
    declared = InputRule(key, where, rule, severity, evidence)
    assert key not in INPUT_RULES, key
    INPUT_RULES[key] = declared
    return declared


EXPERIMENT_REFERENCE = _declare(
    "experiment-reference",
    "metadata.training_experiment_reference",
    "give the `id` of an experiment or the `name` of a new one",
    "error",
    f"{_TF}: `training_experiment_reference.id` is Required; an empty reference names no experiment.",
)
JOB_NAME = _declare(
    "job-name",
    "metadata",
    "`name`: 1 to 64 letters, digits, `_` or `-` (the provider chooses one when it is left out)",
    "error",
    f"{_PAGES}: `name` is mandatory, 1 to 64 digits, letters, `_` and `-`; {_TF}: Required.",
)
DATASET_VERSION = _declare(
    "dataset-version",
    "algorithm.inputs[].remote.dataset",
    "`version_id` is required unless `service_type` is `V3`",
    "error",
    f"{_PAGES}: `version_id` is mandatory; {_TF} sends `service_type` `V3` datasets of the asset service "
    "without a version.",
)
INPUT_SOURCE = _declare(
    "input-source",
    "algorithm.inputs[].remote",
    "give `dataset` or `obs`",
    "error",
    f"{_PAGES}: the input's data source; with neither the channel has no data.",
)
INPUT_SOURCE_BOTH = _declare(
    "input-source-both",
    "algorithm.inputs[].remote",
    "give `dataset` or `obs`, not both",
    "warning",
    f"{_PAGES} offer one or the other; nothing shows the service refusing both, nor which it uses.",
)
ENGINE_ID_ALONE = _declare(
    "engine-id-alone",
    "algorithm.engine",
    "with `engine_id`, leave `engine_name`, `engine_version` and `image_url` blank",
    "warning",
    f'{_PAGES}: "if engine_id is set, leave this parameter blank"; {_SDK} `JobEngine`: "no need to fill '
    f'in" (无需填写); {_TF_BASIC} sends `engine_id` with `engine_name` and `engine_version` and the '
    "service accepts it.",
)
ENGINE_VERSION_NAME = _declare(
    "engine-version-needs-name",
    "algorithm.engine",
    "`engine_version` comes with `engine_name`",
    "warning",
    f"{_PAGES}: a preset engine is `engine_name` + `engine_version`; no refusal of a lone version is known.",
)
ENGINE_NAME_VERSION = _declare(
    "engine-name-needs-version",
    "algorithm.engine",
    "`engine_name` comes with `engine_version` (or a custom `image_url`)",
    "warning",
    f"{_PAGES}: a preset engine is `engine_name` + `engine_version`; no refusal of a lone name is known.",
)
ENGINE_CHOICE = _declare(
    "engine-choice",
    "algorithm.engine",
    "give `engine_id`, `engine_name` (with `engine_version`) or `image_url`",
    "error",
    f"{_SDK} `JobEngine`: choose one of engine_id, engine_name + engine_version and image_url (三选一); "
    "an engine with none of them names nothing to run on.",
)
INSTALL_SYS_PACKAGES = _declare(
    "install-sys-packages",
    "algorithm.engine",
    "`install_sys_packages` only with `engine_name`, `engine_version` and `image_url`",
    "warning",
    f'{_SDK} `JobEngine`: "only supported when engine_name, engine_version and image_url are filled in"; '
    "no refusal is known.",
)
SUBSCRIPTION_PAIR = _declare(
    "subscription-pair",
    "algorithm",
    "`subscription_id` and `item_version_id` come together",
    "warning",
    f'{_PAGES}: "must be used with"; {_SDK} `JobAlgorithm`: "should appear together" (应与…一同出现); '
    "no refusal is known.",
)
CODE_PAIR = _declare(
    "code-pair",
    "algorithm",
    "`code_dir` and `boot_file` come together",
    "warning",
    f'{_PAGES} and {_SDK}: "must be used together"; {_TF_DEBUG} sends `code_dir` with a `command` and no '
    "`boot_file`, and the service accepts it.",
)
ONE_ALGORITHM = _declare(
    "one-algorithm",
    "algorithm",
    "use `id` or `subscription_id`, not both",
    "warning",
    f"{_PAGES} list them as alternatives; nothing shows the service refusing both, nor which it uses.",
)
ALGORITHM_OWN_CODE = _declare(
    "algorithm-leaves-code-blank",
    "algorithm",
    "with `id` or `subscription_id`, leave `code_dir`, `boot_file`, `engine` and `command` blank",
    "warning",
    f'{_PAGES}: "if id or subscription_id+item_version_id is set, leave it blank"; {_SDK}: "no need to '
    f'fill in"; {_TF_BASIC} sends an algorithm `id` with `code_dir` and `boot_file` and the service '
    "accepts it.",
)
ALGORITHM_SOURCE = _declare(
    "algorithm-source",
    "algorithm",
    "choose what runs: `id`, `subscription_id` (with `item_version_id`), or an `engine` with code or a "
    "command",
    "error",
    f"{_PAGES}: the algorithm is one of these sources; an algorithm with none of them names nothing to run.",
)
ENGINE_FOR_CODE = _declare(
    "engine-for-code",
    "algorithm",
    "your own `code_dir`/`boot_file` or `command` needs an `engine`",
    "error",
    f"{_SDK} `JobEngine`: an engine is chosen by id, name + version or image; without one there is nothing "
    "to run the code on.",
)
COMMAND_CUSTOM_IMAGE = _declare(
    "command-custom-image",
    "algorithm",
    "`command` is for a custom image (`engine.image_url`)",
    "warning",
    f'{_PAGES} and {_SDK}: "the start command of a custom image"; no refusal on a preset engine is known.',
)
SOMETHING_TO_START = _declare(
    "something-to-start",
    "algorithm",
    "an `engine` runs `code_dir` with `boot_file`, or (custom images) a `command`",
    "warning",
    f"{_PAGES}: code_dir/boot_file start a preset engine's job, command a custom image's; what the service "
    "does without them is not documented.",
)
ENV_NAME = _declare(
    "env-name",
    "algorithm.environments, tasks[].algorithm.environments",
    "a variable's name is not empty and holds no `=` or NUL character",
    "error",
    "POSIX: a process's environment is `name=value` strings ended by NUL, so no process can receive such a "
    "name as written; Kubernetes (the job's `schedule_policy` is its node affinity) refuses such a name in a "
    "container's `env` in every version.",
)
ENV_NAME_SHAPE = _declare(
    "env-name-shape",
    "algorithm.environments, tasks[].algorithm.environments",
    "a variable's name is letters, digits and `_`, not starting with a digit",
    "warning",
    f'{_SDK} `JobAlgorithm`: names "should contain only letters, digits and underscores, and start with a '
    'letter or an underscore" (变量名应该…); `TaskAlgorithm` states no constraint. No refusal by the '
    "service is known: Kubernetes takes any printable ASCII name without `=` since 1.30 (before, letters, "
    "digits, `_`, `-` and `.`, not starting with a digit), and a process receives such a name (only a shell "
    "cannot refer to it).",
)
TASK_CODE_PAIR = _declare(
    "task-code-pair",
    "tasks[].algorithm",
    "`code_dir` and `boot_file` come together",
    "warning",
    f'{_PAGES}: "must be used together"; no refusal is known (the same rule of `algorithm` is contradicted '
    f"by {_TF_DEBUG}).",
)
RESOURCE_CHOICE = _declare(
    "resource-choice",
    "spec.resource",
    "give `flavor_id`, `pool_id` (dedicated pool) or `pool_group_id` (pool federation)",
    "error",
    f'{_PAGES}: "select either flavor_id or pool_id+[flavor_id]"; {_TF}: `resource` is Required; with '
    "none of them the job has no machines.",
)
CUSTOMIZED_FLAVOR_POOL = _declare(
    "customized-flavor-pool",
    "spec.resource",
    "`main_container_customized_flavor` is for dedicated pools (`pool_id`)",
    "warning",
    f"{_TF_DEBUG} uses it with `pool_id` (a share of a dedicated pool's node); {_SDK} "
    "`MainContainerCustomizedFlavor` states no such limit; no refusal without a pool is known.",
)
VOLUME_PATH = _declare(
    "volume-path",
    "spec.volumes[].pfs, spec.volumes[].obs",
    "give the file system path, the mount point or both",
    "error",
    "an empty mount names nothing to mount.",
)
VOLUME_KIND = _declare(
    "volume-kind",
    "spec.volumes[]",
    "give `nfs`, `pfs` or `obs`",
    "error",
    f"{_SDK} `SpecVolumes`: a volume is one of them; an empty one names nothing to mount.",
)
VOLUME_KIND_ONE = _declare(
    "volume-kind-one",
    "spec.volumes[]",
    "one of `nfs`, `pfs` or `obs` per volume",
    "warning",
    f"{_SDK} `SpecVolumes` has the three side by side; nothing shows the service refusing two.",
)
SELECTOR_VALUES = _declare(
    "selector-values",
    "spec.schedule_policy.*.matchExpressions[], matchFields[]",
    "`In`/`NotIn` need values, `Exists`/`DoesNotExist` none, `Gt`/`Lt` one whole number",
    "error",
    f'{_SDK} `NodeSelectorRequirement`: "cannot be empty", "must be empty", "a single element, '
    'interpreted as an integer" (the Kubernetes node selector the scheduler is given refuses the rest).',
)
SELECTOR_TERM = _declare(
    "selector-term",
    "spec.schedule_policy.*.nodeSelectorTerms[], preference",
    "give `matchExpressions` or `matchFields`",
    "error",
    f"{_SDK} `NodeSelectorTerm`: a term is its requirements; an empty one selects nothing.",
)
SELECTOR_TERM_ONE = _declare(
    "selector-term-one",
    "spec.schedule_policy.*.nodeSelectorTerms[], preference",
    "`matchExpressions` or `matchFields`, not both",
    "warning",
    f"{_SDK} `NodeSelectorTerm` and {_TF} (which sends both keys of every term) allow both; a node must "
    "then meet both; nothing shows the service refusing it.",
)
AFFINITY_ONE = _declare(
    "affinity-one",
    "spec.schedule_policy",
    "`required_affinity` or `preferred_affinity`, not both",
    "warning",
    f"{_TF_DEBUG} uses each on its own; nothing shows the service refusing both.",
)
METRIC_SOURCE = _declare(
    "metric-source",
    "spec.custom_metrics[]",
    "give `exec` or `http_get`",
    "error",
    f"{_SDK}: a metric is collected by a command or an HTTP endpoint; an empty one collects nothing.",
)
METRIC_SOURCE_ONE = _declare(
    "metric-source-one",
    "spec.custom_metrics[]",
    "`exec` or `http_get`, not both",
    "warning",
    f"{_SDK} has the two side by side; nothing shows the service refusing both.",
)
ALGORITHM_REQUIRED = _declare(
    "algorithm-required",
    "(the job)",
    "an `algorithm` is required (or `tasks` for a heterogeneous job)",
    "error",
    f"{_TF}: `algorithm` is Required; a job with neither names nothing to run.",
)
TASKS_WITH_SPEC = _declare(
    "tasks-with-spec",
    "(the job)",
    "leave `tasks` blank when `spec` is given",
    "warning",
    f'{_PAGES}: "if this parameter is specified, leave the tasks parameter blank", and tasks are "not '
    'implemented currently"; no refusal is known.',
)
FEDERATED_POOL_GROUP = _declare(
    "federated-pool-group",
    "(the job)",
    "a `federated_pool_job` needs `spec.resource.pool_group_id`",
    "error",
    f'{_SDK} `SpecResource`: "required when kind is federated_pool_job" (该字段必填).',
)

"""The dynamic provider behind ``TrainingJob``: check, diff, create, read, update, delete.

The provider object is pickled into the Pulumi state (by reference: it lives in this package and has no
attributes), so it holds no settings, credentials or clients. Each call resolves settings from the stack
config handed to ``configure`` (kept in a process-wide holder) and the environment, and opens a client for the
duration of the call. The provider host runs up to four calls at once on threads; the only shared mutable
state is that holder, guarded by a lock.

Progress goes to stderr, which the Pulumi CLI shows as diagnostics.

Testing knob: ``PULUMI_MODELARTS_POLL_SECONDS`` (default 1) is the first pause between status polls; pauses
grow by half each time up to fifteen times that value (15 s by default). Tests set it to a few hundredths.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from . import diffing
from . import lifecycle as lc
from .errors import BadRequestError, ModelArtsError, NotFoundError
from .phases import Phase, SecondaryPhase, is_stopped, is_terminable
from .settings import CONFIG_NAMESPACE, resolve_settings

# The Pulumi program imports this module only to name the provider class; pydantic, httpx and the wire
# models (most of the package's import time) load on the first check or API call, in the provider host.
if TYPE_CHECKING:
    from .client import ModelArtsClient
    from .models import TrainingJob

__all__ = [
    "POLL_SECONDS_ENV",
    "ProvisioningError",
    "TrainingJobProvider",
    "current_config",
    "job_outputs",
    "set_config",
]

POLL_SECONDS_ENV = "PULUMI_MODELARTS_POLL_SECONDS"
DEFAULT_POLL_SECONDS = 1.0
POLL_CAP_FACTOR = 15.0
# How long delete waits for a terminated job to leave Terminating (real time, whatever the poll knob says).
DELETE_WAIT_SECONDS = 300.0
# Attempts per API call (retries on throttling, 5xx and lost connections; never on bad credentials).
CLIENT_MAX_ATTEMPTS = 10

_CONFIG_LOCK = threading.Lock()
_CONFIG: dict[str, str] = {}


def set_config(config: Mapping[str, object]) -> None:
    """Remember the ``modelarts:*`` stack config for this process (called by ``configure``)."""
    kept = {
        str(k): str(v)
        for k, v in config.items()
        if v is not None and isinstance(k, str) and k.startswith(f"{CONFIG_NAMESPACE}:")
    }
    with _CONFIG_LOCK:
        _CONFIG.clear()
        _CONFIG.update(kept)


def current_config() -> dict[str, str]:
    with _CONFIG_LOCK:
        return dict(_CONFIG)


class ProvisioningError(ModelArtsError):
    """A job failed, was stopped, vanished or timed out while create waited for it."""


def _say(message: str) -> bool:
    """Write one progress line to stderr; False when nobody reads it any more (the engine was killed)."""
    # One write per line: print() writes the text and the newline separately, so lines from concurrent
    # provider threads could run together in the CLI's diagnostics.
    # Progress is informative only: once nobody reads stderr, a failed write must not abort a create, or its
    # wait would give up on, and terminate, a healthy job left for adoption.
    try:
        sys.stderr.write(f"modelarts: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


def _poll_delays() -> Iterator[float]:
    try:
        base = float(os.environ.get(POLL_SECONDS_ENV, "") or DEFAULT_POLL_SECONDS)
    except ValueError:
        base = DEFAULT_POLL_SECONDS
    if not (0 < base <= 60):
        base = DEFAULT_POLL_SECONDS
    return lc.backoff(base, base * POLL_CAP_FACTOR)


def _client() -> ModelArtsClient:
    # Settings and credentials are resolved afresh on every call and never kept.
    settings = resolve_settings(current_config(), os.environ)
    # A deployment makes many calls; with the client's default five attempts a throttled or flaky service
    # (a third of calls refused) fails roughly one call in 300, i.e. often one resource per `pulumi up`.
    # Retries are announced on stderr so users see why a step is slow and when a lost create was recovered.
    from .client import ModelArtsClient

    return ModelArtsClient.from_settings(settings, max_attempts=CLIENT_MAX_ATTEMPTS, log=_say)


def _label(job: TrainingJob, fallback_id: str | None = None) -> str:
    return lc.describe_job(job.name, job.job_id or fallback_id)


def job_outputs(job: TrainingJob, declared: Mapping[str, Any] | None) -> dict[str, Any]:
    """The resource's outputs: the job as the service returns it (JSON-ready) plus ``declared_inputs``.

    Environment variables appear only in ``environments`` (a secret output); they are removed from the
    ``algorithm`` output, which is not secret.
    """
    from .models import environments_map

    wire = job.model_dump(mode="json", exclude_none=True)
    algorithm = dict(wire.get("algorithm") or {})
    algorithm.pop("environments", None)
    environments = environments_map(job.algorithm.environments) if job.algorithm is not None else {}
    if not environments and declared:
        declared_algorithm = declared.get("algorithm")
        if isinstance(declared_algorithm, Mapping):
            declared_env = declared_algorithm.get("environments")
            if isinstance(declared_env, Mapping):
                environments = {str(k): str(v) for k, v in declared_env.items()}
    status = wire.get("status") or {}
    outs: dict[str, Any] = {
        "kind": wire.get("kind") or "job",
        "metadata": wire.get("metadata") or {},
        "name": job.name or "",
        "status": status,
        "phase": job.phase or "",
        "secondary_phase": job.secondary_phase or "",
        "algorithm": algorithm,
        "spec": wire.get("spec") or {},
        "tasks": wire.get("tasks") or [],
        "endpoints": wire.get("endpoints") or {},
        "environments": environments,
    }
    if declared is not None:
        outs["declared_inputs"] = dict(declared)
    return outs


# ---------------------------------------------------------------------------------------------------------
# check helpers


def _path(parent: str, key: object) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def _strip_unknowns(value: Any, path: str, found: list[str]) -> Any:
    """value with unknowns replaced by None; the paths of the unknowns are appended to found."""
    if diffing.is_unknown(value):
        found.append(path)
        return None
    if isinstance(value, Mapping):
        return {k: _strip_unknowns(v, _path(path, k), found) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_unknowns(v, _path(path, i), found) for i, v in enumerate(value)]
    return value


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + ".") or path.startswith(root + "[")


def _parent(path: str) -> str:
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def _affected_by_unknown(path: str, unknowns: list[str]) -> bool:
    # A problem at, below or above an unknown value, or a rule between siblings of one, may go away once the
    # value is known: skip it now; create validates again with everything known.
    for unknown in unknowns:
        if _under(path, unknown) or _under(unknown, path):
            return True
        parent = _parent(path)
        if parent and _under(unknown, parent):
            return True
    return False


def _body_failures(body: Mapping[str, Any]) -> list[CheckFailure]:
    import pydantic

    from .models import problems, validate_create_request

    unknowns: list[str] = []
    plain = _strip_unknowns(dict(body), "", unknowns)
    try:
        validate_create_request(plain, require_name=True)
    except pydantic.ValidationError as exc:
        return [
            CheckFailure(path, reason)
            for path, reason in problems(exc)
            if not _affected_by_unknown(path, unknowns)
        ]
    return []


def _settings_failures(inputs: Mapping[str, Any]) -> list[CheckFailure]:
    failures: list[CheckFailure] = []
    allowed = set(diffing.INPUT_FIELDS)
    for key in inputs:
        if key not in allowed:
            failures.append(
                CheckFailure(key, f"unknown property; expected one of {', '.join(diffing.INPUT_FIELDS)}")
            )
    wait_for = inputs.get("wait_for")
    if wait_for is not None and not diffing.is_unknown(wait_for):
        try:
            lc.WaitFor.parse(wait_for)
        except ValueError as exc:
            failures.append(CheckFailure("wait_for", str(exc)))
    timeout = inputs.get("wait_timeout")
    if timeout is not None and not diffing.is_unknown(timeout):
        try:
            lc.parse_duration(timeout)
        except ValueError as exc:
            failures.append(CheckFailure("wait_timeout", str(exc)))
    flag = inputs.get("replace_when_failed")
    if flag is not None and not diffing.is_unknown(flag) and not isinstance(flag, bool):
        failures.append(CheckFailure("replace_when_failed", "must be true or false"))
    prefix = inputs.get("name_prefix")
    if prefix is not None and not diffing.is_unknown(prefix) and not isinstance(prefix, str):
        failures.append(CheckFailure("name_prefix", "must be text"))
    return failures


def _wait_settings(inputs: Mapping[str, Any]) -> tuple[lc.WaitFor, float]:
    wait_for = inputs.get("wait_for")
    timeout = inputs.get("wait_timeout")
    return (
        lc.WaitFor.parse(wait_for) if wait_for is not None else lc.DEFAULT_WAIT_FOR,
        lc.parse_duration(timeout) if timeout is not None else lc.DEFAULT_WAIT_TIMEOUT_SECONDS,
    )


# ---------------------------------------------------------------------------------------------------------


class TrainingJobProvider(ResourceProvider):
    """CRUD for ModelArts training jobs. Stateless: safe to pickle, safe to share between threads."""

    def configure(self, req: ConfigureRequest) -> None:
        # pulumi.dynamic.Config exposes no iteration; its raw map holds every "namespace:key" of the stack.
        raw = getattr(req.config, "_props", None)
        set_config(raw if isinstance(raw, Mapping) else {})

    # ------------------------------------------------------------------ check

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        try:
            return self._check(_olds, news)
        except Exception as exc:  # check must answer, never crash, whatever it is given
            return CheckResult(dict(news), [CheckFailure("", f"the inputs could not be checked: {exc}")])

    def _check(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> CheckResult:
        inputs = diffing.normalise_inputs(news)
        old_inputs = diffing.normalise_inputs(olds) if isinstance(olds, Mapping) else {}
        failures = _settings_failures(inputs)
        inputs = diffing.with_job_name(inputs, old_inputs)
        if not failures and old_inputs and inputs == old_inputs:
            # The very inputs a previous check accepted (the engine stores inputs only after a successful
            # create or update): validating them again would only load the wire models, the dominant cost
            # of a no-change preview. create validates again anyway before anything is sent.
            return CheckResult(inputs, [])
        failures.extend(_body_failures(diffing.job_body(inputs)))
        return CheckResult(inputs, failures)

    # ------------------------------------------------------------------ diff

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        declared = _olds.get("declared_inputs")
        decision = diffing.decide(
            declared if isinstance(declared, Mapping) else None,
            _news,
            last_phase=_olds.get("phase"),
            last_secondary_phase=_olds.get("secondary_phase"),
        )
        if "status" in decision.replaces:
            _say(f"training job {_olds.get('name') or _id} will be replaced: {'; '.join(decision.reasons)}")
        # delete_before_replace: a replaced training job is obsolete, and two live jobs must not share a name.
        return DiffResult(
            changes=decision.changes,
            replaces=decision.replaces,
            delete_before_replace=True,
        )

    # ------------------------------------------------------------------ create

    def create(self, props: dict[str, Any]) -> CreateResult:
        import pydantic

        from .models import problems, validate_create_request

        inputs = diffing.normalise_inputs(props)
        wait_for, timeout = _wait_settings(inputs)
        try:
            request = validate_create_request(diffing.job_body(inputs), require_name=True)
        except pydantic.ValidationError as exc:
            details = "; ".join(f"{path}: {reason}" for path, reason in problems(exc))
            raise ValueError(f"the training job inputs are not valid: {details}") from None
        with _client() as client:
            job: TrainingJob = client.create_job(request)
            job_id = job.job_id or ""
            _say(f"{_label(job)} created, phase {job.phase or 'unknown'}")
            if wait_for is not lc.WaitFor.NONE:
                try:
                    job = self._wait_for(client, job, job_id, wait_for, timeout)
                except ModelArtsError:
                    raise
                except Exception as exc:
                    # Anything else (a bug, an untranslated library error) would leave a job Pulumi never
                    # learns about running and billing: stop it first, as for every other failed wait.
                    # Its text is not ours: scrub any credential it might echo.
                    detail = client.scrub(f"{type(exc).__name__}: {exc}")
                    reason = f"could not be watched any more ({detail})"
                    raise self._give_up(client, job, job_id, reason, wait_for) from None
        return CreateResult(job_id, job_outputs(job, inputs))

    def _wait_for(
        self, client: ModelArtsClient, job: TrainingJob, job_id: str, wait_for: lc.WaitFor, timeout: float
    ) -> TrainingJob:
        start = time.monotonic()
        deadline = start + timeout
        delays = _poll_delays()
        seen_phase = job.phase
        name = job.name
        while True:
            verdict = lc.classify(job.phase, wait_for, job.secondary_phase)
            if job.phase != seen_phase:
                seen_phase = job.phase
                elapsed = lc.format_elapsed(time.monotonic() - start)
                _say(f"{name} (id {job_id}) {job.phase or 'unknown'} after {elapsed}")
            if verdict is lc.Verdict.DONE:
                return job
            if verdict is lc.Verdict.FAILED:
                if is_stopped(job.phase):
                    reason = f"was stopped (phase {job.phase}) before it reached {wait_for.value}"
                else:
                    reason = f"ended {job.phase}"
                    if job.secondary_phase == SecondaryPhase.CREATE_FAILED:
                        reason += " (creation failed)"
                raise self._give_up(client, job, job_id, reason, wait_for)
            now = time.monotonic()
            if now >= deadline:
                reason = (
                    f"did not reach {wait_for.value} within {lc.format_elapsed(timeout)} "
                    f"(wait_timeout); it was still {job.phase or 'unknown'}"
                )
                raise self._give_up(client, job, job_id, reason, wait_for)
            time.sleep(max(0.0, min(next(delays), deadline - now)))
            try:
                job = client.get_job(job_id)
            except NotFoundError:
                raise ProvisioningError(
                    f"{lc.describe_job(name, job_id)} disappeared while waiting for it to reach "
                    f"{wait_for.value}; nothing is left running."
                ) from None
            except ModelArtsError as exc:
                raise self._give_up(
                    client, job, job_id, f"could not be watched any more ({exc})", wait_for
                ) from None

    def _give_up(
        self, client: ModelArtsClient, job: TrainingJob, job_id: str, reason: str, wait_for: lc.WaitFor
    ) -> ProvisioningError:
        """Terminate the job if it still runs, and build the error create raises (no id reaches the state)."""
        terminated: bool | None = False
        if is_terminable(job.phase) and not _say(f"{_label(job, job_id)} {reason}; terminating it"):
            # Nobody reads this provider any more: the engine was killed mid-create. The job now belongs to
            # the recovery procedure (modelarts-orphans adopts or stops it); stopping it here could end a job
            # the user is keeping.
            terminated = None
        elif is_terminable(job.phase):
            try:
                client.terminate_job(job_id)
                terminated = True
                _say(f"{_label(job, job_id)} terminated")
            except NotFoundError:
                terminated = False
            except ModelArtsError as exc:
                terminated = None
                _say(f"terminating {_label(job, job_id)} failed: {exc}")
        status = job.status.model_dump(mode="json", exclude_none=True)
        return ProvisioningError(
            lc.describe_failure(
                name=job.name,
                job_id=job_id,
                status=status,
                reason=reason,
                terminated=terminated,
                wait_for=wait_for,
            )
        )

    # ------------------------------------------------------------------ read

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        declared = props.get("declared_inputs")
        with _client() as client:
            try:
                job: TrainingJob = client.get_job(id_)
            except NotFoundError:
                # An empty id tells the engine the job is gone: refresh drops it from the state.
                _say(f"training job {id_} no longer exists")
                return ReadResult("", {})
        outs = job_outputs(job, declared if isinstance(declared, Mapping) else None)
        return ReadResult(job.job_id or id_, outs)

    # ------------------------------------------------------------------ update

    def update(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> UpdateResult:
        inputs = diffing.normalise_inputs(_news)
        declared = _olds.get("declared_inputs")
        decision = diffing.decide(declared if isinstance(declared, Mapping) else None, inputs)
        with _client() as client:
            try:
                if decision.description_changed:
                    metadata = inputs.get("metadata")
                    description = metadata.get("description") if isinstance(metadata, Mapping) else None
                    client.update_description(_id, description or "")
                    _say(f"training job {_id}: description updated")
                job: TrainingJob = client.get_job(_id)
            except NotFoundError:
                raise ProvisioningError(
                    f"training job {_id} no longer exists; run `pulumi refresh` to drop it from the state "
                    "(the next `pulumi up` then creates a new job)"
                ) from None
        return UpdateResult(job_outputs(job, inputs))

    # ------------------------------------------------------------------ delete

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        with _client() as client:
            try:
                job: TrainingJob = client.get_job(_id)
            except NotFoundError:
                _say(f"training job {_id} is already gone")
                return
            label = _label(job, _id)
            if is_terminable(job.phase):
                try:
                    job = client.terminate_job(_id)
                    _say(f"{label} terminating")
                except NotFoundError:
                    return
                except BadRequestError:
                    # It may have finished (or gone) between the two calls; look again before giving up.
                    try:
                        job = client.get_job(_id)
                    except NotFoundError:
                        _say(f"{label} is already gone")
                        return
                    if is_terminable(job.phase):
                        raise
            else:
                _say(f"{label} is {job.phase or 'in an unknown phase'}; nothing to stop")
            self._wait_stopped(client, job, _id, label)

    def _wait_stopped(self, client: ModelArtsClient, job: TrainingJob, job_id: str, label: str) -> None:
        start = time.monotonic()
        deadline = start + DELETE_WAIT_SECONDS
        delays = _poll_delays()
        # Right after terminate the service may still report the old phase; Terminating comes next.
        while job.phase == Phase.TERMINATING or is_terminable(job.phase):
            now = time.monotonic()
            if now >= deadline:
                raise ProvisioningError(
                    f"{label} is still {job.phase} after {lc.format_elapsed(now - start)}; "
                    "run `pulumi destroy` (or `pulumi up`) again to finish deleting it"
                )
            time.sleep(max(0.0, min(next(delays), deadline - now)))
            try:
                job = client.get_job(job_id)
            except NotFoundError:
                return
        _say(f"{label} {job.phase or 'stopped'} after {lc.format_elapsed(time.monotonic() - start)}")

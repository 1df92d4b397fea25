"""check: the inputs validated and normalised before anything is planned or sent, with their failures
(which refuse them) and warnings (which let them pass). No API call is made.

The body is validated by the wire models (``models.validate_create_request``), the other inputs by
``resource_schema.ProviderSettings``; values not known yet (a preview) are skipped. Importing this module
is cheap:
pydantic and the wire models load on the first check that needs them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..account.settings import settings_problem
from ..generated.fields import INPUT_FIELDS, JOB_FIELDS, NAME_SCOPE_FIELD
from . import naming, normalising

__all__ = ["Checked", "Failure", "check"]


class Failure(NamedTuple):
    """One problem with the inputs: the path of the field ("spec.resource.node_count") and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class Checked:
    """The inputs as they will be stored (normalised, auto-named), what is wrong with them (failures refuse
    the inputs) and what the API pages advise against that the service still accepts (warnings: the front-end
    shows them on the job, the inputs pass; see docs/input-rules.md)."""

    inputs: dict[str, Any]
    failures: list[Failure] = field(default_factory=list)
    warnings: list[Failure] = field(default_factory=list)


def check(
    olds: Mapping[str, Any] | None,
    news: Mapping[str, Any],
    *,
    config: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    misplaced: Iterable[str] = (),
) -> Checked:
    """Validate and normalise the new inputs (olds: the inputs accepted last time, if any). Never raises.

    Values not known yet (preview) are accepted; problems they might resolve are not reported. With config
    (the stack config the front-end was given; environ defaults to the process environment), the settings
    are checked too, by the rules every call applies, and named near-miss config keys (``misplaced``) are
    pointed out; no API call is made.
    """
    try:
        checked = _check(olds if isinstance(olds, Mapping) else {}, news)
    except Exception as exc:  # check must answer, never crash, whatever it is given
        return Checked(dict(news), [Failure("", f"the inputs could not be checked: {exc}")])
    if config is not None:
        problem = settings_problem(config, os.environ if environ is None else environ, misplaced)
        if problem is not None:
            checked.failures.append(Failure("", problem))
    return checked


def _check(olds: Mapping[str, Any], news: Mapping[str, Any]) -> Checked:
    inputs = normalising.normalise_inputs(news)
    old_inputs = normalising.normalise_inputs(olds) if olds else {}
    failures = _name_scope_failures(inputs.get(NAME_SCOPE_FIELD))
    inputs = naming.with_job_name(inputs, old_inputs)
    if not failures and old_inputs and inputs == old_inputs:
        # The very inputs a previous check accepted (the engine stores inputs only after a successful create
        # or update): validating them again would only load the models, the dominant cost of a no-change
        # preview. create validates again anyway before anything is sent.
        return Checked(inputs, [])
    failures.extend(_settings_failures(inputs))
    body_failures, warnings = _body_problems(normalising.job_body(inputs))
    failures.extend(body_failures)
    return Checked(inputs, failures, warnings)


def _body_problems(body: Mapping[str, Any]) -> tuple[list[Failure], list[Failure]]:
    """The request's failures and, when it has none, its warnings."""
    import pydantic

    from ..wire.models import advice, problems, validate_create_request

    unknowns: list[str] = []
    plain = normalising.strip_unknowns(dict(body), "", unknowns)
    try:
        request = validate_create_request(plain, require_name=True)
    except pydantic.ValidationError as exc:
        # A problem an unknown value may resolve is skipped now; create validates again with everything known.
        failures = [
            Failure(path, reason)
            for path, reason in problems(exc)
            if not normalising.affected_by_unknown(path, unknowns)
        ]
        return failures, []
    # Likewise for advice: a value not known yet may be the very one that makes it moot.
    warnings = [
        Failure(path, reason)
        for path, reason in advice(request)
        if not normalising.affected_by_unknown(path, unknowns)
    ]
    return [], warnings


def _settings_failures(inputs: Mapping[str, Any]) -> list[Failure]:
    """The inputs other than the job body, validated by ``resource_schema.ProviderSettings`` (values not
    known yet are skipped); a key it does not know is an unknown property. name_scope is
    ``_name_scope_failures``'."""
    import pydantic

    from ..wire.models import problems
    from .resource_schema import ProviderSettings

    settings = {
        key: value
        for key, value in inputs.items()
        if key not in JOB_FIELDS and key != NAME_SCOPE_FIELD and not normalising.is_unknown(value)
    }
    try:
        ProviderSettings.model_validate(settings)
    except pydantic.ValidationError as exc:
        unknown = {str(e["loc"][0]) for e in exc.errors() if e["type"] == "extra_forbidden" and e["loc"]}
        expected = f"unknown property; expected one of {', '.join(INPUT_FIELDS)}"
        return [Failure(key, expected) for key in settings if key in unknown] + [
            Failure(path, reason) for path, reason in problems(exc, ProviderSettings) if path not in unknown
        ]
    return []


def _name_scope_failures(scope: object) -> list[Failure]:
    """name_scope is set by the resource to "<project>/<stack>"; anything else was set by hand."""
    if scope is None or normalising.is_unknown(scope):
        return []
    field_name = NAME_SCOPE_FIELD
    if not isinstance(scope, str) or scope.count("/") != 1 or not all(scope.split("/")):
        return [
            Failure(field_name, 'is set by the TrainingJob resource to "<project>/<stack>"; do not set it')
        ]
    # The engine tells the provider host its project (not its stack): a scope naming another project was
    # not filled in by this program.
    project = os.environ.get("PULUMI_PROJECT")
    if project and scope.split("/")[0] != project:
        return [
            Failure(
                field_name,
                f"names project {scope.split('/')[0]!r}, but this is project {project!r}; "
                "it is set by the TrainingJob resource, do not set it",
            )
        ]
    return []

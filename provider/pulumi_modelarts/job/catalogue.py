"""A planned job checked against the account's training catalogue before anything is created.

A flavor the account is not offered, more nodes than a flavor takes (its ``max_num``) and an engine the
account does not list are refused by the service only when the job is created; read from the catalogue
(``GET .../training-job-flavors``, ``GET .../training-job-engines``) when a create or a replace is planned,
they fail ``pulumi preview`` instead, each at the path the user wrote. Never stricter than the service:

- machines of a dedicated pool (``pool_id``, ``pool_group_id``) are not checked against the public catalogue;
- values not known yet (a preview) and custom images (``image_url``) are not checked;
- when the catalogue cannot be read (refused, missing on a site, timed out) nothing is refused: the check is
  skipped, and said once per process, account and listing.

Each listing is read at most once per process and account (``Catalogue``); ``problems`` is pure.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ..wire.api_errors import APIError
from ..wire.errors import ModelArtsError, listing, shorten
from .checking import Failure
from .normalising import is_unknown, job_body, normalise_inputs
from .progress import Progress

if TYPE_CHECKING:
    from ..wire.api import ModelArtsAPI
    from ..wire.models import OfferedEngine, OfferedFlavor

__all__ = [
    "CATALOGUE",
    "CATALOGUE_ATTEMPTS",
    "CATALOGUE_WITHIN",
    "RULES",
    "Catalogue",
    "Verdict",
    "check_planned",
    "offered_engines",
    "offered_flavors",
    "problems",
    "wanted",
]

# A preview does not wait long for a check the service makes anyway: few attempts, a short bound on the
# account's set-up and on the retries' pauses (a service asking for a longer pause is not waited for).
CATALOGUE_ATTEMPTS = 3
CATALOGUE_WITHIN = 30.0
# The closest offered names a refusal suggests.
SUGGESTIONS = 3

FLAVORS, ENGINES = "flavors", "engines"


class CatalogueRule(NamedTuple):
    """One rule a planned job's inputs are held to against the catalogue (docs/input-rules.md: generated)."""

    key: str
    where: str
    rule: str
    evidence: str


_PAGES = (
    "The flavor and engine listings (`GET /v2/{project_id}/training-job-flavors`, `.../training-job-engines`;"
    " the official SDK's `ShowTrainingJobFlavors` and `ShowTrainingJobEngines`) are what the account may use"
)
RULES: tuple[CatalogueRule, ...] = (
    CatalogueRule(
        "flavor_offered",
        "spec.resource, tasks[].task_resource",
        "`flavor_id` is a flavor the account is offered; not checked with `pool_id` or `pool_group_id` (a "
        "dedicated pool's flavors are the pool's)",
        f"{_PAGES}; a job's `flavor_detail` is the listed flavor's (the terminate and show pages' answers).",
    ),
    CatalogueRule(
        "node_count_max_num",
        "spec.resource, tasks[].task_resource",
        "`node_count` is at most the flavor's `max_num`",
        "The pages' `flavor_detail.max_num`: the maximum number of nodes that can be selected, 1 meaning "
        "that distributed mode is not supported.",
    ),
    CatalogueRule(
        "engine_listed",
        "algorithm.engine, tasks[].algorithm.engine",
        "`engine_id`, else `engine_name` and `engine_version` (a version of that engine), name an engine the "
        "account lists; not checked with `image_url` (a custom image)",
        f"{_PAGES}; the create page: the engine is chosen by `engine_id`, by `engine_name` with "
        "`engine_version`, or by `image_url`.",
    ),
)


@dataclass(frozen=True)
class _Machines:
    path: str  # where the resource is: "spec.resource", "tasks[0].task_resource"
    value: Mapping[str, Any]


@dataclass(frozen=True)
class _Engine:
    path: str  # "algorithm.engine", "tasks[0].algorithm.engine"
    value: Mapping[str, Any]


def _given(value: object) -> bool:
    return isinstance(value, str) and value != "" and not is_unknown(value)


def _parts(inputs: Mapping[str, Any]) -> Iterator[_Machines | _Engine]:
    body = job_body(inputs)
    spec = body.get("spec")
    if isinstance(spec, Mapping) and isinstance(spec.get("resource"), Mapping):
        yield _Machines("spec.resource", spec["resource"])
    algorithm = body.get("algorithm")
    if isinstance(algorithm, Mapping) and isinstance(algorithm.get("engine"), Mapping):
        yield _Engine("algorithm.engine", algorithm["engine"])
    tasks = body.get("tasks")
    for i, task in enumerate(tasks if isinstance(tasks, list) else []):
        if not isinstance(task, Mapping):
            continue
        if isinstance(task.get("task_resource"), Mapping):
            yield _Machines(f"tasks[{i}].task_resource", task["task_resource"])
        algo = task.get("algorithm")
        if isinstance(algo, Mapping) and isinstance(algo.get("engine"), Mapping):
            yield _Engine(f"tasks[{i}].algorithm.engine", algo["engine"])


def _public_flavor(machines: Mapping[str, Any]) -> bool:
    if any(machines.get(k) not in (None, "") for k in ("pool_id", "pool_group_id")):
        return False  # a dedicated pool's flavors are the pool's, not the public catalogue's
    return _given(machines.get("flavor_id"))


def _engine_named(engine: Mapping[str, Any]) -> bool:
    if engine.get("image_url") not in (None, ""):
        return False  # a custom image: nothing of the catalogue's is used
    return any(_given(engine.get(k)) for k in ("engine_id", "engine_name", "engine_version"))


def wanted(inputs: Mapping[str, Any]) -> frozenset[str]:
    """The listings (``"flavors"``, ``"engines"``) a check of these inputs (normalised) needs; none: no call
    to make."""
    kinds: set[str] = set()
    for part in _parts(inputs):
        if isinstance(part, _Machines) and _public_flavor(part.value):
            kinds.add(FLAVORS)
        elif isinstance(part, _Engine) and _engine_named(part.value):
            kinds.add(ENGINES)
    return frozenset(kinds)


def _closest(value: str, offered: Sequence[str]) -> str:
    near = difflib.get_close_matches(value, offered, n=SUGGESTIONS, cutoff=0.5)
    if near:
        return f"did you mean {listing(repr(n) for n in near)}?"
    return f"offered: {listing(offered)}" if offered else "the account is offered none"


def _flavor_problems(part: _Machines, flavors: Sequence[OfferedFlavor]) -> Iterator[Failure]:
    flavor_id = str(part.value["flavor_id"])
    by_id = {f.flavor_id: f for f in flavors if f.flavor_id}
    flavor = by_id.get(flavor_id)
    if flavor is None:
        why = f"{flavor_id!r} is not a flavor this account is offered: {_closest(flavor_id, sorted(by_id))}"
        yield Failure(f"{part.path}.flavor_id", why)
        return
    most = flavor.max_num
    if most is None and flavor.flavor_info is not None:
        most = flavor.flavor_info.max_num
    count = part.value.get("node_count")  # a whole number as an int: the inputs are normalised
    if isinstance(count, bool) or not isinstance(count, int) or not isinstance(most, int):
        return
    if 0 < most < count:
        nodes = "node" if most == 1 else "nodes"
        yield Failure(
            f"{part.path}.node_count",
            f"is {count}, above the {most} {nodes} flavor {flavor_id!r} takes (its max_num)",
        )


def _engine_problems(part: _Engine, engines: Sequence[OfferedEngine]) -> Iterator[Failure]:
    engine = part.value
    engine_id = engine.get("engine_id")
    if _given(engine_id):
        ids = sorted({e.engine_id for e in engines if e.engine_id})
        if engine_id not in ids:
            why = f"{engine_id!r} is not an engine this account lists: {_closest(str(engine_id), ids)}"
            yield Failure(f"{part.path}.engine_id", why)
        return
    name, version = engine.get("engine_name"), engine.get("engine_version")
    names = sorted({e.engine_name for e in engines if e.engine_name})
    if _given(name) and name not in names:
        yield Failure(
            f"{part.path}.engine_name",
            f"{name!r} is not an engine this account lists: {_closest(str(name), names)}",
        )
        return
    if not _given(version):
        return
    of_name = [e for e in engines if not _given(name) or e.engine_name == name]
    versions = sorted({e.engine_version for e in of_name if e.engine_version})
    if version not in versions:
        of = f"{name!r} " if _given(name) else ""
        near = _closest(str(version), versions)
        yield Failure(
            f"{part.path}.engine_version",
            f"{version!r} is not a version of engine {of}this account lists: {near}",
        )


def problems(
    inputs: Mapping[str, Any],
    flavors: Sequence[OfferedFlavor] | None,
    engines: Sequence[OfferedEngine] | None,
) -> list[Failure]:
    """What the service would refuse in these inputs (normalised: ``normalising.normalise_inputs``), by the
    listings (None: not read, so not checked)."""
    found: list[Failure] = []
    for part in _parts(inputs):
        if isinstance(part, _Machines) and flavors is not None and _public_flavor(part.value):
            found.extend(_flavor_problems(part, flavors))
        elif isinstance(part, _Engine) and engines is not None and _engine_named(part.value):
            found.extend(_engine_problems(part, engines))
    return found


@dataclass
class Verdict:
    """failures: what the catalogue refuses; skipped: why a listing could not be read (each said once per
    process, account and listing: empty after that, and when every listing was read)."""

    failures: list[Failure] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _why(exc: ModelArtsError) -> str:
    """Why a listing was not read: the service's refusal in its own words (a policy that does not allow it, a
    site without the API), or what else went wrong."""
    if isinstance(exc, APIError):
        code = f" {exc.error_code}" if exc.error_code else ""
        said = f": {shorten(exc.error_msg)}" if exc.error_msg else ""
        return f"the service did not list them (HTTP {exc.status_code}{code}){said}"
    return str(exc)


@dataclass
class _Read:
    value: Any = None
    why: str | None = None
    said: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class Catalogue:
    """The listings read in this process, per account (endpoint and project) and listing: each read once, by
    the first check that needs it, while the others that need it wait for that read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reads: dict[tuple[str, str, str], _Read] = {}

    def check(self, inputs: Mapping[str, Any], open_client: Callable[[], ModelArtsAPI]) -> Verdict:
        """The catalogue's verdict on a planned create or replace (no call when there is nothing to check).
        inputs: the declared inputs, normalised here (the check's answer, or a diff's new inputs as sent)."""
        inputs = normalise_inputs(inputs)
        kinds = wanted(inputs)
        if not kinds:
            return Verdict()
        try:
            client = open_client()
        except ModelArtsError as exc:
            return Verdict(skipped=[f"the catalogue check was skipped: {exc}"])
        verdict = Verdict()
        with client:
            listings = {kind: self._listing(client, kind, verdict) for kind in sorted(kinds)}
        verdict.failures = problems(inputs, listings.get(FLAVORS), listings.get(ENGINES))
        return verdict

    def _listing(self, client: ModelArtsAPI, kind: str, verdict: Verdict) -> Any:
        key = (client.transport.endpoint, client.transport.project_id, kind)
        with self._lock:
            read = self._reads.get(key)
            first = read is None
            if read is None:
                read = self._reads[key] = _Read()
        if first:
            try:
                read.value = client.list_flavors().flavors if kind == FLAVORS else client.list_engines().items
            except ModelArtsError as exc:
                read.why = _why(exc)
            finally:
                read.done.set()
        else:
            read.done.wait()
        if read.why is not None:
            with self._lock:
                say, read.said = not read.said, True
            if say:
                verdict.skipped.append(f"the {kind} were not checked against the catalogue: {read.why}")
            return None
        return read.value


def offered_flavors(client: ModelArtsAPI, flavor_type: str | None = None) -> list[dict[str, Any]]:
    """The flavors the account is offered (of one type: ``CPU``, ``GPU``, ``Ascend``), as the service lists
    them (wire names); a type the service does not know is its to refuse."""
    from ..wire.models import to_wire

    return [to_wire(flavor) for flavor in client.list_flavors(flavor_type).flavors]


def offered_engines(client: ModelArtsAPI) -> list[dict[str, Any]]:
    """The preset engines the account lists, as the service lists them (wire names)."""
    from ..wire.models import to_wire

    return [to_wire(engine) for engine in client.list_engines().items]


#: The process's catalogue: what every front-end's checks share.
CATALOGUE = Catalogue()


def check_planned(inputs: Mapping[str, Any], config: Mapping[str, str], progress: Progress) -> Verdict:
    """The catalogue's verdict on the inputs of a job about to be created or replaced (checked inputs), for
    the account of config; reads what it needs at most once per process (``CATALOGUE``)."""
    from .core import open_client

    def opened() -> ModelArtsAPI:
        bound = CATALOGUE_WITHIN
        return open_client(config, progress, limit=bound, attempts=CATALOGUE_ATTEMPTS, retry_seconds=bound)

    return CATALOGUE.check(inputs, opened)

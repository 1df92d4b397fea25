"""Item 4 (fuzzing): `check` answers every input with check failures, never an exception.

`TrainingJobProvider.check` wraps its work in a catch-all that turns a crash into a failure at property ""
("the inputs could not be checked: ..."), so "check never raises" alone proves little. These properties are
stricter: the catch-all is never reached, every failure names a well-formed field path, valid declarations
pass untouched, and a single wrong value is reported at (or next to) the place it was put.

3,300 examples in total; the file runs in about 20 seconds on a 2-core machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pulumi.output import Unknown

from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.generated.fields import INPUT_FIELDS
from pulumi_modelarts.wire.models import validate_create_request

from ..check_failures import path_and_reason

_F = TypeVar("_F", bound=Callable[..., None])


def examples(n: int) -> Callable[[_F], _F]:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# A failure property: "" is only allowed for the catch-all, which must never show; otherwise dotted names
# with [n] indexes and odd keys quoted as Python string literals (['...'], or ["..."] and backslash escapes
# when the key itself holds quotes), e.g. "algorithm.inputs[0].remote.obs.obs_url".
_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
PATH_RE = re.compile(rf"^[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\]|\[(?:{_QUOTED})\]|\.[A-Za-z0-9_-]+)*$")

# Every key the create body knows at some depth, plus near-misses, so random trees hit real branches.
KEYS = [
    "kind", "metadata", "name", "description", "annotations", "workspace_id", "algorithm", "id",
    "subscription_id", "item_version_id", "code_dir", "boot_file", "command", "engine", "engine_id",
    "engine_name", "engine_version", "image_url", "parameters", "value", "inputs", "outputs", "remote",
    "obs", "obs_url", "dataset", "dataset_id", "dataset_version_id", "environments", "local_dir",
    "spec", "resource", "flavor_id", "node_count", "pool_id", "policy", "volumes", "nfs", "log_export_path",
    "tasks", "role", "wait_for", "wait_timeout", "replace_when_failed", "name_prefix", "triggers",
    "flavour_id", "Name", "zzz", "",
]  # fmt: skip

leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=80),
    st.sampled_from(["", " ", "job", "running", "none", "30m", "1h30m", "-1", "0", "obs://b/", "a" * 300]),
    st.just(Unknown()),  # type: ignore[no-untyped-call]
)
junk = st.recursive(
    leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), children, max_size=5),
    ),
    max_leaves=15,
)
top_level = st.dictionaries(st.sampled_from([*INPUT_FIELDS, "zzz", "spex"]), junk, max_size=9)


def run_check(olds: dict[str, Any], news: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    result = TrainingJobProvider().check(olds, {**news, "__provider": "p"})
    failures = [path_and_reason(f) for f in result.failures]
    for prop, reason in failures:
        assert "could not be checked" not in reason, f"check crashed inside: {reason} for {news!r}"
        assert isinstance(reason, str) and reason.strip()
        assert PATH_RE.match(prop), f"malformed failure path {prop!r} ({reason}) for {news!r}"
        assert "Traceback" not in reason
    assert isinstance(result.inputs, dict)
    return result.inputs, failures


@examples(1500)
@given(top_level)
@example({"tasks": [{"'\"": False}]})  # a key holding both quote characters (found by this test)
def test_random_trees_give_only_check_failures(news: dict[str, Any]) -> None:
    run_check({}, news)


@examples(400)
@given(top_level, top_level)
def test_random_olds_and_news_give_only_check_failures(olds: dict[str, Any], news: dict[str, Any]) -> None:
    run_check(olds, news)


# ---------------------------------------------------------------------------------------------------------
# Valid declarations


name_text = st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True)
obs_path = st.from_regex(r"/[a-z0-9]{1,10}/[a-z0-9/]{0,20}", fullmatch=True)
parameters = st.lists(
    st.fixed_dictionaries({"name": name_text, "value": st.text(min_size=1, max_size=20)}),
    max_size=3,
    unique_by=lambda p: str(p["name"]),
)
channels = st.lists(
    st.fixed_dictionaries(
        {
            "name": name_text,
            "remote": st.fixed_dictionaries({"obs": st.fixed_dictionaries({"obs_url": obs_path})}),
        }
    ),
    max_size=2,
    unique_by=lambda c: str(c["name"]),
)
custom_image = st.fixed_dictionaries(
    {
        "engine": st.fixed_dictionaries(
            {"image_url": st.from_regex(r"[a-z]{1,8}/[a-z]{1,8}:[0-9]", fullmatch=True)}
        ),
        "command": st.text(alphabet="abcdefgh ./_-", min_size=1, max_size=40).filter(str.strip),
    },
    optional={"parameters": parameters, "inputs": channels, "outputs": channels},
)
by_id = st.fixed_dictionaries(
    {"id": st.uuids().map(str)}, optional={"parameters": parameters, "inputs": channels}
)
valid = st.fixed_dictionaries(
    {
        "algorithm": st.one_of(custom_image, by_id),
        "spec": st.fixed_dictionaries(
            {
                "resource": st.fixed_dictionaries(
                    {
                        "flavor_id": st.sampled_from(
                            ["modelarts.vm.cpu.2u", "modelarts.p3.large.public.free"]
                        ),
                        # the engine hands numbers over as floats
                        "node_count": st.integers(min_value=1, max_value=16).map(float),
                    }
                )
            }
        ),
    },
    optional={
        "metadata": st.fixed_dictionaries(
            {}, optional={"name": name_text, "description": st.text(max_size=256)}
        ),
        "wait_for": st.sampled_from(["none", "pending", "running", "completed", "RUNNING"]),
        "wait_timeout": st.one_of(
            st.integers(min_value=1, max_value=604800), st.sampled_from(["30m", "1h30m", "90s"])
        ),
        "replace_when_failed": st.booleans(),
        "name_prefix": st.text(max_size=80),
        "triggers": st.lists(st.text(max_size=5), max_size=3),
    },
)


@examples(600)
@given(valid)
def test_valid_declarations_pass_and_are_stable(news: dict[str, Any]) -> None:
    inputs, failures = run_check({}, news)
    assert failures == [], news
    name = inputs["metadata"]["name"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name)
    body = {k: v for k, v in inputs.items() if k in ("kind", "metadata", "algorithm", "tasks", "spec")}
    validate_create_request(body, require_name=True)
    # Checking again (as the next preview does, with these as the old inputs) keeps the same name.
    again, failures = run_check(inputs, news)
    assert failures == [] and again["metadata"]["name"] == name


# ---------------------------------------------------------------------------------------------------------
# One wrong value in an otherwise valid declaration is reported where it was put


def _paths(value: Any, prefix: str = "") -> list[str]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, f"{prefix}[{i}]")
    return out


def _set(tree: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    import copy

    tree = copy.deepcopy(tree)
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    node: Any = tree
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    if last.startswith("["):
        node[int(last[1:-1])] = value
    else:
        node[last] = value
    return tree


def _related(failure: str, changed: str) -> bool:
    # At, above or below the changed value, or a sibling rule in its parent (e.g. "give either A or B").
    def under(a: str, b: str) -> bool:
        return a == b or a.startswith(b + ".") or a.startswith(b + "[")

    parent = (
        changed[: max(changed.rfind("."), changed.rfind("["))] if ("." in changed or "[" in changed) else ""
    )
    return under(failure, changed) or under(changed, failure) or (bool(parent) and under(failure, parent))


bad_values = st.one_of(
    st.sampled_from([None, True, -1.0, 0.0, 1e300, "", "x" * 300, "bad name!", [], {}, [1, 2], {"zzz": 1}]),
    st.text(max_size=5),
)


@examples(800)
@given(valid, st.data())
def test_one_wrong_value_is_reported_at_its_place(news: dict[str, Any], data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(_paths(news)))
    bad = data.draw(bad_values)
    changed = _set(news, path, bad)
    _inputs, failures = run_check({}, changed)
    for prop, reason in failures:
        assert _related(prop, path), f"{path} := {bad!r} gave an unrelated failure {prop}: {reason}"

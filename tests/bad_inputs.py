"""Wrong inputs and the field path each failure must name: held once for the in-process check of both
front-ends (tests/frontends/test_bad_inputs.py, every case) and the CLI's preview
(tests/cli/test_bad_input.py, the cases whose message the engine prints differently).

Each case is the keyword arguments a Python program gives ``TrainingJob`` in place of the base ones.
"""

from __future__ import annotations

from typing import Any

ALGORITHM: dict[str, Any] = {"engine": {"image_url": "org/img:1"}, "command": "python train.py"}
SPEC: dict[str, Any] = {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}}

# resource name -> (keyword arguments, the field path the failure must name)
CASES: dict[str, tuple[dict[str, Any], str]] = {
    "bad-name-chars": ({"metadata": {"name": "my job!"}}, "metadata.name"),
    "name-too-long": ({"metadata": {"name": "n" * 65}}, "metadata.name"),
    "description-too-long": ({"metadata": {"description": "d" * 257}}, "metadata.description"),
    "zero-nodes": (
        {"spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 0}}},
        "spec.resource.node_count",
    ),
    "misspelled-nested-key": (
        {"spec": {"resource": {"flavour_id": "modelarts.vm.cpu.2u"}}},
        "spec.resource.flavour_id",
    ),
    "input-without-remote": (
        {"algorithm": {**ALGORITHM, "inputs": [{"name": "data"}]}},
        "algorithm.inputs[0].remote",
    ),
    "wrong-wait-for": ({"wait_for": "runing"}, "wait_for"),
    "wrong-wait-timeout": ({"wait_timeout": "ten minutes"}, "wait_timeout"),
    "node-count-text": (
        {"spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": "two"}}},
        "spec.resource.node_count",
    ),
    "parameters-not-a-list": ({"algorithm": {**ALGORITHM, "parameters": "lr=0.1"}}, "algorithm.parameters"),
    "replace-flag-text": ({"replace_when_failed": "yes"}, "replace_when_failed"),
    "no-flavor": ({"spec": {"resource": {"node_count": 1}}}, "spec.resource.flavor_id"),
    # A flag is not a count (it used to go out as node_count 1).
    "node-count-flag": (
        {"spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": True}}},
        "spec.resource.node_count",
    ),
    # No process can receive an environment variable whose name holds "=": named by the key as written.
    "env-name-equals": (
        {"algorithm": {**ALGORITHM, "environments": {"GOOD": "1", "A=B": "2"}}},
        "algorithm.environments['A=B']",
    ),
    # Two problems in one resource: both are reported (TWO_PROBLEMS_NESTED is the other).
    "two-problems": (
        {"spec": {"resource": {"node_count": 0, "flavor_id": "modelarts.vm.cpu.8u"}}, "wait_for": "sometime"},
        "wait_for",
    ),
}
TWO_PROBLEMS_NESTED = ("spec.resource.node_count", "must be at least 1")

# The same paths through the native provider, where they differ: the engine receives the schema's names
# (camelCase; the Python SDK sends them too), and its check failures name what it received. A key the
# schema does not know (flavour_id) is named as written.
NATIVE_FIELDS: dict[str, str] = {
    "half-a-pair": "algorithm.itemVersionId",
    "engine-version-alone": "algorithm.engine.engineName",
    "zero-nodes": "spec.resource.nodeCount",
    "wrong-wait-for": "waitFor",
    "wrong-wait-timeout": "waitTimeout",
    "node-count-text": "spec.resource.nodeCount",
    "replace-flag-text": "replaceWhenFailed",
    "no-flavor": "spec.resource.flavorId",
    "node-count-flag": "spec.resource.nodeCount",
    "two-problems": "waitFor",
}
NATIVE_TWO_PROBLEMS_NESTED = "spec.resource.nodeCount"

# The API pages' advice the service does not enforce (docs/input-rules.md): these used to fail preview; now
# preview passes, with a warning naming the field.
WARNED: dict[str, tuple[dict[str, Any], str]] = {
    "two-algorithm-sources": (
        {
            "algorithm": {
                "id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed",
                "engine": {"image_url": "org/img:1"},
                "command": "python train.py",
            }
        },
        "algorithm.",
    ),
    "half-a-pair": ({"algorithm": {"subscription_id": "sub-1"}}, "algorithm.item_version_id"),
    "engine-version-alone": (
        {"algorithm": {"engine": {"engine_version": "2.1"}, "code_dir": "/b/c/", "boot_file": "/b/c/t.py"}},
        "algorithm.engine.engine_name",
    ),
    "spec-and-tasks": ({"tasks": [{"role": "worker"}]}, "tasks"),
    # A name a shell cannot refer to reaches the process all the same: the official SDK's advice only.
    "env-name-odd": (
        {"algorithm": {**ALGORITHM, "environments": {"1BAD NAME": "1"}}},
        "algorithm.environments['1BAD NAME']",
    ),
}


def arguments(case: dict[str, Any]) -> dict[str, Any]:
    """A case's keyword arguments with the base algorithm and spec where the case gives none."""
    return {"algorithm": ALGORITHM, "spec": SPEC, **case}


def field(name: str, *, native: bool) -> str:
    """The field path a front-end's failure or warning names for a case."""
    written = {**CASES, **WARNED}[name][1]
    return NATIVE_FIELDS.get(name, written) if native else written

"""check of inputs identical to the accepted old ones answers without loading the wire models.

That is what a no-change `pulumi preview` sends for every job; the models (pydantic) are the dominant cost of
a fresh provider process. Any difference still goes through full validation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

ACCEPTED = {
    "metadata": {"name": "train-abc123", "description": "nightly"},
    "algorithm": {"id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed"},
    "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
    "name_prefix": "train",
}

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

    olds, news = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    result = TrainingJobProvider().check(olds, news)
    print(json.dumps({
        "failures": [[f.property or f.reason.split(": ", 1)[0], f.reason] for f in result.failures],
        "models_loaded": "pulumi_modelarts.wire.models" in sys.modules,
        "inputs": result.inputs,
    }))
    """
)


def _check(olds: dict[str, object], news: dict[str, object]) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(olds), json.dumps(news)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def test_unchanged_inputs_skip_the_models() -> None:
    result = _check(ACCEPTED, ACCEPTED)
    assert result["failures"] == []
    assert result["models_loaded"] is False
    assert result["inputs"] == {**ACCEPTED, "kind": "job"}


def test_a_changed_input_is_validated_in_full() -> None:
    news = json.loads(json.dumps(ACCEPTED))
    news["spec"]["resource"]["node_count"] = 0
    result = _check(ACCEPTED, news)
    assert result["models_loaded"] is True
    assert [path for path, _ in result["failures"]] == ["spec.resource.node_count"]  # type: ignore[union-attr]


def test_first_check_is_validated_in_full() -> None:
    result = _check({}, ACCEPTED)
    assert result["models_loaded"] is True
    assert result["failures"] == []

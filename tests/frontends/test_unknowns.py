"""Values not known yet at the dynamic provider's edge (``frontends/unknowns.py``): Pulumi's unknowns, in
either spelling and at any depth, become the job layer's NOT_KNOWN coming in, and go back out as Pulumi's."""

from __future__ import annotations

from typing import Any

from pulumi.output import UNKNOWN, Unknown
from pulumi.runtime import rpc

from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.frontends.unknowns import given_out, taken_in
from pulumi_modelarts.job.normalising import NOT_KNOWN, contains_unknown, is_unknown

from ..support import minimal_job


def test_pulumis_unknowns_in_either_spelling_become_the_jobs_marker_and_go_back_as_pulumis() -> None:
    came: dict[str, Any] = {
        "a": Unknown(),  # type: ignore[no-untyped-call]
        "b": rpc.UNKNOWN,
        "c": [1, {"d": Unknown(), "e": "text", "f": 2.5, "g": None}],  # type: ignore[no-untyped-call]
        "h": (True, rpc.UNKNOWN),
    }
    inside = taken_in(came)
    assert inside == {
        "a": NOT_KNOWN,
        "b": NOT_KNOWN,
        "c": [1, {"d": NOT_KNOWN, "e": "text", "f": 2.5, "g": None}],
        "h": [True, NOT_KNOWN],
    }
    assert is_unknown(inside["a"]) and contains_unknown(inside["c"])
    # The job layer knows only its own marker: Pulumi's, unless taken in, are not unknowns to it.
    assert not is_unknown(Unknown()) and not is_unknown(rpc.UNKNOWN)  # type: ignore[no-untyped-call]
    out = given_out(inside)
    assert out["a"] is UNKNOWN and out["b"] is UNKNOWN and out["c"][1]["d"] is UNKNOWN
    assert out["c"][1]["e"] == "text" and out["h"] == [True, UNKNOWN]


def test_a_dynamic_check_of_a_name_prefix_not_known_yet_answers_pulumis_unknown_name() -> None:
    news = {**minimal_job(), "name_prefix": Unknown()}  # no name given: it is made from the prefix
    checked = TrainingJobProvider().check({}, news)
    assert checked.failures == []
    assert checked.inputs["metadata"]["name"] is UNKNOWN
    assert checked.inputs["name_prefix"] is UNKNOWN

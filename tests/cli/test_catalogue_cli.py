"""The account's catalogue at preview, through the real `pulumi` CLI, with a job of each front-end in one
stack: a planned create or replace the catalogue refuses (a flavor, a node count, an engine) fails `pulumi
preview` naming the field as the program wrote it and the closest offered values; a job that stays makes no
call at all; a catalogue the account may not read is one warning per provider process, and the jobs are
created all the same.

What each rule refuses, the paths, the engines, the reads shared by concurrent checks: in process
(tests/job/test_catalogue.py, tests/frontends/test_catalogue_frontends.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .both_front_ends import both_stack, declare
from .front_ends import DYNAMIC, NATIVE
from .story import assert_no_traceback, job_args

pytestmark = pytest.mark.cli

FLAVOR = "modelarts.vm.pnt1.large.eco"  # the jobs' flavor (story.job_args): at most 16 nodes


def test_preview_refuses_what_the_catalogue_does_not_offer(tmp_path: Path, emulator: EmulatorProcess) -> None:
    stack = both_stack(tmp_path, emulator)
    jobs = {"dyn": (DYNAMIC, job_args(wait_for="none")), "nat": (NATIVE, job_args(wait_for="none"))}
    declare(stack, jobs)
    emulator.reset_stats()
    stack.up()
    # Each provider process read the flavors once, for its new job; the custom images named no engine.
    assert emulator.stats()["by_operation"] == {"flavors": 2, "create": 2}, emulator.stats()

    emulator.reset_stats()
    stack.preview()
    assert emulator.stats()["requests"] == 0, "a preview of jobs that stay must not call the API"

    # A new native job on a misspelt flavor: refused at preview, in the schema's names, with the closest ones.
    typo = job_args(wait_for="none")
    typo["spec"]["resource"]["flavor_id"] = "modelarts.vm.pnt1.large.ecco"
    declare(stack, {**jobs, "nat2": (NATIVE, typo)})
    emulator.reset_stats()
    refused = stack.preview(check=False)
    text = refused.stdout + refused.stderr
    assert refused.returncode != 0, text
    assert_no_traceback(text)
    assert (
        "spec.resource.flavorId: 'modelarts.vm.pnt1.large.ecco' is not a flavor this account is offered: "
        f"did you mean '{FLAVOR}'"
    ) in text, text
    assert set(emulator.stats()["by_operation"]) == {"flavors"}, emulator.stats()

    # A new dynamic job on a preset engine of a version the account does not list: refused, as written.
    engine = job_args(wait_for="none")
    engine["algorithm"]["engine"] = {"engine_name": "PyTorch", "engine_version": "pytorch_9.9"}
    declare(stack, {**jobs, "dyn2": (DYNAMIC, engine)})
    emulator.reset_stats()
    refused = stack.preview(check=False)
    text = refused.stdout + refused.stderr
    assert refused.returncode != 0, text
    assert_no_traceback(text)
    listed = "engine_version: 'pytorch_9.9' is not a version of engine 'PyTorch' this account lists"
    assert f"algorithm.engine.{listed}" in text, text
    assert set(emulator.stats()["by_operation"]) == {"flavors", "engines"}, emulator.stats()

    # The dynamic job replaced by one asking more nodes than its flavor takes: refused at preview as written.
    declare(stack, {**jobs, "dyn": (DYNAMIC, job_args(wait_for="none", node_count=17))})
    emulator.reset_stats()
    refused = stack.preview(check=False)
    text = refused.stdout + refused.stderr
    assert refused.returncode != 0, text
    assert_no_traceback(text)
    too_many = f"spec.resource.node_count: is 17, above the 16 nodes flavor '{FLAVOR}' takes (its max_num)"
    assert too_many in text, text
    assert set(emulator.stats()["by_operation"]) == {"flavors"}, emulator.stats()


def test_a_closed_catalogue_is_a_warning_and_the_jobs_are_created(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    closed = emulator_factory(catalogue="closed")
    stack = both_stack(tmp_path, closed)
    declare(stack, {"dyn": (DYNAMIC, job_args(wait_for="none")), "nat": (NATIVE, job_args(wait_for="none"))})
    up = stack.up()
    text = up.stdout + up.stderr
    assert_no_traceback(text)
    # One warning per provider process, saying what was not checked and why: the native one on its job's row,
    # the dynamic one naming its job.
    diagnostics = text.split("Diagnostics:", 1)[1].split("Outputs:", 1)[0]
    warnings = [line.strip() for line in diagnostics.splitlines() if "not checked against the cata" in line]
    assert len(warnings) == 2, text
    because = "the service did not list them (HTTP 403 ModelArts.0203): User: "
    assert all(f"flavors were not checked against the catalogue: {because}" in w for w in warnings), warnings
    assert sorted(w.split(":", 1)[0] for w in warnings) == ["modelarts", "warning"], warnings
    assert closed.stats()["by_operation"] == {"flavors": 2, "create": 2}, closed.stats()

"""Accounts set up the ways teams set them up, through the real `pulumi` CLI on both front-ends: a region with
no project id (the project found in IAM), the official SDK's credentials file, an hcloud profile, the instance
metadata service with keys that expire during a long wait, an agency into another account, an OIDC login, and
an Open Telekom Cloud-style domain with its endpoints overridden to loopback.

Each runs `up` (a job through each front-end, in one stack), an empty `preview` that makes no ModelArts and no
IAM call (the emulator's counts do not move), and `destroy`. Every endpoint, IAM's and the metadata service's
included, is the emulator's on 127.0.0.1: the environment names no other address.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..support import PARTNER_PROJECT
from .both_front_ends import BOTH, both_stack, declare, jobs_in_state
from .story import assert_no_traceback, emulator_client, job_args

pytestmark = pytest.mark.cli

KEY_SECONDS = 2.0  # the metadata story's keys: several renewals during its job's wait


@dataclass
class SetUp:
    """The environment a set-up gives the provider, and what the emulator must show after `up`."""

    env: dict[str, str]
    project: str
    issued: dict[str, int] = field(default_factory=dict)  # temporary keys issued, at least, by method
    lookups: int = 1  # IAM project lookups `up` made, at least
    job: dict[str, Any] = field(default_factory=dict)


def base(emu: EmulatorProcess) -> dict[str, str]:
    """The emulator as the ModelArts and IAM endpoints of its region; no project id, no keys."""
    return {"HW_REGION_NAME": emu.region, "HW_MODELARTS_ENDPOINT": emu.url, "HW_AUTH_URL": emu.url}


def keys(emu: EmulatorProcess) -> dict[str, str]:
    return {"HW_ACCESS_KEY": emu.access_key, "HW_SECRET_KEY": emu.secret_key}


def region_only(emu: EmulatorProcess, _tmp: Path) -> SetUp:
    return SetUp({**base(emu), **keys(emu)}, emu.project_id)


def sdk_credentials_file(emu: EmulatorProcess, tmp: Path) -> SetUp:
    path = tmp / "credentials"
    path.write_text(f"[basic]\nak = {emu.access_key}\nsk = {emu.secret_key}\niam_endpoint = {emu.url}\n")
    env = {"HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(path), "HW_REGION_NAME": emu.region}
    return SetUp({**env, "HW_MODELARTS_ENDPOINT": emu.url}, emu.project_id)


def hcloud_profile(emu: EmulatorProcess, tmp: Path) -> SetUp:
    ci = {"name": "ci", "mode": "AKSK", "accessKeyId": emu.access_key, "secretAccessKey": emu.secret_key,
          "region": emu.region, "projectId": emu.project_id}  # fmt: skip
    other = {"name": "laptop", "mode": "SSO", "region": "eu-west-101"}
    path = tmp / "config.json"
    path.write_text(json.dumps({"current": "laptop", "profiles": [other, ci]}))
    env = {"HW_SHARED_CONFIG_FILE": str(path), "HW_PROFILE": "ci", "HW_MODELARTS_ENDPOINT": emu.url}
    return SetUp(env, emu.project_id, lookups=0)  # the profile names the project


def instance_metadata(emu: EmulatorProcess, _tmp: Path) -> SetUp:
    env = {**base(emu), "HW_USE_INSTANCE_METADATA": "true", "HW_METADATA_ENDPOINT": emu.url}
    # The job runs for several of the keys' lifetimes, and `up` waits for it to complete.
    running = {"annotations": {"emulator/running-seconds": str(4 * KEY_SECONDS)}}
    return SetUp(env, emu.project_id, {"metadata": 3}, job={"metadata": running, "wait_for": "completed"})


def agency(emu: EmulatorProcess, _tmp: Path) -> SetUp:
    role = {
        "HW_ASSUME_ROLE_AGENCY_NAME": "modelarts_agency",
        "HW_ASSUME_ROLE_DOMAIN_NAME": "emulator_partner",
    }
    return SetUp({**base(emu), **keys(emu), **role}, PARTNER_PROJECT, {"assume_role": 1})


def oidc(emu: EmulatorProcess, tmp: Path) -> SetUp:
    token = tmp / "id_token"
    token.write_text("emulator-id-token\n")
    env = {"HUAWEICLOUD_SDK_IDP_ID": "emulator_idp", "HUAWEICLOUD_SDK_ID_TOKEN_FILE": str(token)}
    return SetUp({**base(emu), **env}, emu.project_id, {"token": 1, "id_token": 1})


def open_telekom_cloud(emu: EmulatorProcess, _tmp: Path) -> SetUp:
    # eu-de on otc.t-systems.com, as that cloud's documentation names it; both endpoints overridden to
    # loopback.
    env = {"HW_CLOUD": "otc.t-systems.com", **base(emu), **keys(emu)}
    return SetUp(env, emu.project_id)


SET_UPS: dict[str, tuple[Callable[[EmulatorProcess, Path], SetUp], dict[str, Any]]] = {
    "region-only": (region_only, {}),
    "sdk-credentials-file": (sdk_credentials_file, {}),
    "hcloud-profile": (hcloud_profile, {}),
    "instance-metadata": (instance_metadata, {"temporary_key_seconds": KEY_SECONDS}),
    "agency": (agency, {}),
    "oidc": (oidc, {}),
    "open-telekom-cloud": (open_telekom_cloud, {"region": "eu-de"}),
}


def counts(emu: EmulatorProcess) -> tuple[int, dict[str, int]]:
    """ModelArts requests and IAM/metadata calls so far."""
    return emu.stats()["requests"], dict(emu.credentials()["calls"])


@pytest.mark.parametrize("name", list(SET_UPS))
def test_an_account_set_up_runs_up_an_empty_preview_and_destroy(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], name: str
) -> None:
    """Each set-up once, for both front-ends at a time: a stack holding a job of each (the dynamic provider's
    and the native plugin's), every command proving its behaviour for both."""
    make, flags = SET_UPS[name]
    emu = emulator_factory(log_level="INFO", **flags)  # INFO: each request's line (the create's project)
    setup = make(emu, tmp_path)
    stack = both_stack(tmp_path, emu, credentials_in_env=False)
    stack.env.update(setup.env)
    assert "169.254" not in json.dumps(stack.env)
    jobs = {f"train-{fe.name}": (fe, job_args("account set-up", **setup.job)) for fe in BOTH}
    declare(stack, jobs)

    started = time.monotonic()
    up = stack.up()
    waited = time.monotonic() - started
    assert_no_traceback(up.stdout, up.stderr)
    outputs = stack.outputs()
    job_ids = [outputs[job]["id"] for job in jobs]
    ledger = emu.credentials()
    assert ledger["calls"].get("list_projects", 0) >= setup.lookups, ledger
    for method, least in setup.issued.items():
        assert ledger["issued"].get(method, 0) >= least, ledger
    if setup.job.get("wait_for") == "completed":
        assert all(outputs[job]["phase"] == "Completed" for job in jobs), outputs
        assert waited > 3 * KEY_SECONDS  # the keys in use at the start expired long before the end
    # Each create went to the project found for these keys (an agency's: the other account's); the emulator
    # refuses keys on a project of another account, so the agency's keys signed it.
    created = re.findall(r"POST /v2/(\w+)/training-jobs -> 2", emu.output())
    assert created == [setup.project] * len(BOTH), emu.output()
    assert all(job_ids) and len(set(job_ids)) == len(BOTH)

    # Nothing secret in what `up` showed or the state holds (secrets opened): no key, token or id token.
    secrets = [emu.secret_key, "emulator-id-token", "emulator-sts-", "emulator-subject-"]
    secrets += [key["access"] for key in ledger["keys"]]
    # The export with secrets opened holds the stack's outputs too (the stack resource's), as opened as
    # `stack output --show-secrets` would print them.
    state = stack.export(show_secrets=True)
    [root] = [r for r in state["deployment"]["resources"] if r["type"] == "pulumi:pulumi:Stack"]
    assert all(job_id in json.dumps(root["outputs"]) for job_id in job_ids), root
    for text in (up.stdout, up.stderr, json.dumps(state)):
        for secret in secrets:
            assert secret not in text

    before = counts(emu)
    stack.preview("--expect-no-changes")
    assert counts(emu) == before, "an empty preview calls neither ModelArts nor IAM"

    destroy = stack.destroy()
    assert all(jobs_in_state(stack, fe) == {} for fe in BOTH)
    with emulator_client(emu) as home:
        assert all(job.phase != "Running" for job in home.iter_jobs())
    assert_no_traceback(destroy.stdout, destroy.stderr)

"""Account settings that point the provider at an emulator (its region, endpoints and keys) and the agency the
emulator lets them assume."""

from __future__ import annotations

from typing import Any

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.account.settings import AssumeRole, Settings

__all__ = ["AGENCY", "keyless", "settings_for"]

AGENCY = AssumeRole(agency_name="modelarts_agency", domain_name="emulator_partner")


def settings_for(emu: EmulatorProcess, **given: Any) -> Settings:
    """The emulator's region, endpoints (ModelArts and IAM) and base keys, without a project id."""
    fields: dict[str, Any] = {
        "region": emu.region,
        "endpoint": emu.url,
        "iam_endpoint": emu.url,
        "access_key": emu.access_key,
        "secret_key": emu.secret_key,
        **given,
    }
    return Settings(**fields)


def keyless(emu: EmulatorProcess, **given: Any) -> Settings:
    return settings_for(emu, access_key=None, secret_key=None, **given)

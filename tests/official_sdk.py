"""The official Huawei Cloud SDK (huaweicloudsdkcore, huaweicloudsdkmodelarts): the oracle the tests check the
client's signing and wire shapes, and the emulator's answers, against.

A test module imports the SDK through ``sdk_module`` at its top, before any ``from huaweicloudsdk...``
import. When the SDK is missing the module is skipped, except in CI (CI set), where it fails, as a missing
input does (``support.missing``): a CI run must not turn green by never asking the oracle. Importing this
module applies the same rule, since its helpers (the SDK's clients for an emulator) need the SDK too.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from modelarts_emulator.testing import EmulatorProcess

from .support import missing

__all__ = [
    "FREE_FLAVOR_EXAMPLE",
    "job_details",
    "regional_sdk_client",
    "sdk_client",
    "sdk_module",
]


def sdk_module(name: str) -> ModuleType:
    """The SDK's module name, imported; when it cannot be, the test (module) is skipped, or fails in CI."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        missing(f"the official Huawei Cloud SDK is needed as the oracle here: {name} ({error})")


sdk_module("huaweicloudsdkcore")
sdk_module("huaweicloudsdkmodelarts")
from huaweicloudsdkcore.auth.credentials import BasicCredentials  # noqa: E402
from huaweicloudsdkcore.http.http_config import HttpConfig  # noqa: E402
from huaweicloudsdkcore.region.region import Region  # noqa: E402
from huaweicloudsdkmodelarts.v1 import ModelArtsClient  # noqa: E402
from huaweicloudsdkmodelarts.v1 import model as m  # noqa: E402

# The create page's first example, verbatim.
FREE_FLAVOR_EXAMPLE = json.loads(
    """{ "kind" : "job",
    "metadata" : { "name" : "TestModelArtsJob", "description" : "This is a ModelArts job" },
    "algorithm" : { "id" : "3f5d6706-7b67-408d-8ba0-ec08048c45ed", "parameters" : [
    { "name" : "input_dir", "value" : "obs://cn-north-4-rse/test/moxingtest-dir/" },
    { "name" : "input_file", "value" : "obs://cn-north-4-rse/test/moxingtest/" },
    { "name" : "large_file_method", "value" : "1" } ],
    "policies" : { "auto_search" : null }, "environments" : { } },
    "spec" : { "resource" : { "flavor_id" : "modelarts.p3.large.public.free", "node_count" : 1 },
    "log_export_path" : { "obs_url" : "" } } }"""
)


def sdk_client(emu: EmulatorProcess, *, secret_key: str | None = None, project_id: str | None = None) -> Any:
    """The official ModelArts client for emu, with its keys and project id (or the ones given)."""
    config = HttpConfig.get_default_config()
    config.retry_times = 0  # the emulator is fault-free here; any retry would hide a wrong answer
    credentials = BasicCredentials(emu.access_key, secret_key or emu.secret_key, project_id or emu.project_id)
    # Plain http is accepted for an explicit endpoint; no TLS setting needs changing for loopback.
    return (
        ModelArtsClient.new_builder()
        .with_credentials(credentials)
        .with_endpoints([emu.url])
        .with_http_config(config)
        .build()
    )


def regional_sdk_client(emu: EmulatorProcess, credentials: Any, region: str | None = None) -> Any:
    """The official ModelArts client for emu in a region; with no project id in credentials, the SDK looks
    the project up at the emulator's IAM."""
    config = HttpConfig.get_default_config()
    config.retry_times = 0
    config.timeout = (3, 10)
    return (
        ModelArtsClient.new_builder()
        .with_credentials(credentials.with_iam_endpoint(emu.url))
        .with_region(Region(id=region or emu.region, endpoint=emu.url))
        .with_http_config(config)
        .build()
    )


def job_details(client: Any, job_id: str) -> Any:
    """The job as the official SDK reads it (ShowTrainingJobDetails)."""
    return client.show_training_job_details(m.ShowTrainingJobDetailsRequest(training_job_id=job_id))

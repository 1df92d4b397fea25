"""The official Huawei Cloud SDK (huaweicloudsdkcore, huaweicloudsdkmodelarts): the oracle the tests check the
client's signing and wire shapes, and the emulator's answers, against.

A test module imports the SDK through ``sdk_module`` at its top, before any ``from huaweicloudsdk...``
import. When the SDK is missing the module is skipped, except in CI (CI set), where it fails, as a missing
input does (``support.missing``): a CI run must not turn green by never asking the oracle.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .support import missing

__all__ = ["sdk_module"]


def sdk_module(name: str) -> ModuleType:
    """The SDK's module name, imported; when it cannot be, the test (module) is skipped, or fails in CI."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        missing(f"the official Huawei Cloud SDK is needed as the oracle here: {name} ({error})")

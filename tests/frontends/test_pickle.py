"""The provider as Pulumi stores it: dill-pickled into state. No credentials in it; it loads anywhere."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulumi.dynamic import Config, ConfigureRequest
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_modelarts.frontends import dynamic as provider_module
from pulumi_modelarts.frontends.dynamic import TrainingJobProvider

SECRETS = {
    "HW_ACCESS_KEY": "AKPICKLETESTACCESSKEY",
    "HW_SECRET_KEY": "pickle-test-secret-key-value",
    "HW_SECURITY_TOKEN": "pickle-test-security-token",
}
CONFIG_SECRET = "pickle-test-config-secret-key"


@pytest.fixture
def configured(monkeypatch: pytest.MonkeyPatch) -> Iterator[TrainingJobProvider]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HW_PROJECT_ID", "proj")
    monkeypatch.setenv("HW_MODELARTS_ENDPOINT", "http://127.0.0.1:9")
    prov = TrainingJobProvider()
    prov.configure(
        ConfigureRequest(Config({"modelarts:secretKey": CONFIG_SECRET, "modelarts:accessKey": "AKCONF"}, "p"))
    )
    yield prov
    provider_module.set_config({})


def test_serialized_provider_holds_no_credentials(configured: TrainingJobProvider) -> None:
    # Exercise a call first, so anything a call might cache on the object would show up.
    configured.check({}, {"metadata": {"name": "x"}})
    encoded = serialize_provider(configured)
    raw = base64.b64decode(encoded)
    for secret in [*SECRETS.values(), CONFIG_SECRET, "AKCONF"]:
        assert secret.encode() not in raw
        assert secret not in encoded
    # Stored by reference to the importable class, not by value: a few hundred bytes.
    assert b"pulumi_modelarts.frontends.dynamic" in raw
    assert len(raw) < 2000


def test_serialized_provider_loads_in_a_fresh_process(configured: TrainingJobProvider) -> None:
    encoded = serialize_provider(configured)
    code = (
        "import base64, sys, dill\n"
        "p = dill.loads(base64.b64decode(sys.argv[1]))\n"
        "from pulumi_modelarts.frontends.dynamic import TrainingJobProvider, current_config\n"
        "assert type(p) is TrainingJobProvider, type(p)\n"
        "assert vars(p) == {}, vars(p)\n"
        "assert current_config() == {}\n"
        "alg = {'engine': {'image_url': 'i'}, 'command': 'c'}\n"
        "r = p.check({}, {'metadata': {'name': 'n'}, 'algorithm': alg})\n"
        "assert r.failures == [], [(f.property, f.reason) for f in r.failures]\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in SECRETS}
    package_root = str(Path(provider_module.__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", code, encoded], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"

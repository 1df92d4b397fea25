"""scripts/sdk: the native provider's SDKs are exactly what the schema generates, and they compile.

Select with ``-m sdk``. The first run builds the generator and installs the pinned TypeScript toolchain
(minutes); later runs take well under a minute each.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ..support import REPO, missing

SAMPLE_SCHEMA = REPO / "tests" / "data" / "native-schema-sample.json"
LANGUAGES = ("python", "nodejs", "go")
COMPILED = (
    "Node.js SDK compiles (tsc ",
    "Go SDK builds (",
    "Python SDK (pulumi_modelarts_native) builds, imports beside pulumi_modelarts and type-checks",
)
# The example programs compile against the repository's own sdk/ only.
EXAMPLES_COMPILED = (
    "TypeScript example (examples/native-typescript) compiles in ",
    "Go example (examples/native-go) builds in ",
)

# One worker runs both: they share the generator scripts/sdk builds on first use, and each compiles in three
# languages.
pytestmark = [pytest.mark.sdk, pytest.mark.xdist_group("sdk")]
_missing = [tool for tool in ("go", "npm") if shutil.which(tool) is None]
if _missing:
    missing(f"scripts/sdk needs {' and '.join(_missing)}, not on PATH")


def _sdk(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "sdk"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_sdk_is_what_the_committed_schema_generates() -> None:
    schema = REPO / "provider" / "pulumi_modelarts" / "generated" / "schema.json"
    if not schema.exists():
        # No schema, no SDK: nothing under sdk/ may pretend to be generated.
        assert not [p for p in (REPO / "sdk").rglob("*") if p.is_file()]
        return
    result = _sdk("--check")
    assert result.returncode == 0, result.stderr
    for line in (*COMPILED, *EXAMPLES_COMPILED):
        assert line in result.stderr


def test_generate_check_and_compile_a_sample_schema(tmp_path: Path) -> None:
    sdk = tmp_path / "sdk"
    generated = _sdk("--schema", SAMPLE_SCHEMA, "--sdk-dir", sdk)
    assert generated.returncode == 0, generated.stderr
    for line in COMPILED:
        assert line in generated.stderr
    first = {lang: _tree(sdk / lang) for lang in LANGUAGES}
    assert "pulumi_modelarts_native/training_job.py" in first["python"]
    assert "trainingJob.ts" in first["nodejs"]
    assert "modelarts/trainingJob.go" in first["go"]
    pulumi_sdk = rb"^\s*(require )?github\.com/pulumi/pulumi/sdk/v3 v3\.259\.0$"
    assert re.search(pulumi_sdk, first["go"]["go.mod"], re.MULTILINE)
    assert "go.sum" in first["go"]
    assert json.loads(first["python"]["pulumi_modelarts_native/pulumi-plugin.json"])["name"] == "modelarts"

    clean = _sdk("--check", "--no-compile", "--schema", SAMPLE_SCHEMA, "--sdk-dir", sdk)
    assert clean.returncode == 0, clean.stderr

    (sdk / "nodejs" / "index.ts").write_text((sdk / "nodejs" / "index.ts").read_text() + "// edited\n")
    (sdk / "go" / "modelarts" / "leftover.go").write_text("package modelarts\n")
    (sdk / "python" / "pulumi_modelarts_native" / "outputs.py").unlink()
    drifted = _sdk("--check", "--no-compile", "--schema", SAMPLE_SCHEMA, "--sdk-dir", sdk)
    assert drifted.returncode == 1
    assert "differs: nodejs/index.ts" in drifted.stderr
    assert "not generated: go/modelarts/leftover.go" in drifted.stderr
    assert "missing: python/pulumi_modelarts_native/outputs.py" in drifted.stderr

    # Regenerating repairs all three and gives back the very same bytes.
    again = _sdk("--no-compile", "--schema", SAMPLE_SCHEMA, "--sdk-dir", sdk)
    assert again.returncode == 0, again.stderr
    assert {lang: _tree(sdk / lang) for lang in LANGUAGES} == first


def test_a_native_package_named_like_the_dynamic_one_is_refused(tmp_path: Path) -> None:
    schema = json.loads(SAMPLE_SCHEMA.read_text())
    schema["language"]["python"]["packageName"] = "pulumi_modelarts"
    clashing = tmp_path / "schema.json"
    clashing.write_text(json.dumps(schema))
    result = _sdk("--no-compile", "--schema", clashing, "--sdk-dir", tmp_path / "sdk")
    assert result.returncode == 1
    assert "set language.python.packageName" in result.stderr
    assert not (tmp_path / "sdk").exists()


def test_an_invalid_schema_is_reported_with_its_location(tmp_path: Path) -> None:
    schema = json.loads(SAMPLE_SCHEMA.read_text())
    schema["resources"]["modelarts:index:TrainingJob"]["inputProperties"]["spec"]["$ref"] = (
        "#/types/modelarts:index:NoSuchType"
    )
    broken = tmp_path / "schema.json"
    broken.write_text(json.dumps(schema))
    result = _sdk("--no-compile", "--schema", broken, "--sdk-dir", tmp_path / "sdk")
    assert result.returncode == 1
    assert "NoSuchType" in result.stderr
    assert not (tmp_path / "sdk").exists()


def test_every_sdk_asks_pulumi_for_the_released_plugin() -> None:
    # A program using any of the SDKs gets the plugin from the engine, which installs the release archive from
    # the server the metadata names; the version is the package's, stamped from pyproject.toml.
    version = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    assert version is not None
    schema = json.loads((REPO / "provider/pulumi_modelarts/generated/schema.json").read_text())
    assert schema["version"] == version.group(1)
    assert schema["pluginDownloadURL"] == "github://api.github.com/pulumi-modelarts"
    server = schema["pluginDownloadURL"]
    wanted = {"resource": True, "name": "modelarts", "version": version.group(1), "server": server}
    python = json.loads((REPO / "sdk/python/pulumi_modelarts_native/pulumi-plugin.json").read_text())
    go = json.loads((REPO / "sdk/go/modelarts/pulumi-plugin.json").read_text())
    nodejs = json.loads((REPO / "sdk/nodejs/package.json").read_text())
    for metadata in (python, go, nodejs["pulumi"]):
        assert metadata == wanted
    assert nodejs["version"] == version.group(1)
    assert nodejs["repository"] == "https://github.com/pulumi-modelarts/pulumi-modelarts"
    go_mod = (REPO / "sdk/go/go.mod").read_text()
    assert go_mod.startswith("module github.com/pulumi-modelarts/pulumi-modelarts/sdk/go\n")
    # The dynamic provider's package is no provider SDK: it asks for nothing.
    dynamic = REPO / "provider/pulumi_modelarts/pulumi-plugin.json"
    assert json.loads(dynamic.read_text()) == {"resource": False}

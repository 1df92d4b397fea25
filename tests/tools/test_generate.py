"""scripts/generate: the files derived from the wire models are up to date, drift is caught and named, and
the generated lists agree with the code that uses them."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from pulumi_modelarts.generated import fields, schema_names
from pulumi_modelarts.job import normalising, setting_values
from pulumi_modelarts.job.recorded import job_outputs
from pulumi_modelarts.job.resource_schema import ProviderSettings
from pulumi_modelarts.job.waiting import targets
from pulumi_modelarts.wire import models

from ..support import REPO

ROOT = REPO
SCRIPT = ROOT / "scripts" / "generate"
GENERATED = [
    "provider/pulumi_modelarts/generated/inputs.py",
    "provider/pulumi_modelarts/generated/fields.py",
    "provider/pulumi_modelarts/generated/outputs.py",
    "provider/pulumi_modelarts/frontends/resource.py",
    "provider/pulumi_modelarts/__init__.py",
    "docs/training-job.md",
    "provider/pulumi_modelarts/generated/schema.json",
    "provider/pulumi_modelarts/generated/schema_names.py",
    "docs/input-rules.md",
]


def load_generator() -> types.ModuleType:
    loader = importlib.machinery.SourceFileLoader("generate_script", str(SCRIPT))
    spec = importlib.util.spec_from_loader("generate_script", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script runs
    loader.exec_module(module)
    return module


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, Path]:
    """The generator pointed at a copy of the generated files."""
    for relative in [*GENERATED, "pyproject.toml"]:  # the schema takes its version from pyproject.toml
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tmp_path / relative)
    generator = load_generator()
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    monkeypatch.setattr(generator, "PACKAGE", tmp_path / "provider" / "pulumi_modelarts")
    return generator, tmp_path


def test_the_committed_files_are_up_to_date() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_check_names_the_files_that_differ(
    copy: tuple[types.ModuleType, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    generator, root = copy
    assert generator.main(["--check"]) == 0
    fields_py = root / "provider/pulumi_modelarts/generated/fields.py"
    fields_py.write_text(fields_py.read_text().replace('"triggers"', '"trigger"'))
    docs = root / "docs/training-job.md"
    docs.write_text(docs.read_text().replace("| `spec` |", "| `specs` |"))
    before = {p: (root / p).read_text() for p in GENERATED}
    assert generator.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "provider/pulumi_modelarts/generated/fields.py" in err and "docs/training-job.md" in err
    assert "inputs.py" not in err and "resource.py" not in err
    assert {p: (root / p).read_text() for p in GENERATED} == before  # --check writes nothing
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0
    for relative in GENERATED:
        assert (root / relative).read_text() == (ROOT / relative).read_text(), relative


def test_a_missing_marker_is_an_error(copy: tuple[types.ModuleType, Path]) -> None:
    generator, root = copy
    init = root / "provider/pulumi_modelarts/__init__.py"
    init.write_text(init.read_text().replace("# END GENERATED input exports", "# the end"))
    with pytest.raises(SystemExit, match="input exports"):
        generator.main(["--check"])


def test_the_description_carries_what_a_schema_needs() -> None:
    shape = load_generator().describe()
    algorithm = shape.object("Algorithm")
    environments = next(p for p in algorithm.properties if p.name == "environments")
    assert environments.secret and environments.type.kind == "map"
    assert environments.type.item is not None and environments.type.item.kind == "string"
    assert not environments.required and environments.description
    parameter = shape.object("Parameter")
    assert next(p for p in parameter.properties if p.name == "name").required
    kind = next(p for p in shape.job if p.name == "kind")
    assert kind.default == "job" and "hetero_job" in kind.enum
    wait_for = next(p for p in shape.settings if p.name == "wait_for")
    assert wait_for.default == "pending"
    node_count = next(p for p in shape.object("Resource").properties if p.name == "node_count")
    assert node_count.type.kind == "integer" and node_count.rules == ("at least 1",)


# ---------------------------------------------------------------------------------------------------------
# The generated lists and the code that uses them


def test_settings_defaults_are_the_ones_the_provider_applies() -> None:
    assert fields.SETTING_DEFAULTS["wait_for"] == setting_values.DEFAULT_WAIT_FOR
    assert setting_values.parse_duration(fields.SETTING_DEFAULTS["wait_timeout"]) == (
        setting_values.DEFAULT_WAIT_TIMEOUT_SECONDS
    )
    assert fields.SETTING_DEFAULTS["replace_when_failed"] is False
    assert fields.JOB_DEFAULTS == {"kind": normalising.DEFAULT_KIND}
    for value in ProviderSettings.model_fields["wait_for"].annotation.__args__:  # type: ignore[union-attr]
        # every documented choice is one the provider accepts, and has a rule
        targets.classify("Creating", setting_values.parse_wait_for(value))


def test_outputs_are_what_the_provider_returns() -> None:
    job = models.TrainingJob.model_validate({"metadata": {"id": "i"}, "status": {"phase": "Running"}})
    outs = job_outputs(job, declared={"metadata": {"name": "n"}})
    assert tuple(outs) == fields.OUTPUT_FIELDS
    assert set(fields.OUTPUT_ONLY_FIELDS) == set(fields.OUTPUT_FIELDS) - set(fields.INPUT_FIELDS)
    assert set(fields.SECRET_OUTPUTS) == {"declared_inputs", "environments", "endpoints"}


def test_input_groups_cover_every_input_once() -> None:
    groups = [*fields.JOB_FIELDS, fields.TRIGGERS_FIELD, *fields.SETTINGS_FIELDS]
    assert sorted(groups) == sorted(fields.INPUT_FIELDS)
    assert len(set(groups)) == len(groups)
    assert set(fields.JOB_FIELDS) == set(models.wire_fields(models.CreateTrainingJobRequest))


# ---------------------------------------------------------------------------------------------------------
# The Pulumi package schema


def _schema() -> dict[str, Any]:
    schema = ROOT / "provider" / "pulumi_modelarts" / "generated" / "schema.json"
    return json.loads(schema.read_text(encoding="utf-8"))


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    ref = spec.get("$ref", "")
    assert ref.startswith("#/types/"), spec
    return dict(schema["types"][ref.removeprefix("#/types/")])


def _schema_names(root: str, wire_names: Any) -> list[str]:
    return [schema_names.TYPES[root][name][0] for name in wire_names]


def test_schema_inputs_are_camel_case_names_with_descriptions_and_secrets() -> None:
    schema = _schema()
    job = schema["resources"]["modelarts:index:TrainingJob"]
    assert list(job["inputProperties"]) == _schema_names(schema_names.INPUTS, fields.INPUT_FIELDS)
    assert "waitFor" in job["inputProperties"] and "ftjobConfig" in job["inputProperties"]
    assert all(spec["description"] for spec in job["inputProperties"].values())
    algorithm = _resolve(schema, job["inputProperties"]["algorithm"])
    environments = algorithm["properties"]["environments"]
    assert environments["secret"] is True and environments["additionalProperties"] == {"type": "string"}
    resource = _resolve(schema, _resolve(schema, job["inputProperties"]["spec"])["properties"]["resource"])
    assert "flavorId" in resource["properties"] and resource["properties"]["nodeCount"]["type"] == "integer"
    engine = _resolve(schema, algorithm["properties"]["engine"])
    assert "imageUrl" in engine["properties"]  # camelCase, as Pulumi providers name properties
    parameter = schema["types"]["modelarts:index:TrainingJobParameter"]
    assert "name" in parameter["required"]


def test_schema_outputs_are_typed_by_the_response_models() -> None:
    schema = _schema()
    job = schema["resources"]["modelarts:index:TrainingJob"]
    outputs = job["properties"]
    assert list(outputs) == _schema_names(schema_names.OUTPUTS, fields.OUTPUT_FIELDS)
    for name in ("metadata", "status", "algorithm", "spec", "endpoints"):
        assert "$ref" in outputs[name], name
    status = _resolve(schema, outputs["status"])
    assert status["properties"]["phase"]["type"] == "string"
    assert status["properties"]["duration"]["type"] == "integer"
    assert "$ref" in outputs["tasks"]["items"]
    secret = {k for k, v in outputs.items() if v.get("secret")}
    assert secret == set(_schema_names(schema_names.OUTPUTS, fields.SECRET_OUTPUTS))


def test_schema_config_comes_from_the_settings_sources() -> None:
    from pulumi_modelarts.account.settings import SOURCES

    schema = _schema()
    variables = schema["config"]["variables"]
    assert list(variables) == [key for key, _env in SOURCES.values()]
    assert {k for k, v in variables.items() if v.get("secret")} == {"secretKey", "securityToken", "authToken"}
    for key, environment in SOURCES.values():
        assert all(f"`{name}`" in variables[key]["description"] for name in environment)
    assert schema["provider"]["inputProperties"] == variables
    function = schema["functions"]["modelarts:index:getTrainingJobs"]
    assert function["outputs"]["required"] == ["jobs"]
    assert schema["language"]["python"]["packageName"] == "pulumi_modelarts_native"
    assert schema["meta"]["supportPack"] is True


def test_the_input_rules_page_lists_every_rule_with_its_severity_and_evidence() -> None:
    page = (ROOT / "docs" / "input-rules.md").read_text(encoding="utf-8")
    for rule in models.INPUT_RULES.values():
        row = next((line for line in page.splitlines() if f"(`{rule.key}`)" in line), None)
        assert row is not None, rule.key
        assert f"| {rule.severity} |" in row, row
        assert rule.evidence.split(":")[0] in row, row
    # The rules the Terraform acceptance tests contradict are warnings.
    for key in ("engine-id-alone", "algorithm-leaves-code-blank", "code-pair"):
        assert models.INPUT_RULES[key].severity == "warning"

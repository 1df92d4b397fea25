"""modelarts-from-terraform in process: a Terraform state (and the same resources as `terraform show -json`
prints them) into a `pulumi import --file` document; the names; what it skips, leaves out and refuses.
The fixtures (tests/data/terraform/) are shaped as Terraform 1.9 writes them for the Huawei Cloud provider's
huaweicloud_modelarts_training_job."""

from __future__ import annotations

import copy
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pulumi_modelarts.tools import from_terraform
from pulumi_modelarts.tools.terraform_state import Instance, StateError, instances, module_path

DATA = Path(__file__).resolve().parents[1] / "data" / "terraform"
STATE = DATA / "terraform.tfstate"
SHOW = DATA / "show.json"
JOB = "huaweicloud_modelarts_training_job"

EXPECTED = {
    "baseline": "8c1f7a3e-52d4-4f0b-9a61-0d2e6b7c4a15",
    "nightly-0": "1b9e4d72-6a0c-4e8f-b3d5-7f21c9a0e846",
    "nightly-1": "e47a0c19-3d85-4b6e-8f2a-95c0d1b7e3f4",
    "sweep-resnet50": "5d2b8e61-0f7a-4c39-a4e8-6b1c3d9f0a27",
    "sweep-vit-base": "a3f06c58-91e2-4d7b-8c05-2e4b7a1d6f93",
    "training-nightly-a": "70c4e2b9-1a6d-4f83-b5e0-c8d3f2a19b64",
    "training-finetune-lora": "c9a51f04-7e3b-4d26-9b8c-0a6f5e2d1c73",
}


def run(capsys: Any, *argv: str | Path) -> tuple[int, str, str]:
    code = from_terraform.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def state() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(STATE.read_text())
    return result


def write(tmp_path: Path, document: Any, name: str = "state.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def addresses(module: dict[str, Any]) -> list[str]:
    """The address of every resource of a `terraform show -json` module and its child modules."""
    found = [r["address"] for r in module.get("resources", [])]
    for child in module.get("child_modules", []):
        found += addresses(child)
    return found


def job_resource(doc: dict[str, Any], name: str, module: str = "") -> dict[str, Any]:
    [found] = [
        r
        for r in doc["resources"]
        if r["type"] == JOB and r["name"] == name and r.get("module", "") == module
    ]
    return found


def test_a_state_gives_every_job_instance_by_its_address(capsys: Any) -> None:
    code, out, err = run(capsys, STATE)
    assert code == 0, err
    document = json.loads(out)
    assert document == {
        "resources": [
            {"type": "modelarts:index:TrainingJob", "name": name, "id": job_id}
            for name, job_id in EXPECTED.items()
        ]
    }
    # stderr says where each came from, what was skipped (by type) and what to run next.
    assert 'module.training.huaweicloud_modelarts_training_job.nightly["a"]  ->  training-nightly-a' in err
    assert (
        "skipped 3 other resource instance(s): data.huaweicloud_modelarts_training_jobs 1, "
        "huaweicloud_obs_bucket 1, huaweicloud_smn_topic 1"
    ) in err
    assert "pulumi import --file <the import file> --out <program file>" in err
    assert "terraform state rm huaweicloud_modelarts_training_job.baseline \\\n" in err
    assert "'huaweicloud_modelarts_training_job.nightly[0]'" in err


def test_terraform_show_json_gives_the_same_document(capsys: Any) -> None:
    _, from_state, _ = run(capsys, STATE)
    code, from_show, err = run(capsys, SHOW)
    assert code == 0, err
    assert from_show == from_state
    # The same instances, and each at the address `terraform show -json` gives it.
    shown = json.loads(SHOW.read_text())
    read = sorted(instances(shown, "show"), key=Instance.sort_key)
    assert read == sorted(instances(state(), "state"), key=Instance.sort_key)
    assert {i.address for i in read} == set(addresses(shown["values"]["root_module"]))


def test_stdin_and_an_output_file_that_is_never_overwritten_unasked(
    capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SHOW.read_bytes())))
    code, out, _ = run(capsys, "-")
    assert code == 0 and [r["name"] for r in json.loads(out)["resources"]] == list(EXPECTED)

    target = tmp_path / "import.json"
    code, out, err = run(capsys, STATE, "-o", target)
    assert code == 0 and out == "" and f"written to {target}" in err
    assert f"pulumi import --file {target} --out <program file>" in err
    written = target.read_text()
    target.write_text("mine")
    code, out, err = run(capsys, STATE, "-o", target)
    assert (code, out) == (2, "")
    assert err == f"error: {target} exists: give --force to overwrite it, or another FILE\n"
    assert target.read_text() == "mine"
    assert run(capsys, STATE, "-o", target, "--force")[0] == 0 and target.read_text() == written
    # Not even --force writes over the state it reads.
    copy_of_state = write(tmp_path, STATE.read_text(), "terraform.tfstate")
    code, _, err = run(capsys, copy_of_state, "-o", copy_of_state, "--force")
    assert code == 2 and "is the state itself" in err and copy_of_state.read_text() == STATE.read_text()


def test_names_stay_unique_when_addresses_give_the_same_one(capsys: Any, tmp_path: Path) -> None:
    doc = state()
    # Three addresses that all read "training-nightly-a", one that reads "training-nightly-a-2" itself.
    twin = copy.deepcopy(job_resource(doc, "nightly", "module.training"))
    twin.pop("module")
    twin["name"] = "training_nightly"
    twin["instances"][0]["attributes"]["id"] = "0d7e8f9a-0000-4000-8000-000000000001"
    other = copy.deepcopy(twin)
    other["name"] = "training__nightly"
    other["instances"][0]["index_key"] = "a!"
    other["instances"][0]["attributes"]["id"] = "0d7e8f9a-0000-4000-8000-000000000002"
    suffixed = copy.deepcopy(twin)
    suffixed["instances"][0]["index_key"] = "a-2"
    suffixed["instances"][0]["attributes"]["id"] = "0d7e8f9a-0000-4000-8000-000000000003"
    doc["resources"] += [other, suffixed, twin]
    code, out, err = run(capsys, write(tmp_path, doc))
    assert code == 0, err
    names = {r["id"][-1]: r["name"] for r in json.loads(out)["resources"] if r["id"].startswith("0d7e")}
    # Terraform's order (root module first, then by name and key) decides who keeps the name.
    assert names == {"2": "training-nightly-a", "1": "training-nightly-a-3", "3": "training-nightly-a-2"}
    assert json.loads(out)["resources"][-2]["name"] == "training-nightly-a-4"  # the module's own
    names_all = [r["name"] for r in json.loads(out)["resources"]]
    assert len(set(names_all)) == len(names_all)


@pytest.mark.parametrize(
    ("modules", "name", "key", "expected"),
    [
        ((), "nightly", None, "nightly"),
        ((), "nightly_run", 3, "nightly-run-3"),
        ((("training", None),), "nightly", "a", "training-nightly-a"),
        ((("a", 0), ("b", "eu west/1")), "job", "x.y", "a-0-b-eu-west-1-job-x-y"),
        ((), "_", "", "job"),
        ((), "sweep", "ÄÖ", "sweep"),
    ],
)
def test_the_name_of_an_address(modules: Any, name: str, key: Any, expected: str) -> None:
    instance = Instance(modules, "managed", JOB, name, key, {"id": "x"})
    assert from_terraform.pulumi_name(instance) == expected


def test_module_addresses() -> None:
    assert module_path("", "m") == ()
    assert module_path('module.a[0].module.b["x.y"]', "m") == (("a", 0), ("b", "x.y"))
    for bad in ("module.", "mod.a", "module.a[", "module.a.", "module.a.b"):
        with pytest.raises(StateError, match="is not a module address"):
            module_path(bad, "m")


def test_data_sources_and_deposed_objects_are_not_imported(capsys: Any, tmp_path: Path) -> None:
    doc = state()
    data = copy.deepcopy(job_resource(doc, "baseline"))
    data["mode"] = "data"
    deposed = copy.deepcopy(job_resource(doc, "baseline")["instances"][0])
    deposed["deposed"] = "3b1c9a7e"
    deposed["attributes"]["id"] = "0d7e8f9a-0000-4000-8000-00000000000d"
    job_resource(doc, "baseline")["instances"].append(deposed)
    job_resource(doc, "nightly")["instances"][1]["status"] = "tainted"
    doc["resources"].append(data)
    code, out, err = run(capsys, write(tmp_path, doc))
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)["resources"]] == list(EXPECTED)
    assert f"data.{JOB} 1" in err
    assert f"  {JOB}.baseline (deposed object 3b1c9a7e)" in err
    assert f"{JOB}.nightly[1]  ->  nightly-1  (e47a0c19-3d85-4b6e-8f2a-95c0d1b7e3f4)  (tainted" in err


@pytest.mark.parametrize(
    ("job_id", "reason"),
    [
        (None, "no id in the state"),
        ("", "its id must not be empty"),
        ("   ", "its id must not be empty"),
        ("..", "its id '..' is not a valid id"),
        (42, "its id 42 is not a string"),
        (
            "1b9e4d72-6a0c-4e8f-b3d5-7f21c9a0e846",
            f"its job 1b9e4d72-6a0c-4e8f-b3d5-7f21c9a0e846 is already {JOB}",
        ),
    ],
)
def test_a_job_without_a_job_id_is_reported_and_left_out(
    capsys: Any, tmp_path: Path, job_id: Any, reason: str
) -> None:
    doc = state()
    attributes = job_resource(doc, "sweep")["instances"][1]["attributes"]
    if job_id is None:
        del attributes["id"]
    else:
        attributes["id"] = job_id
    target = tmp_path / "import.json"
    code, out, err = run(capsys, write(tmp_path, doc), "-o", target)
    assert code == 3 and out == ""
    assert f'left out 1 job instance(s):\n  {JOB}.sweep["vit_base"]: {reason}' in err
    written = json.loads(target.read_text())["resources"]
    assert [r["name"] for r in written] == [n for n in EXPECTED if n != "sweep-vit-base"]
    assert 'sweep[\\"vit_base\\"]' not in err.split("terraform state rm")[-1]


def test_no_job_is_an_empty_document(capsys: Any, tmp_path: Path) -> None:
    doc = state()
    doc["resources"] = [r for r in doc["resources"] if r["type"] != JOB]
    code, out, err = run(capsys, write(tmp_path, doc))
    assert (code, json.loads(out)) == (0, {"resources": []})
    assert err.startswith(f"no training job ({JOB}) in ")
    assert "Next" not in err
    # An empty state shown by `terraform show -json` is the format version alone.
    code, out, err = run(capsys, write(tmp_path, {"format_version": "1.0"}, "empty.json"))
    assert (code, json.loads(out)) == (0, {"resources": []})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"version": 4,\n  "resources": [,]}', "is not JSON: Expecting value at line 2, column 17"),
        ("", "is not JSON: Expecting value at line 1, column 1"),
        (
            {"resources": [], "stack": "dev"},
            'holds a JSON object with keys "resources", "stack", neither a Terraform state (version 4) '
            "nor `terraform show -json` output",
        ),
        (
            [1, 2],
            "holds a JSON array, neither a Terraform state (version 4) nor `terraform show -json` output",
        ),
        (
            {"version": 3, "terraform_version": "0.11.14", "serial": 2, "modules": []},
            "is a Terraform state of version 3; this command reads version 4 (Terraform 0.12 and later)",
        ),
        ({"format_version": "2.0", "values": {}}, "reads format versions 0.x and 1.x"),
        (
            {"format_version": "1.2", "planned_values": {}},
            "is a plan's JSON (`terraform show -json PLANFILE`)",
        ),
        ({"version": 4, "resources": {"a": 1}}, "resources is a JSON object where a list belongs"),
        ({"version": 4, "resources": [{"mode": "managed", "type": JOB}]}, "resources[0].name is missing"),
    ],
)
def test_a_file_that_is_not_a_state_is_refused(
    capsys: Any, tmp_path: Path, content: Any, message: str
) -> None:
    path = write(tmp_path, content)
    code, out, err = run(capsys, path)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {path}") and message in err, err


def test_unreadable_files_are_refused(capsys: Any, tmp_path: Path) -> None:
    code, _, err = run(capsys, tmp_path / "missing.json")
    assert code == 2 and err == f"error: {tmp_path / 'missing.json'}: No such file or directory\n"
    path = tmp_path / "binary"
    path.write_bytes(b"\x89PNG\r\n")
    code, _, err = run(capsys, path)
    assert code == 2 and "is not text" in err
    # What PowerShell's `terraform show -json > show.json` writes: UTF-16 with a byte-order mark.
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(SHOW.read_text().encode("utf-16"))
    assert run(capsys, utf16)[0] == 0

"""What both front-ends take from front_end: configuration, naming, failures and warnings as the engine
shows them, error text. (Listing jobs, which needs a service, is tested in test_tags and through both
front-ends.)"""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from pulumi_modelarts.account.errors import SettingsError
from pulumi_modelarts.frontends import engine_text, naming, provider_config
from pulumi_modelarts.generated.fields import NAME_SCOPE_FIELD
from pulumi_modelarts.job.errors import InvalidInputsError


def test_configure_keeps_the_settings_keys_and_names_the_near_misses_set() -> None:
    config = provider_config.ProviderConfig()
    assert config.for_check() == (None, [])  # not configured by an engine: check judges no settings
    config.configure(
        {
            "modelarts:region": "cn-north-4",
            "modelarts:projectId": "p-1",
            "modelarts:endpoint": "",  # set but empty: not a setting
            "modelarts:project_id": "p-typed-wrongly",  # a near miss: named, never kept
            "modelarts:access-key": None,  # a near miss not set: not named
            "other:thing": "x",
        }
    )
    kept = {"modelarts:region": "cn-north-4", "modelarts:projectId": "p-1"}
    assert config.current() == kept
    assert config.for_check() == (kept, ["modelarts:project_id"])
    # Config that is not the stack's (a direct call, a test) is used, never judged.
    config.remember({"modelarts:region": "ap-southeast-1"})
    assert config.current() == {"modelarts:region": "ap-southeast-1"}
    assert config.for_check() == (None, [])


def test_the_configuration_is_handed_out_as_copies() -> None:
    config = provider_config.ProviderConfig()
    config.configure({"modelarts:region": "cn-north-4"})
    config.current()["modelarts:region"] = "changed"
    checked, misplaced = config.for_check()
    assert checked is not None
    checked["modelarts:region"] = "changed"
    misplaced.append("x")
    assert config.for_check() == ({"modelarts:region": "cn-north-4"}, [])


def test_configuration_is_read_whole_while_another_thread_configures() -> None:
    config = provider_config.ProviderConfig()
    one = {"modelarts:region": "r1", "modelarts:projectId": "p1"}
    two = {"modelarts:region": "r2", "modelarts:projectId": "p2"}
    seen: list[dict[str, str]] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.append(config.current())

    reader = threading.Thread(target=read)
    reader.start()
    for _ in range(2000):
        config.configure(one)
        config.configure(two)
    stop.set()
    reader.join()
    assert all(found in ({}, one, two) for found in seen)


def test_naming_fills_the_prefix_only_when_left_out_and_always_the_scope() -> None:
    given = {"name_prefix": None, "wait_for": "none"}
    named = naming.with_naming(given, "train", "proj/dev")
    assert named == {"name_prefix": "train", "wait_for": "none", NAME_SCOPE_FIELD: "proj/dev"}
    assert given == {"name_prefix": None, "wait_for": "none"}  # the inputs given are not changed
    kept = naming.with_naming({"name_prefix": "mine"}, "train", "proj/dev")
    assert kept["name_prefix"] == "mine"


def test_the_scope_is_the_stack_of_the_urn_or_of_the_program() -> None:
    urn = "urn:pulumi:dev::proj::modelarts:index:TrainingJob::train"
    assert naming.scope_of_urn(urn) == naming.stack_scope("proj", "dev") == "proj/dev"


def test_nested_failure_paths_lead_the_reason_top_level_ones_stay_properties() -> None:
    assert engine_text.engine_failure("wait_for", "must be one of ...") == ("wait_for", "must be one of ...")
    assert engine_text.engine_failure("spec.resource.node_count", "must be >= 1") == (
        "",
        "spec.resource.node_count: must be >= 1",
    )
    assert engine_text.engine_failure("tasks[0]", "bad") == ("", "tasks[0]: bad")
    assert engine_text.engine_failure("", "the inputs could not be checked") == (
        "",
        "the inputs could not be checked",
    )


def test_warning_lines_name_the_job_only_when_asked() -> None:
    assert engine_text.warning_line("spec.pool_id", "leave it blank") == "spec.pool_id: leave it blank"
    assert engine_text.warning_line("", "general advice") == "general advice"
    assert (
        engine_text.warning_line("spec.pool_id", "leave it blank", "job-1")
        == "training job job-1: spec.pool_id: leave it blank"
    )


def test_error_text_is_the_message_for_our_errors_and_names_the_type_of_a_bug() -> None:
    assert engine_text.error_text(SettingsError("Missing: the region")) == "Missing: the region"
    invalid = InvalidInputsError([("metadata.name", "too long")])
    assert engine_text.error_text(invalid) == str(invalid)
    assert engine_text.error_text(KeyError("x")) == "KeyError: 'x'"


@pytest.mark.parametrize(
    "module",
    [
        "pulumi_modelarts.frontends.provider_config",
        "pulumi_modelarts.frontends.naming",
        "pulumi_modelarts.frontends.resource",
    ],
)
def test_importing_it_loads_no_model_or_http_library(module: str) -> None:
    # resource.py (the program's side) imports these: a program that only declares jobs stays light.
    code = (
        f"import sys, {module}\n"
        "heavy = [m for m in ('pydantic', 'httpx', 'pulumi_modelarts.job.core') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"

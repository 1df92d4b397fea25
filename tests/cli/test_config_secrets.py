"""A secret key set in stack config without `--secret`, through the real CLI: where it ends up.

`pulumi config set --plaintext modelarts:secretKey …` (no `--secret`) leaves it in plain text in the stack's
config file: that is the user's. What the providers control is the state: the native plugin's settings that
its schema marks secret are secret in its provider resource whatever the user typed (and it warns once,
saying where the key belongs), and the dynamic front-end stores no credential at all: the only copy is the
one the engine itself keeps as its default provider's inputs (docs/installation-configuration.md#credentials).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .front_ends import FRONT_ENDS, NATIVE, FrontEnd
from .story import credentials_in_config, job_args, new_story

pytestmark = pytest.mark.cli

WARNING = "modelarts:secretKey is set in the stack config"


def paths_containing(value: Any, needle: str, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in paths_containing(v, needle, f"{path}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in paths_containing(v, needle, f"{path}[{i}]")]
    return [path] if isinstance(value, str) and needle in value else []


def leaks(resources: list[dict[str, Any]], needle: str) -> set[tuple[str, str]]:
    return {(r["type"], path) for r in resources for path in paths_containing(r, needle)}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_secret_key_set_without_secret_is_never_stored_in_plain_text_by_the_provider(
    tmp_path: Path, emulator_factory: Any, front_end: FrontEnd
) -> None:
    secret = "SK-plain-" + tmp_path.name.replace("_", "")[-12:]
    emu = emulator_factory(secret_key=secret, access_key="PLAINAK0123456789")
    story = new_story(tmp_path, emu, credentials_in_env=False, front_end=front_end)
    # The secret key without --secret (the CLI asks for --plaintext then, for a key named like a secret): the
    # value is plain in the user's own config file.
    story.stack.config_all(
        {
            "modelarts:endpoint": emu.url,
            "modelarts:projectId": emu.project_id,
            "modelarts:accessKey": emu.access_key,
            "modelarts:secretKey": secret,
        }
    )
    assert secret in (story.workdir / "Pulumi.test.yaml").read_text()
    story.declare({"train": job_args()})

    up = story.stack.up()
    assert emu.stats()["by_status"].get("401") is None  # the key from the config is the one in use
    output = up.stdout + up.stderr
    assert secret not in output

    state = story.stack.export()["deployment"]["resources"]
    opened = story.stack.export(show_secrets=True)["deployment"]["resources"]
    if front_end.native:
        # Secret in the provider resource's inputs and outputs, so encrypted in the state like any secret.
        assert leaks(state, secret) == set(), json.dumps(state)
        provider = "pulumi:providers:modelarts"
        assert leaks(opened, secret) == {
            (provider, "/inputs/secretKey/plaintext"),
            (provider, "/outputs/secretKey/plaintext"),
        }
        # Said once, on the provider's row: the key belongs in --secret config or, better, the environment.
        diagnostics = output.partition("Diagnostics:")[2]
        assert diagnostics.count(WARNING) == 1, output
        assert "--secret" in output and "HW_SECRET_KEY" in output
    else:
        # No credential in any TrainingJob (inputs, outputs, the serialized provider): the only copy is the
        # engine's own record of the stack config as the dynamic host's provider inputs, as the user typed it.
        engine = "pulumi:providers:pulumi-python"
        expected = {(engine, "/inputs/modelarts:secretKey"), (engine, "/outputs/modelarts:secretKey")}
        assert leaks(state, secret) == expected
        assert leaks(opened, secret) == expected
        assert WARNING not in output

    # Marking the settings changes nothing the next command would act on.
    story.stack.preview("--expect-no-changes")
    story.stack.destroy()


def credentials_section() -> str:
    page = (Path(__file__).resolve().parents[2] / "docs" / "installation-configuration.md").read_text()
    return page.partition("### Credentials")[2].partition("\n## ")[0]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("source", ["stack-config", "environment"])
def test_only_pulumis_own_debug_output_shows_a_key_from_the_stack_config(
    tmp_path: Path, emulator_factory: Any, source: str, front_end: FrontEnd
) -> None:
    """What docs/installation-configuration.md#credentials says of logs: nothing the provider writes holds the
    key; Pulumi's own verbose log and gRPC debug log do when it comes from the stack config (the engine logs
    the configuration it sends the provider, decrypted), and do not when it comes from the environment."""
    secret = "SK-debug-" + tmp_path.name.replace("_", "")[-12:]
    emu = emulator_factory(secret_key=secret, access_key="DEBUGAK0123456789")
    story = new_story(tmp_path, emu, credentials_in_env=source == "environment", front_end=front_end)
    if source == "stack-config":
        credentials_in_config(story.stack, emu, secret)
    story.declare({"train": job_args()})
    grpc_log = tmp_path / "grpc.log"
    up = story.stack.run(
        "up", "--yes", "--skip-preview", "-v=9", "--logtostderr", PULUMI_DEBUG_GRPC=str(grpc_log)
    )
    assert emu.stats()["by_status"].get("401") is None  # the key was in use
    # The display: every progress line, warning and error of the provider.
    assert secret not in up.stdout
    assert "modelarts" in grpc_log.read_text()  # the gRPC log was written (the check is not vacuous)
    engine_logs = up.stderr + grpc_log.read_text()
    assert (secret in engine_logs) is (source == "stack-config")

    said = credentials_section()
    assert "-v=9" in said and "PULUMI_DEBUG_GRPC" in said, "the page names where the engine shows the key"


def test_the_native_plugin_names_where_the_credentials_came_from_in_the_engines_debug_log(
    tmp_path: Path, emulator_factory: Any
) -> None:
    """`pulumi up --debug` shows which source the credentials came from (never a value); a plain `up` does
    not show it."""
    secret = "SK-source-" + tmp_path.name.replace("_", "")[-12:]
    emu = emulator_factory(secret_key=secret, access_key="SOURCEAK0123456789")
    story = new_story(tmp_path, emu, credentials_in_env=True, front_end=NATIVE)
    story.declare({"train": job_args()})
    up = story.stack.up("--debug")
    shown = up.stdout + up.stderr
    assert "modelarts: credentials from environment" in shown, shown[-3000:]
    assert secret not in shown and "SOURCEAK0123456789" not in shown
    story.declare({})
    quiet = story.stack.up()
    assert "credentials from" not in quiet.stdout + quiet.stderr

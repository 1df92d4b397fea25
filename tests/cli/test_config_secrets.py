"""A secret key set in stack config without `--secret`, through the real CLI: where it ends up.

`pulumi config set --plaintext modelarts:secretKey …` (no `--secret`) leaves it in plain text in the stack's
config file: that is the user's. What the providers control is the state: the native plugin's settings that
its schema marks secret are secret in its provider resource whatever the user typed (and it warns once,
saying where the key belongs), and the dynamic front-end stores no credential at all: the only copy is the
one the engine itself keeps as its default provider's inputs (docs/installation-configuration.md#credentials).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .both_front_ends import BOTH, both_stack, declare, jobs_in_state
from .front_ends import NATIVE
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


def rows_saying(output: str, text: str) -> list[str]:
    """For each line of a run's output saying text, the resource row it belongs to: the line itself in the
    progress display (which names the resource's type), its block's heading under Diagnostics."""
    rows = []
    heading = ""
    in_diagnostics = False
    for line in output.splitlines():
        if line.startswith("Diagnostics:"):
            in_diagnostics = True
        elif in_diagnostics and re.match(r"  \S.*:$", line):
            heading = line.strip()
        elif line and not line.startswith(" "):
            in_diagnostics = False
        if text in line:
            rows.append(heading if in_diagnostics else line)
    return rows


def test_a_secret_key_set_without_secret_is_never_stored_in_plain_text_by_the_provider(
    tmp_path: Path, emulator_factory: Any
) -> None:
    """Both front-ends' jobs in one stack (both_front_ends.py): what each provider keeps, and says, is told
    apart by the resource it belongs to."""
    secret = "SK-plain-" + tmp_path.name.replace("_", "")[-12:]
    emu = emulator_factory(secret_key=secret, access_key="PLAINAK0123456789")
    stack = both_stack(tmp_path, emu, credentials_in_env=False)
    # The secret key without --secret (the CLI asks for --plaintext then, for a key named like a secret): the
    # value is plain in the user's own config file.
    stack.config_all(
        {
            "modelarts:endpoint": emu.url,
            "modelarts:projectId": emu.project_id,
            "modelarts:accessKey": emu.access_key,
            "modelarts:secretKey": secret,
        }
    )
    assert secret in (stack.workdir / "Pulumi.test.yaml").read_text()
    declare(stack, {f"train-{fe.name}": (fe, job_args()) for fe in BOTH})

    up = stack.up()
    assert emu.stats()["by_status"].get("401") is None  # the key from the config is the one in use
    for fe in BOTH:
        assert list(jobs_in_state(stack, fe)) == [f"train-{fe.name}"]  # each front-end's job went up with it
    output = up.stdout + up.stderr
    assert secret not in output
    # A plain `up` does not say where the credentials came from (`up --debug` does: the next test).
    assert "credentials from" not in output

    state = stack.export()["deployment"]["resources"]
    opened = stack.export(show_secrets=True)["deployment"]["resources"]
    provider = "pulumi:providers:modelarts"
    engine = "pulumi:providers:pulumi-python"
    # Native: secret in the provider resource's inputs and outputs, so encrypted in the state like any secret.
    assert {leak for leak in leaks(state, secret) if leak[0] != engine} == set(), json.dumps(state)
    assert {leak for leak in leaks(opened, secret) if leak[0] != engine} == {
        (provider, "/inputs/secretKey/plaintext"),
        (provider, "/outputs/secretKey/plaintext"),
    }
    # Said once, on the native provider's row: the key belongs in --secret config or, better, the environment.
    diagnostics = output.partition("Diagnostics:")[2]
    assert diagnostics.count(WARNING) == 1, output
    assert "--secret" in output and "HW_SECRET_KEY" in output
    # Dynamic: no credential in any TrainingJob (inputs, outputs, the serialized provider): the only copy is
    # the engine's own record of the stack config as the dynamic host's provider inputs, as the user typed it.
    expected = {(engine, "/inputs/modelarts:secretKey"), (engine, "/outputs/modelarts:secretKey")}
    assert {leak for leak in leaks(state, secret) if leak[0] != provider} == expected
    assert {leak for leak in leaks(opened, secret) if leak[0] != provider} == expected
    # And nothing of the dynamic front-end says it: every row saying it is the native provider's.
    rows = rows_saying(output, WARNING)
    assert rows and all(provider in row for row in rows), rows

    # Marking the settings changes nothing the next command would act on.
    stack.preview("--expect-no-changes")
    stack.destroy()


def credentials_section() -> str:
    page = (Path(__file__).resolve().parents[2] / "docs" / "installation-configuration.md").read_text()
    return page.partition("### Credentials")[2].partition("\n## ")[0]


@pytest.mark.parametrize("source", ["stack-config", "environment"])
def test_only_pulumis_own_debug_output_shows_a_key_from_the_stack_config(
    tmp_path: Path, emulator_factory: Any, source: str
) -> None:
    """What docs/installation-configuration.md#credentials says of logs: nothing the provider writes holds the
    key; Pulumi's own verbose log and gRPC debug log do when it comes from the stack config (the engine logs
    the configuration it sends the provider, decrypted), and do not when it comes from the environment.

    The native front-end's cases; the dynamic one's: tests/test_security.py::
    test_secret_key_never_in_state_outputs_or_logs (its destroy). With the credentials from the environment,
    the `up` also runs with --debug: that shows which source the credentials came from (never a value); a
    plain `up` does not (the test above)."""
    front_end = NATIVE
    secret = "SK-debug-" + tmp_path.name.replace("_", "")[-12:]
    access = "DEBUGAK0123456789"
    emu = emulator_factory(secret_key=secret, access_key=access)
    story = new_story(
        tmp_path, emu, credentials_in_env=source == "environment", name="rel", front_end=front_end
    )
    if source == "stack-config":
        credentials_in_config(story.stack, emu, secret)
    story.declare({"train": job_args()})
    grpc_log = tmp_path / "grpc.log"
    says_source = source == "environment"
    debug = ["--debug"] if says_source else []
    up = story.stack.run(
        "up", "--yes", "--skip-preview", "-v=9", "--logtostderr", *debug, PULUMI_DEBUG_GRPC=str(grpc_log)
    )
    assert emu.stats()["by_status"].get("401") is None  # the key was in use
    # The display: every progress line, warning and error of the provider.
    assert secret not in up.stdout
    assert "modelarts" in grpc_log.read_text()  # the gRPC log was written (the check is not vacuous)
    engine_logs = up.stderr + grpc_log.read_text()
    assert (secret in engine_logs) is (source == "stack-config")

    said = credentials_section()
    assert "-v=9" in said and "PULUMI_DEBUG_GRPC" in said, "the page names where the engine shows the key"

    if says_source:
        shown = up.stdout + up.stderr
        assert "modelarts: credentials from environment" in shown, shown[-3000:]
        assert secret not in shown and access not in shown

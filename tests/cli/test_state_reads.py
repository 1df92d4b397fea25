"""The CLI tests read a stack's state from the local backend's checkpoint file instead of starting `pulumi
stack export` or `pulumi stack output` for each read; this holds the two to each other, and a stack made by
copying one `pulumi stack init` made (``Stack.init``) to one `pulumi stack init` makes.

One stack, both kinds of output (plain and secret) and a resource: what `pulumi stack export` prints is the
checkpoint file's deployment, and what `pulumi stack output --json` prints is its outputs with every secret
shown as "[secret]".
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .opened_state import opened_outputs
from .pulumi_cli import SECRET_SHOWN, Stack, new_stack, pulumi_env, write_project

pytestmark = pytest.mark.cli

PROGRAM = textwrap.dedent(
    """
    import pulumi

    config = pulumi.Config()
    # "owner" comes from a secret config value: read with get, it is exported in plain text.
    owner = config.get("owner") or "nobody"
    phase = config.get("phase") or "Running"
    pulumi.export("plain", {"id": "j-1", "nodes": [1, 2], "phase": phase, "owner": owner})
    pulumi.export("hidden", pulumi.Output.secret("s3cr3t-value"))
    pulumi.export("nested", {"token": pulumi.Output.secret("inner"), "kept": "shown"})
    """
)


def test_a_copied_new_stack_is_what_pulumi_stack_init_makes_and_its_reads_are_what_the_cli_prints(
    tmp_path: Path,
) -> None:
    copied = new_stack(tmp_path / "copied", tmp_path / "state-copied", "rel", PROGRAM)
    write_project(tmp_path / "made", "rel", PROGRAM)
    made = Stack(tmp_path / "made", tmp_path / "state-made", env=pulumi_env(tmp_path / "state-made"))
    made.backend.mkdir(parents=True)
    made.run("stack", "init", made.name)

    # Selected, the passphrase's salt in its settings file, no deployment yet: as `stack init` leaves it.
    for stack in (copied, made):
        listed = json.loads(stack.run("stack", "ls", "--json").stdout)
        assert [(s["name"], s["current"]) for s in listed] == [("test", True)]
        assert (stack.workdir / "Pulumi.test.yaml").read_text().startswith("encryptionsalt: v1:")
    # No outputs yet (the copied stack's read from its checkpoint, which its export below holds to the CLI's).
    assert made.cli_outputs() == {}
    assert copied.outputs() == {}
    exported = [stack.cli_export()["deployment"] for stack in (copied, made)]
    for deployment in exported:
        deployment["manifest"].pop("time")
        deployment["secrets_providers"]["state"].pop("salt")
    assert exported[0] == exported[1]

    # And it works: a secret set in its config is decrypted by the program. The same stack then holds the
    # checkpoint reads to what the CLI prints: both kinds of output (plain and secret) and resources.
    stack = copied
    stack.config_all({"rel:phase": "Pending"}, {"rel:owner": "ana", "rel:unused": "sealed"})
    stack.up()
    assert stack.outputs()["plain"]["owner"] == "ana"

    assert stack.export() == stack.cli_export()
    outputs = stack.outputs()
    assert outputs == stack.cli_outputs()
    assert outputs["hidden"] == SECRET_SHOWN and outputs["nested"]["token"] == SECRET_SHOWN
    assert outputs["plain"] == {"id": "j-1", "nodes": [1, 2], "phase": "Pending", "owner": "ana"}
    assert "s3cr3t-value" not in json.dumps(stack.export())
    # Decrypted reads still go through the CLI; the outputs shown are those of the decrypted export, so a test
    # that reads that needs no `stack output --show-secrets` as well (opened_state.py).
    shown = stack.outputs(show_secrets=True)
    assert shown["hidden"] == "s3cr3t-value"
    assert shown == opened_outputs(stack.export(show_secrets=True))
    assert shown["nested"] == {"token": "inner", "kept": "shown"}

    # After a destroy: no resources, no outputs, alike.
    stack.destroy()
    assert stack.export() == stack.cli_export()
    assert stack.outputs() == stack.cli_outputs() == {}

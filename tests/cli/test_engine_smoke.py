"""The real engine works here: a one-resource dynamic program goes through up, preview and destroy."""

from __future__ import annotations

import textwrap
from importlib.metadata import version
from pathlib import Path

from .pulumi_cli import Stack, pulumi_env, write_project

PROGRAM = textwrap.dedent(
    """
    import pulumi
    from pulumi.dynamic import CreateResult, Resource, ResourceProvider

    class Echo(ResourceProvider):
        def create(self, props):
            return CreateResult("echo-1", {"value": props["value"] + "!"})

    class Thing(Resource):
        value: pulumi.Output[str]

        def __init__(self, name, value):
            super().__init__(Echo(), name, {"value": value})

    pulumi.export("value", Thing("thing", "hello").value)
    """
)


def test_cli_version_matches_python_sdk(tmp_path: Path) -> None:
    stack = Stack(tmp_path, tmp_path, env=pulumi_env(tmp_path))
    cli_version = stack.run("version").stdout.strip()
    assert cli_version == f"v{version('pulumi')}"


def test_dynamic_resource_up_preview_destroy(tmp_path: Path) -> None:
    write_project(tmp_path / "prog", "smoke", PROGRAM)
    stack = Stack(tmp_path / "prog", tmp_path, env=pulumi_env(tmp_path)).init()

    stack.up()
    assert stack.outputs() == {"value": "hello!"}
    [thing] = stack.resources()
    assert thing["id"] == "echo-1"

    preview = stack.preview("--expect-no-changes")
    assert "1 unchanged" in preview.stdout or "2 unchanged" in preview.stdout

    stack.destroy()
    assert stack.resources() == []

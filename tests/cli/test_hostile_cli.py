"""Item 5 through the CLI: refresh and destroy against a server answering garbage fail clearly and leave the
state exactly as it was."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..httpserver import Reply, ScriptedServer, json_reply
from .cli_helpers import jobs_program, make_stack
from .pulumi_cli import Stack

pytestmark = pytest.mark.cli

HTML = "<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
GARBAGE = {
    "html-page": Reply(200, HTML, {"Content-Type": "text/html"}),
    "error-body-with-200": json_reply({"error_code": "ModelArts.0001", "error_msg": "internal"}),
}


def comparable(stack: Stack) -> list[dict[str, Any]]:
    """The state's resources with secrets opened (ciphertexts get a fresh nonce on every save).

    Left out: timestamps, and propertyDependencies, which the engine itself drops when a refresh rewrites
    the state (engine bookkeeping about the program, not anything the provider returned).
    """
    resources = stack.export(show_secrets=True)["deployment"]["resources"]
    skip = ("created", "modified", "propertyDependencies")
    return [{k: v for k, v in r.items() if k not in skip} for r in resources]


@pytest.mark.parametrize("case", list(GARBAGE))
def test_refresh_and_destroy_against_garbage_keep_the_state(
    tmp_path: Path, emulator: EmulatorProcess, case: str
) -> None:
    stack = make_stack(tmp_path, emulator, jobs_program(3, wait_for="none"))
    stack.up()
    before = comparable(stack)

    with ScriptedServer() as server:
        server.handler = lambda _request: GARBAGE[case]
        hostile = replace(stack, env={**stack.env, "HW_MODELARTS_ENDPOINT": server.url})
        for command in (hostile.refresh, hostile.destroy):
            result = command(check=False)
            output = result.stdout + result.stderr
            assert result.returncode != 0, output
            assert "Traceback" not in output
            assert "get training job" in output  # says which call failed
            assert ("not JSON" if case == "html-page" else "error body") in output
            assert emulator.secret_key not in output
        assert server.requests, "the provider did talk to the hostile server"

    assert comparable(stack) == before
    stack.destroy()  # and the real service is still reachable and clean

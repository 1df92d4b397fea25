"""Bounded messages: whatever an error quotes that it did not write (a body, a message, a list an answer or a
file gave) is cut to a stated length, saying how much was left out; one helper for a text (``shorten``), one
for a list (``listing``), used wherever one is quoted. (IAM's lists and the account files: tests/account.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pulumi_modelarts.wire.api_errors import ServerError
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.errors import QUOTED_CHARS, InvalidResponseError, listing, shorten

from ..httpserver import Reply, ScriptedServer, json_reply


@pytest.fixture
def client_defaults() -> dict[str, Any]:
    """make_client's (tests/wire/conftest.py): one attempt."""
    return {"auth": AkSkAuth("AKBOUNDED", "SkBoundedSecret0123"), "max_attempts": 1}


def test_a_long_list_is_cut_saying_how_many_were_left_out() -> None:
    names = [f"cn-north-4_project{i}" for i in range(10_000)]
    shown = listing(names)
    assert len(shown) <= QUOTED_CHARS == 500
    assert shown.startswith("cn-north-4_project0, cn-north-4_project1, ")
    kept = shown.count("cn-north-4_project")
    assert shown.endswith(f", and {10_000 - kept} more")
    assert listing(["a", "b"]) == "a, b"  # a short list whole
    only = listing(["x" * 2000, "y"])  # even the first does not fit: cut, and the rest counted
    left = re.fullmatch(r"x+… \((\d+) more characters\), and 1 more", only)
    assert left and len(only) <= QUOTED_CHARS and only.count("x") + int(left[1]) == 2000


def test_a_long_text_is_cut_saying_how_many_characters_were_left_out() -> None:
    cut = shorten("y" * 100_000, 200)
    left = re.fullmatch(r"y+… \((\d+) more characters\)", cut)
    assert left and len(cut) <= 200 and cut.count("y") + int(left[1]) == 100_000
    assert shorten("short  text\n") == "short text"


def test_an_answer_of_the_wrong_shape_everywhere_names_a_few_places_and_counts_the_rest(
    server: ScriptedServer, make_client: Any
) -> None:
    # Ten thousand tasks, each of the wrong type: one place would do, ten thousand are too many.
    body = {"metadata": {"id": "j-1"}, "status": {"phase": "Running", "tasks": [{"x": 1}] * 10_000}}
    server.queue(json_reply(body))
    with pytest.raises(InvalidResponseError) as caught:
        make_client().get_job("j-1")
    text = str(caught.value)
    assert "status.tasks.0" in text and "more" in text and "status.tasks.9999" not in text
    assert len(text) < 1000


def test_an_error_message_of_the_service_is_cut_with_a_count(
    server: ScriptedServer, make_client: Any
) -> None:
    server.queue(Reply(500, {"error_code": "ModelArts.0001", "error_msg": "boom " * 20_000}))
    with pytest.raises(ServerError) as caught:
        make_client().get_job("j-1")
    assert "more characters)" in str(caught.value) and len(str(caught.value)) < 1000

"""The job's secret inputs (environment variables' values, ``fields.SECRET_INPUTS``) never reach an error
message, even when the service's message echoes the request: the client learns them for the job being worked
on (``Transport.hide``, called by core), and the front-end's error text hides them once more.

Driven through the dynamic provider against a scripted server on loopback that answers with what it was sent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.frontends.engine_text import error_text
from pulumi_modelarts.job.normalising import secret_values
from pulumi_modelarts.wire.api_errors import BadRequestError
from pulumi_modelarts.wire.errors import ModelArtsError

from ..httpserver import Recorded, Reply, ScriptedServer, json_reply, serving_the_provider
from ..support import minimal_job

PROJECT = "0123456789abcdef0123456789abcdef"
SECRET_KEY = "scrub-test-secret-key-VALUE"
JOB_ID = "11111111-2222-3333-4444-555555555555"
ENV_SECRET = "EnvValue-Secret-123"
TASK_SECRET = "TaskEnv-Secret-456"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    with serving_the_provider(
        monkeypatch, access_key="SCRUBAK", secret_key=SECRET_KEY, project=PROJECT
    ) as srv:
        yield srv


def echo(status: int = 400, code: str = "ModelArts.0001") -> Any:
    """A service whose error message quotes the request it was sent (for a GET: the path)."""

    def answer(request: Recorded) -> Reply:
        sent = request.body.decode("utf-8") if request.body else request.path
        return json_reply({"error_code": code, "error_msg": f"invalid request: {sent}"}, status)

    return answer


def declared(**overrides: Any) -> dict[str, Any]:
    algorithm = {
        "engine": {"image_url": "org/img:1"},
        "command": "python train.py",
        "environments": {"MYTOKEN": ENV_SECRET, "SHORT": "abc"},
    }
    fields = {"kind": "job", "metadata": {"name": "job-abc123"}, "algorithm": algorithm, "wait_for": "none"}
    return minimal_job(**{**fields, **overrides})


def quoting_the_job(_request: Recorded) -> Reply:
    """A service quoting the job's configuration in its refusal (it knows the job: no body needed)."""
    text = f"the job's environments MYTOKEN={ENV_SECRET}, OTHER={TASK_SECRET} are bad"
    return json_reply({"error_code": "ModelArts.0001", "error_msg": text}, 400)


def outputs_of(inputs: dict[str, Any]) -> dict[str, Any]:
    """Outputs as stored: the job without secrets, the declared inputs (with them), the secret output."""
    return {
        "name": "job-abc123",
        "phase": "Running",
        "algorithm": {"command": "python train.py"},
        "environments": {"MYTOKEN": ENV_SECRET},
        "declared_inputs": inputs,
    }


def assert_hidden(text: str) -> None:
    assert ENV_SECRET not in text and TASK_SECRET not in text, text
    assert SECRET_KEY not in text


def test_a_create_refused_with_its_request_echoed_hides_the_environment_values(
    server: ScriptedServer,
) -> None:
    server.handler = echo()
    with pytest.raises(BadRequestError) as caught:
        TrainingJobProvider().create(declared())
    text = str(caught.value)
    assert ENV_SECRET in server.requests[0].body.decode()  # the service did get it, and quoted it back
    assert_hidden(text)
    assert '"MYTOKEN": "***"' in text  # the rest of the message stays readable
    assert "create training job 'job-abc123'" in text and "HTTP 400" in text


def test_a_5xx_after_retries_hides_them_too(server: ScriptedServer) -> None:
    def failing(request: Recorded) -> Reply:
        refusal = quoting_the_job(request)
        return Reply(500, refusal.body, refusal.headers)

    server.handler = failing
    with pytest.raises(ModelArtsError) as caught:
        TrainingJobProvider().read(JOB_ID, outputs_of(declared()))
    assert "MYTOKEN=***," in str(caught.value) and ENV_SECRET not in str(caught.value)
    assert "HTTP 500" in str(caught.value)
    assert len(server.requests) > 1  # retried, and what is finally raised is scrubbed


def test_read_and_delete_hide_the_declared_environment_values(server: ScriptedServer) -> None:
    # On a refresh or destroy, the stored outputs' declared inputs are what the provider knows to hide.
    server.handler = quoting_the_job
    stored = outputs_of(declared())
    with pytest.raises(ModelArtsError) as read:
        TrainingJobProvider().read(JOB_ID, stored)
    with pytest.raises(ModelArtsError) as delete:
        TrainingJobProvider().delete(JOB_ID, stored)
    for caught in (read, delete):
        assert "MYTOKEN=***," in str(caught.value)
        assert ENV_SECRET not in str(caught.value) and SECRET_KEY not in str(caught.value)


def test_update_hides_old_and_new_values(server: ScriptedServer) -> None:
    server.handler = quoting_the_job
    old = outputs_of(declared())
    new = declared(metadata={"name": "job-abc123", "description": "changed"})
    new["algorithm"]["environments"]["OTHER"] = TASK_SECRET
    with pytest.raises(ModelArtsError) as caught:
        TrainingJobProvider().update(JOB_ID, old, new)
    assert_hidden(str(caught.value))
    assert "MYTOKEN=***, OTHER=***" in str(caught.value)


def test_secret_values_of_inputs_tasks_and_outputs() -> None:
    inputs = declared(tasks=[{"role": "worker", "algorithm": {"environments": {"KEY": TASK_SECRET}}}])
    assert secret_values(inputs) == {ENV_SECRET, "abc", TASK_SECRET}
    assert secret_values(outputs_of(inputs)) == {ENV_SECRET, "abc", TASK_SECRET}
    assert secret_values({"metadata": {"name": "x"}}) == set()
    assert secret_values(None) == set()


def test_a_value_also_given_in_the_open_is_not_a_secret() -> None:
    # The command is plain in the state; hiding it everywhere would only blank out the message.
    inputs = declared()
    inputs["algorithm"]["environments"]["CMD"] = "python train.py"
    assert "python train.py" not in secret_values(inputs)


def test_the_front_ends_error_text_is_a_last_net() -> None:
    # An error built elsewhere than the client, quoting the service: the inputs at hand still hide it.
    error = BadRequestError(
        400, "ModelArts.0001", json.dumps(declared()), operation="create training job 'x'"
    )
    assert ENV_SECRET in error_text(error)
    assert_hidden(error_text(error, declared()))
    assert_hidden(error_text(error, outputs_of(declared())))
    assert_hidden(error_text(RuntimeError(f"boom {ENV_SECRET}"), {}, declared()))


# -- temporary keys, security tokens, subject tokens, id tokens ---------------------------------------------

TEMP_ACCESS = "TMPACCESSKEY0000SCRB"
TEMP_SECRET = "temporary-Secret-Value-0001"
TEMP_TOKEN = "security-Token-Value-0001-" + "x" * 40
METADATA_TOKEN = "metadata-Token-Value-0001"
ID_TOKEN = "eyJ-id-Token-Content-0001"
SUBJECT_TOKEN = "subject-Token-Value-0001"
TEMPORARY = (TEMP_ACCESS, TEMP_SECRET, TEMP_TOKEN, METADATA_TOKEN, ID_TOKEN, SUBJECT_TOKEN)
CREDENTIAL = {
    "credential": {
        "access": TEMP_ACCESS,
        "secret": TEMP_SECRET,
        "securitytoken": TEMP_TOKEN,
        "expires_at": "2099-01-01T00:00:00.000000Z",
    }
}


def quoting_everything(request: Recorded) -> Reply:
    """A cloud whose every refusal quotes what it was sent: headers (keys, tokens) and body (id tokens)."""
    sent = f"{json.dumps(request.headers)} {request.body.decode('utf-8', 'replace')}"
    return json_reply({"error_code": "ModelArts.0001", "error_msg": f"refused: {sent}"}, 400)


@pytest.fixture
def cloud(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    """One scripted server as ModelArts, IAM and the metadata service; the provider reads only it."""
    from pulumi_modelarts.account import session
    from pulumi_modelarts.frontends import dynamic

    for name in list(os.environ):
        if name.startswith(("HW_", "HUAWEICLOUD_SDK_")):
            monkeypatch.delenv(name)
    session.forget_keys()
    with ScriptedServer() as srv:
        for name, value in {
            "HW_MODELARTS_ENDPOINT": srv.url,
            "HW_AUTH_URL": srv.url,
            "HW_PROJECT_ID": PROJECT,
            "HW_METADATA_ENDPOINT": srv.url,
        }.items():
            monkeypatch.setenv(name, value)
        dynamic.set_config({})
        yield srv
    session.forget_keys()


def assert_no_temporary_secret(text: str) -> None:
    for value in TEMPORARY:
        assert value not in text, (value, text)


def test_temporary_keys_quoted_back_by_modelarts_are_hidden(
    cloud: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def answer(request: Recorded) -> Reply:
        if request.path == "/meta-data/latest/api/token":
            return Reply(200, METADATA_TOKEN)
        if request.path == "/openstack/latest/securitykey":
            return json_reply(CREDENTIAL)
        return quoting_everything(request)

    cloud.handler = answer
    monkeypatch.setenv("HW_USE_INSTANCE_METADATA", "true")
    with pytest.raises(ModelArtsError) as caught:
        TrainingJobProvider().read(JOB_ID, outputs_of(declared()))
    text = str(caught.value)
    assert TEMP_TOKEN in cloud.requests[-1].headers["x-security-token"]  # sent, and quoted back
    assert "x-security-token" in text and "***" in text
    assert_no_temporary_secret(text)


def test_a_metadata_service_quoting_its_token_is_hidden(
    cloud: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def answer(request: Recorded) -> Reply:
        if request.path == "/meta-data/latest/api/token":
            return Reply(200, METADATA_TOKEN)
        return Reply(500, f"internal error for token {request.headers.get('x-metadata-token')}")

    cloud.handler = answer
    monkeypatch.setenv("HW_USE_INSTANCE_METADATA", "true")
    with pytest.raises(ModelArtsError) as caught:
        TrainingJobProvider().read(JOB_ID, outputs_of(declared()))
    assert "internal error for token ***" in str(caught.value)
    assert_no_temporary_secret(str(caught.value))


@pytest.mark.parametrize("refused", ["id-token login", "securitytokens"])
def test_id_tokens_and_subject_tokens_quoted_back_by_iam_are_hidden(
    cloud: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, refused: str
) -> None:
    token_file = tmp_path / "id_token"
    token_file.write_text(ID_TOKEN + "\n")
    monkeypatch.setenv("HUAWEICLOUD_SDK_IDP_ID", "idp")
    monkeypatch.setenv("HUAWEICLOUD_SDK_ID_TOKEN_FILE", str(token_file))

    def answer(request: Recorded) -> Reply:
        if request.path == "/v3.0/OS-AUTH/id-token/tokens" and refused != "id-token login":
            return Reply(201, {"token": {}}, {"X-Subject-Token": SUBJECT_TOKEN})
        return quoting_everything(request)

    cloud.handler = answer
    with pytest.raises(ModelArtsError) as caught:
        TrainingJobProvider().read(JOB_ID, outputs_of(declared()))
    text = str(caught.value)
    assert "refused: " in text and "***" in text  # the quote is there, blanked
    assert_no_temporary_secret(text)
    assert_no_temporary_secret(error_text(caught.value))

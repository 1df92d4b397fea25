"""The emulator's IAM and instance metadata service, checked with httpx and the official SDK as the oracle.

The official SDK finds the project id (``BasicCredentials`` with a region and no project id), assumes nothing
about our shapes: its ``FederalAccessor`` logs in with an id token and trades the unscoped token for keys, its
``MetadataAccessor`` fetches keys from the metadata service. Every request stays on loopback: a guard
(tests/loopback.py) refuses any other address before a socket connects or a name is looked up, the metadata
endpoint (a class constant, ``http://169.254.169.254``) is overridden and asserted so before any call, and
IAM's endpoint is always given explicitly.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorAuth, EmulatorProcess

from ..loopback import loopback_problem
from ..official_sdk import regional_sdk_client, sdk_module
from ..support import PARTNER_PROJECT, poll

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.auth.credentials import BasicCredentials  # noqa: E402
from huaweicloudsdkcore.auth.internal import FederalAccessor, MetadataAccessor  # noqa: E402
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException, SdkException  # noqa: E402
from huaweicloudsdkmodelarts.v1 import model as m  # noqa: E402

pytestmark = pytest.mark.usefixtures("loopback_only")

SEARCH = {"limit": 10, "offset": 0}


@pytest.fixture
def metadata_at(monkeypatch: pytest.MonkeyPatch) -> Callable[[EmulatorProcess], MetadataAccessor]:
    """A MetadataAccessor whose endpoint is the emulator (asserted before it is handed out)."""

    def accessor(emu: EmulatorProcess) -> MetadataAccessor:
        monkeypatch.setattr(MetadataAccessor, "_METADATA_ENDPOINT", emu.url)
        made = MetadataAccessor()
        assert made._METADATA_ENDPOINT == emu.url == MetadataAccessor._METADATA_ENDPOINT
        assert "169.254" not in made._METADATA_ENDPOINT
        return made

    return accessor


def test_the_guard_refuses_everything_but_loopback() -> None:
    assert loopback_problem("127.0.0.1") is None and loopback_problem("::1") is None
    assert loopback_problem("localhost") is None
    for host in (
        "169.254.169.254",
        "iam.myhuaweicloud.com",
        "10.0.0.1",
        "modelarts.cn-north-4.myhuaweicloud.com",
    ):
        assert loopback_problem(host)
    with pytest.raises(OSError, match="loopback only"):
        socket.getaddrinfo("iam.myhuaweicloud.com", 443)


def search(client: Any) -> Any:
    return client.list_training_jobs(m.ListTrainingJobsRequest(body=m.JobSearches(**SEARCH)))


def iam(emu: EmulatorProcess, auth: httpx.Auth | None = None) -> httpx.Client:
    return httpx.Client(base_url=emu.url, auth=auth, timeout=10)


def assume_role(emu: EmulatorProcess, **role: Any) -> httpx.Response:
    body = {"auth": {"identity": {"methods": ["assume_role"], "assume_role": role}}}
    with iam(emu, emu.auth()) as client:
        return client.post("/v3.0/OS-CREDENTIAL/securitytokens", json=body)


def partner_keys(emu: EmulatorProcess) -> dict[str, str]:
    answer = assume_role(
        emu, agency_name="modelarts_agency", domain_name="emulator_partner", duration_seconds=900
    )
    assert answer.status_code == 201, answer.text
    return dict(answer.json()["credential"])


# -- projects ------------------------------------------------------------------------------------------------


def test_the_official_sdk_finds_the_project_and_a_sub_project(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(sub_project=["ml"])
    client = regional_sdk_client(emu, BasicCredentials(emu.access_key, emu.secret_key))
    assert client._credentials.project_id == emu.project_id
    assert search(client).total == 0  # the project it found is the one ModelArts accepts
    sub = regional_sdk_client(
        emu, BasicCredentials(emu.access_key, emu.secret_key), region=f"{emu.region}_ml"
    )
    assert sub._credentials.project_id not in (None, emu.project_id)
    assert search(sub).total == 0  # a sub-project of the account is a project of ModelArts too
    assert emu.credentials()["calls"] == {"list_projects": 2}


def test_project_listing_shape_filters_and_refusals(emulator_factory: Callable[..., EmulatorProcess]) -> None:
    emu = emulator_factory(sub_project=["cn-north-4_ml"])
    with iam(emu, emu.auth()) as client:
        answer = client.get("/v3/projects", params={"name": "cn-north-4"})
        everything = client.get("/v3/projects").json()["projects"]
        none = client.get("/v3/projects", params={"name": "cn-south-1"}).json()
    assert answer.status_code == 200 and answer.headers["X-IAM-Trace-Id"]
    assert answer.json() == {
        "projects": [
            {
                "id": emu.project_id,
                "name": "cn-north-4",
                "domain_id": emu.domain_id,
                "parent_id": emu.domain_id,
                "is_domain": False,
                "enabled": True,
                "description": "",
                "links": {"self": f"{emu.url}/v3/projects/{emu.project_id}"},
            }
        ],
        "links": {"self": f"{emu.url}/v3/projects?name=cn-north-4", "previous": None, "next": None},
    }
    assert [(p["name"], p["parent_id"]) for p in everything] == [
        ("cn-north-4", emu.domain_id),
        ("cn-north-4_ml", emu.project_id),
    ]
    assert none["projects"] == []
    unsigned = httpx.get(f"{emu.url}/v3/projects", timeout=10)
    assert unsigned.status_code == 401 and unsigned.json()["error_code"] == "APIG.0301"


def test_without_the_permission_listing_is_refused_but_auth_projects_works(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(iam_list_projects_forbidden=True)
    with iam(emu, emu.auth()) as client:
        refused = client.get("/v3/projects", params={"name": emu.region})
        usable = client.get("/v3/auth/projects")
    assert refused.status_code == 403
    assert (
        refused.json()["error"]["code"] == 403
        and "identity:list_projects" in refused.json()["error"]["message"]
    )
    assert usable.status_code == 200
    assert [p["id"] for p in usable.json()["projects"]] == [emu.project_id]
    with pytest.raises(SdkException, match="Failed to get project id of region 'cn-north-4'"):
        regional_sdk_client(emu, BasicCredentials(emu.access_key, emu.secret_key))


# -- assume_role ---------------------------------------------------------------------------------------------


def test_assume_role_gives_keys_of_the_other_account(emulator: EmulatorProcess) -> None:
    answer = assume_role(emulator, agency_name="modelarts_agency", domain_name="emulator_partner")
    assert answer.status_code == 201 and answer.headers["X-IAM-Trace-Id"]
    credential = answer.json()["credential"]
    assert sorted(credential) == ["access", "expires_at", "secret", "securitytoken"]
    assert len(credential["access"]) == 20 and credential["access"].isupper()
    expires = datetime.strptime(credential["expires_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=timezone.utc
    )
    assert 880 < (expires - datetime.now(timezone.utc)).total_seconds() <= 900  # IAM's default duration
    # The official SDK, signing with the temporary keys (X-Security-Token), finds the other account's project.
    keys = BasicCredentials(credential["access"], credential["secret"]).with_security_token(
        credential["securitytoken"]
    )
    client = regional_sdk_client(emulator, keys)
    assert client._credentials.project_id == PARTNER_PROJECT
    assert search(client).total == 0
    with httpx.Client(auth=emulator.temporary_auth(credential), timeout=10) as http:
        home = http.post(emulator.api_url("/training-job-searches"), json=SEARCH)
    assert home.status_code == 403  # the agency's keys do not see the caller's own project
    assert emulator.credentials()["issued"] == {"assume_role": 1}


def test_assume_role_refusals(emulator: EmulatorProcess) -> None:
    unknown = assume_role(emulator, agency_name="other_agency", domain_name="emulator_partner")
    assert unknown.status_code == 404
    assert unknown.json() == {
        "error": {"code": 404, "title": "Not Found", "message": "Could not find agency: other_agency."}
    }
    wrong_domain = assume_role(emulator, agency_name="modelarts_agency", domain_id="0" * 32)
    assert wrong_domain.status_code == 404
    no_domain = assume_role(emulator, agency_name="modelarts_agency")
    assert no_domain.status_code == 400 and "domain_name or domain_id" in no_domain.json()["error"]["message"]
    too_short = assume_role(
        emulator, agency_name="modelarts_agency", domain_name="emulator_partner", duration_seconds=60
    )
    assert too_short.status_code == 400
    body = {"auth": {"identity": {"methods": ["assume_role"], "assume_role": {"agency_name": "x"}}}}
    unsigned = httpx.post(f"{emulator.url}/v3.0/OS-CREDENTIAL/securitytokens", json=body, timeout=10)
    assert unsigned.status_code == 401 and unsigned.json()["error_code"] == "APIG.0301"
    assert emulator.credentials()["issued"] == {}


# -- id-token login (OIDC) -----------------------------------------------------------------------------------


def test_the_official_sdk_logs_in_with_an_id_token(emulator: EmulatorProcess, tmp_path: Path) -> None:
    token_file = tmp_path / "id_token"
    token_file.write_text("emulator-id-token\n")
    credentials = BasicCredentials().with_idp_id("emulator_idp").with_id_token_file(str(token_file))
    client = regional_sdk_client(emulator, credentials)  # FederalAccessor: login, then the token method
    assert client._credentials.project_id == emulator.project_id
    assert client._credentials.security_token.startswith("emulator-sts-")
    assert search(client).total == 0
    ledger = emulator.credentials()
    assert ledger["issued"] == {"id_token": 1, "token": 1}
    assert ledger["calls"] == {"id_token_login": 1, "securitytokens": 1, "list_projects": 1}


def test_federal_accessor_and_login_refusals(emulator: EmulatorProcess, tmp_path: Path) -> None:
    token_file = tmp_path / "id_token"
    token_file.write_text("emulator-id-token")
    http_client = regional_sdk_client(
        emulator, BasicCredentials(emulator.access_key, emulator.secret_key)
    ).get_http_client()
    credential = FederalAccessor().get_credential(
        iam_endpoint=emulator.url,
        http_client=http_client,
        idp_id="emulator_idp",
        id_token_file=str(token_file),
    )
    assert credential.access and credential.secret and credential.security_token
    assert credential.expire_at - time.time() > 6 * 3600 - 120  # the SDK asks for 6 hours
    login = {"auth": {"id_token": {"id": "emulator-id-token"}}}
    with iam(emulator) as client:
        wrong_idp = client.post("/v3.0/OS-AUTH/id-token/tokens", json=login, headers={"X-Idp-Id": "nope"})
        bad = {"auth": {"id_token": {"id": "forged"}}}
        wrong_token = client.post(
            "/v3.0/OS-AUTH/id-token/tokens", json=bad, headers={"X-Idp-Id": "emulator_idp"}
        )
        ok = client.post("/v3.0/OS-AUTH/id-token/tokens", json=login, headers={"X-Idp-Id": "emulator_idp"})
        subject = ok.headers["X-Subject-Token"]
        # IAM's page spells the duration "duration-seconds"; X-Auth-Token may carry the token instead.
        trade = {"auth": {"identity": {"methods": ["token"], "token": {"duration-seconds": 900}}}}
        traded = client.post(
            "/v3.0/OS-CREDENTIAL/securitytokens", json=trade, headers={"X-Auth-Token": subject}
        )
        forged = {"auth": {"identity": {"methods": ["token"], "token": {"id": "forged"}}}}
        refused = client.post("/v3.0/OS-CREDENTIAL/securitytokens", json=forged)
        usable = client.get("/v3/auth/projects", headers={"X-Auth-Token": subject})
    assert wrong_idp.status_code == 404 and wrong_token.status_code == 401
    assert ok.status_code == 201 and ok.json()["token"]["methods"] == ["mapped"]
    assert ok.json()["token"]["user"]["domain"]["id"] == emulator.domain_id
    assert traded.status_code == 201 and set(traded.json()["credential"]) >= {"access", "securitytoken"}
    assert refused.status_code == 401 and refused.json()["error_code"] == "APIG.0301"
    assert [p["id"] for p in usable.json()["projects"]] == [emulator.project_id]


# -- metadata ------------------------------------------------------------------------------------------------


def test_the_official_metadata_accessor_fetches_keys(
    emulator: EmulatorProcess, metadata_at: Callable[[EmulatorProcess], MetadataAccessor]
) -> None:
    credential = metadata_at(emulator).get_credential()
    assert credential.access and credential.secret and credential.security_token
    assert credential.expire_at - time.time() > 23 * 3600
    ledger = emulator.credentials()
    assert ledger["calls"] == {"metadata_token": 1, "securitykey": 1} and ledger["issued"] == {"metadata": 1}
    keys = {
        "access": credential.access,
        "secret": credential.secret,
        "securitytoken": credential.security_token,
    }
    with httpx.Client(auth=emulator.temporary_auth(keys), timeout=10) as http:
        assert http.post(emulator.api_url("/training-job-searches"), json=SEARCH).status_code == 200
    # The whole SDK path: no keys at all, so BasicCredentials takes them from the metadata service.
    client = regional_sdk_client(emulator, BasicCredentials())
    assert client._credentials.project_id == emulator.project_id
    assert search(client).total == 0


def test_metadata_answers_without_a_token_and_its_ttl(emulator: EmulatorProcess) -> None:
    with iam(emulator) as client:
        untokened = client.get("/openstack/latest/securitykey")
        no_ttl = client.put("/meta-data/latest/api/token")
        token = client.put("/meta-data/latest/api/token", headers={"X-Metadata-Token-Ttl-Seconds": "60"})
        first = client.get("/openstack/latest/securitykey", headers={"X-Metadata-Token": token.text})
        second = client.get("/openstack/latest/securitykey", headers={"X-Metadata-Token": token.text})
    assert untokened.status_code == 401 and "Cloud Service Agency" not in untokened.text
    assert no_ttl.status_code == 400
    assert token.status_code == 200 and token.headers["Content-Type"].startswith("text/plain")
    assert first.status_code == 200 and first.json() == second.json()  # the same key until half its life


def test_an_old_metadata_service_without_tokens(
    emulator_factory: Callable[..., EmulatorProcess],
    metadata_at: Callable[[EmulatorProcess], MetadataAccessor],
) -> None:
    emu = emulator_factory(metadata_tokens=False)
    assert httpx.put(f"{emu.url}/meta-data/latest/api/token", timeout=10).status_code == 404
    credential = metadata_at(emu).get_credential()  # the SDK carries on without a token
    assert credential.access
    assert emu.credentials()["calls"] == {"metadata_token": 2, "securitykey": 1}


def test_no_agency_attached(
    emulator_factory: Callable[..., EmulatorProcess],
    metadata_at: Callable[[EmulatorProcess], MetadataAccessor],
) -> None:
    emu = emulator_factory(metadata_agency=False)
    with pytest.raises(ClientRequestException) as caught:
        metadata_at(emu).get_credential()
    assert caught.value.status_code == 401
    assert "Please configure Cloud Service Agency first" in caught.value.error_msg
    # That 401 is final: the SDK fetched no second token.
    assert emu.credentials()["calls"] == {"metadata_token": 1, "securitykey": 1}


# -- expiry --------------------------------------------------------------------------------------------------


def test_expired_keys_are_refused_with_apig_0307_and_fresh_ones_work(
    emulator_factory: Callable[..., EmulatorProcess],
) -> None:
    emu = emulator_factory(temporary_key_seconds=1)
    old = partner_keys(emu)
    project_search = f"{emu.url}/v2/{PARTNER_PROJECT}/training-job-searches"
    with httpx.Client(auth=emu.temporary_auth(old), timeout=10) as http:
        assert http.post(project_search, json=SEARCH).status_code == 200
        # Good for a second: answered until then, refused from then on.
        expired = poll(
            lambda: http.post(project_search, json=SEARCH),
            lambda answer: answer.status_code != 200,
            timeout=5,
            what="the key's expiry",
        )
        iam_refusal = http.get(f"{emu.url}/v3/auth/projects")
    assert expired.status_code == 401
    assert expired.json() == {"error_code": "APIG.0307", "error_msg": "The token must be updated."}
    assert iam_refusal.status_code == 401 and iam_refusal.json()["error_code"] == "APIG.0307"
    fresh = partner_keys(emu)
    with httpx.Client(auth=emu.temporary_auth(fresh), timeout=10) as http:
        assert http.post(project_search, json=SEARCH).status_code == 200
    ledger = emu.credentials()
    assert ledger["issued"] == {"assume_role": 2} and ledger["refused"] == {"expired_key": 2}
    assert [k["expired"] for k in ledger["keys"]] == [True, False]
    # The base keys are not temporary: they keep working.
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        assert http.post(emu.api_url("/training-job-searches"), json=SEARCH).status_code == 200


def test_expiring_on_demand_and_metadata_renewal(emulator: EmulatorProcess) -> None:
    with iam(emulator) as client:
        token = client.put("/meta-data/latest/api/token", headers={"X-Metadata-Token-Ttl-Seconds": "60"}).text
        first = client.get("/openstack/latest/securitykey", headers={"X-Metadata-Token": token}).json()
        assert emulator.expire_temporary_keys() == 1
        renewed = client.get("/openstack/latest/securitykey", headers={"X-Metadata-Token": token}).json()
    assert renewed["credential"]["access"] != first["credential"]["access"]
    url = emulator.api_url("/training-job-searches")
    old = httpx.post(url, json=SEARCH, auth=emulator.temporary_auth(first["credential"]), timeout=10)
    assert old.status_code == 401 and old.json()["error_code"] == "APIG.0307"
    new = httpx.post(url, json=SEARCH, auth=emulator.temporary_auth(renewed["credential"]), timeout=10)
    assert new.status_code == 200
    assert emulator.credentials()["issued"] == {"metadata": 2}


class TokenUnsignedAuth(EmulatorAuth):
    """Sends X-Security-Token without signing it."""

    SIGNED = EmulatorAuth.SIGNED - {"x-security-token"}


def test_a_temporary_key_needs_its_own_signed_security_token(emulator: EmulatorProcess) -> None:
    keys = partner_keys(emulator)
    url = f"{emulator.url}/v2/{PARTNER_PROJECT}/training-job-searches"
    other = partner_keys(emulator)
    cases = {
        "X-Security-Token is required": EmulatorAuth(keys["access"], keys["secret"]),
        "must be a signed header": TokenUnsignedAuth(keys["access"], keys["secret"], keys["securitytoken"]),
        "does not belong": emulator.temporary_auth({**keys, "securitytoken": other["securitytoken"]}),
        "does not match": emulator.temporary_auth({**keys, "secret": other["secret"]}),
    }
    for message, auth in cases.items():
        answer = httpx.post(url, json=SEARCH, auth=auth, timeout=10)
        assert answer.status_code == 401 and answer.json()["error_code"] == "APIG.0301", message
        assert message in answer.json()["error_msg"]
    assert json.loads(httpx.get(f"{emulator.url}/_emulator/credentials", timeout=10).text)["refused"] == {}

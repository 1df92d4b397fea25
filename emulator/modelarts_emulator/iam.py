"""IAM on loopback, on the same server as the ModelArts API (its paths start with /v3 and /v3.0).

* ``GET /v3/projects[?name=…]`` — the caller's account's projects (keystone's filters), signed; 403 when
  ``list_projects_forbidden`` (users without the permission);
* ``GET /v3/auth/projects`` — the projects the caller may use, which needs no permission;
* ``POST /v3.0/OS-CREDENTIAL/securitytokens`` — ``assume_role`` (signed; the configured agency of the second
  account) or ``token`` (an id-token login's unscoped token, in the body or ``X-Auth-Token``) → 201
  ``{"credential": {access, secret, securitytoken, expires_at}}``;
* ``POST /v3.0/OS-AUTH/id-token/tokens`` — ``X-Idp-Id`` and ``{"auth": {"id_token": {"id": …}}}`` → 201, the
  unscoped token in ``X-Subject-Token``.

IAM's own refusals use keystone's shape ``{"error": {"code", "title", "message"}}`` (the emulator's reading;
no page shows one); authentication refusals are the gateway's, as for ModelArts. Every answer carries
``X-IAM-Trace-Id``, which the official SDK quotes in its errors.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime, timezone
from typing import Any

from aiohttp import web

from .access import Access, Caller, signed_request
from .accounts import Directory, matching, projects_shape
from .config import AccountSettings
from .temporary_keys import TemporaryKeys, expires_at_text

# IAM's range for a security token's duration_seconds (15 minutes to 24 hours, default 15 minutes).
MIN_DURATION = 900
MAX_DURATION = 86400
DEFAULT_DURATION = 900
TOKEN_SECONDS = 86400  # an id-token login's unscoped token
_TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}


class IamError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _trace_headers() -> dict[str, str]:
    return {"X-IAM-Trace-Id": uuid.uuid4().hex}


def iam_error(status: int, message: str) -> web.Response:
    body = {"error": {"code": status, "title": _TITLES.get(status, "Error"), "message": message}}
    return web.json_response(body, status=status, headers=_trace_headers())


def _field(value: Any, path: str, kind: type, required: bool = True) -> Any:
    if value is None and not required:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise IamError(400, f"Invalid parameter: {path} must be {'an integer' if kind is int else 'given'}.")
    return value


def _json(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        raise IamError(400, "The request body is not valid JSON.") from None
    return _field(body, "body", dict)  # type: ignore[no-any-return]


def _duration(value: Any, path: str) -> int:
    seconds = _field(value, path, int, required=False)
    if seconds is None:
        return DEFAULT_DURATION
    if not MIN_DURATION <= seconds <= MAX_DURATION:
        raise IamError(400, f"Invalid parameter: {path} must be between {MIN_DURATION} and {MAX_DURATION}.")
    return int(seconds)


class IamRoutes:
    def __init__(
        self, settings: AccountSettings, directory: Directory, access: Access, keys: TemporaryKeys
    ) -> None:
        self._settings = settings
        self._directory = directory
        self._access = access
        self._keys = keys

    def register(self, router: web.UrlDispatcher) -> None:
        router.add_get("/v3/projects", self._guard("list_projects", self._list_projects))
        router.add_get("/v3/auth/projects", self._guard("auth_projects", self._auth_projects))
        router.add_post("/v3.0/OS-CREDENTIAL/securitytokens", self._guard("securitytokens", self._tokens))
        router.add_post("/v3.0/OS-AUTH/id-token/tokens", self._guard("id_token_login", self._login))

    def _guard(self, operation: str, handler: Any) -> Any:
        """Counts the call and turns an IamError into IAM's answer (a gateway refusal passes through)."""

        async def guarded(request: web.Request) -> web.StreamResponse:
            self._keys.called(operation)
            try:
                response: web.StreamResponse = await handler(request)
            except IamError as exc:
                return iam_error(exc.status, exc.message)
            return response

        return guarded

    async def _caller(self, request: web.Request) -> Caller:
        body = await request.read()
        now = datetime.now(timezone.utc)
        return self._access.authenticate(signed_request(request, body), now, subject_tokens=True)

    async def _list_projects(self, request: web.Request) -> web.StreamResponse:
        caller = await self._caller(request)
        if self._settings.list_projects_forbidden:
            message = "You are not authorized to perform the requested action: identity:list_projects."
            raise IamError(403, message)
        projects = matching(self._directory.account(caller.domain_id).projects, dict(request.query))
        return self._projects(request, projects)

    async def _auth_projects(self, request: web.Request) -> web.StreamResponse:
        caller = await self._caller(request)
        return self._projects(request, list(self._directory.account(caller.domain_id).projects))

    def _projects(self, request: web.Request, projects: list[Any]) -> web.Response:
        base = f"{request.scheme}://{request.host}"
        shape = projects_shape(projects, base, f"{base}{request.rel_url}")
        return web.json_response(shape, headers=_trace_headers())

    async def _tokens(self, request: web.Request) -> web.StreamResponse:
        auth = _field(_json(await request.read()).get("auth"), "auth", dict)
        identity = _field(auth.get("identity"), "auth.identity", dict)
        methods = _field(identity.get("methods"), "auth.identity.methods", list)
        if methods == ["assume_role"]:
            caller = await self._caller(request)
            role = _field(identity.get("assume_role"), "auth.identity.assume_role", dict)
            domain_id, duration = self._assumed(caller, role)
        elif methods == ["token"]:
            token = _field(identity.get("token", {}), "auth.identity.token", dict)
            # X-Auth-Token wins over the body's token.id (IAM's page); unsigned: the token is the proof.
            value = request.headers.get("X-Auth-Token")
            value = value or _field(token.get("id"), "auth.identity.token.id", str)
            now = datetime.now(timezone.utc)
            domain_id = self._access.token_caller(value, now, subject_tokens=True).domain_id
            # The SDK sends duration_seconds; IAM's page spells it duration-seconds. Both are taken.
            seconds = token.get("duration_seconds", token.get("duration-seconds"))
            duration = _duration(seconds, "auth.identity.token.duration_seconds")
        else:
            message = 'Invalid parameter: auth.identity.methods must be ["assume_role"] or ["token"].'
            raise IamError(400, message)
        lifetime = self._settings.temporary_key_seconds or duration
        key = self._keys.issue(methods[0], domain_id, lifetime, time.time())
        return web.json_response({"credential": key.credential()}, status=201, headers=_trace_headers())

    def _assumed(self, caller: Caller, role: dict[str, Any]) -> tuple[str, int]:
        """The account whose agency is assumed, and the duration asked; refused as IAM would."""
        name = _field(role.get("agency_name"), "assume_role.agency_name", str)
        domain_name = _field(role.get("domain_name"), "assume_role.domain_name", str, required=False)
        domain_id = _field(role.get("domain_id"), "assume_role.domain_id", str, required=False)
        if domain_name is None and domain_id is None:
            raise IamError(400, "Invalid parameter: assume_role needs domain_name or domain_id.")
        duration = _duration(role.get("duration_seconds"), "assume_role.duration_seconds")
        s = self._settings
        if (
            name != s.agency_name
            or domain_name not in (None, s.agency_domain_name)
            or domain_id not in (None, s.agency_domain_id)
        ):
            raise IamError(404, f"Could not find agency: {name}.")
        if caller.domain_id != self._directory.home.domain_id:
            raise IamError(403, "The agency is not delegated to the caller's account.")
        return s.agency_domain_id, duration

    async def _login(self, request: web.Request) -> web.StreamResponse:
        idp = request.headers.get("X-Idp-Id")
        if idp != self._settings.idp_id:
            raise IamError(404, f"Could not find identity provider: {idp}.")
        auth = _field(_json(await request.read()).get("auth"), "auth", dict)
        id_token = _field(auth.get("id_token"), "auth.id_token", dict)
        if _field(id_token.get("id"), "auth.id_token.id", str) != self._settings.id_token:
            raise IamError(401, "The id_token is invalid.")
        now = time.time()
        home = self._directory.home
        lifetime = self._settings.temporary_key_seconds or TOKEN_SECONDS
        token = self._keys.issue_token(home.domain_id, lifetime, now)
        user = {
            "domain": {"id": home.domain_id, "name": home.domain_name},
            "id": uuid.uuid5(uuid.NAMESPACE_URL, f"{idp}/federated").hex,
            "name": "FederationUser",
            "OS-FEDERATION": {"identity_provider": {"id": idp}, "protocol": {"id": "oidc"}, "groups": []},
        }
        body = {
            "token": {
                "expires_at": expires_at_text(token.expires_at),
                "issued_at": expires_at_text(now),
                "methods": ["mapped"],
                "user": user,
            }
        }
        headers = {**_trace_headers(), "X-Subject-Token": token.value}
        return web.json_response(body, status=201, headers=headers)

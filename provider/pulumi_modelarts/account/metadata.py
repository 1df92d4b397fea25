"""Temporary keys from the instance metadata service of an ECS or CCE node with an agency attached.

As the official SDK's ``MetadataAccessor``: ``PUT {metadata}/meta-data/latest/api/token`` with
``X-Metadata-Token-Ttl-Seconds`` (an answer of 404, 405 or 503 means a service without tokens: carry on
without one), then ``GET {metadata}/openstack/latest/securitykey`` with ``X-Metadata-Token``. A 401 saying
"Please configure Cloud Service Agency first" means no agency is attached: an error saying so. Any other 401
(the token expired or was revoked): a new token, once. The metadata token is kept and reused while valid.

Only used when asked for (``useInstanceMetadata``), so a laptop never waits on a link-local address; the
endpoint is never reached through a proxy (it is the instance's own). Never sent anywhere but the configured
endpoint. Its answers are read by the one careful reader (``wire.reading``: bounded, strict UTF-8, JSON of
bounded depth); what cannot be read or sent is an error naming the service and the call, never a value.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable

import httpx

from ..wire.errors import redact, shorten
from ..wire.reading import Received, TooLarge, receive
from ..wire.sendable import header_value_problem
from ..wire.transport import USER_AGENT
from .errors import AccountError
from .iam import request_id
from .keys import TemporaryKeys, keys_from_answer

__all__ = ["NO_AGENCY", "MetadataKeys"]

TOKEN_PATH = "/meta-data/latest/api/token"
SECURITY_KEY_PATH = "/openstack/latest/securitykey"
TOKEN_TTL_SECONDS = 6 * 60 * 60  # the official SDK's
TIMEOUT_SECONDS = 3.0  # connect and read, as the official SDK: the service is on the instance itself
NO_AGENCY = "Please configure Cloud Service Agency first"
NO_TOKENS = (404, 405, 503)  # a metadata service that has no tokens
SETTINGS = "useInstanceMetadata / HW_USE_INSTANCE_METADATA, HW_METADATA_ENDPOINT"


class MetadataKeys:
    """The metadata service at ``endpoint`` (``http://169.254.169.254`` on a real instance)."""

    def __init__(
        self,
        endpoint: str,
        *,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self._transport = transport
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._token_until = 0.0
        self._handled: collections.deque[str] = collections.deque(maxlen=8)

    def __repr__(self) -> str:
        return f"MetadataKeys({self.endpoint!r})"

    @property
    def name(self) -> str:
        return f"the instance metadata service at {self.endpoint}"

    def secrets(self) -> tuple[str, ...]:
        return tuple(self._handled)

    def fetch(self) -> TemporaryKeys:
        with (
            self._lock,
            httpx.Client(
                base_url=self.endpoint,
                timeout=TIMEOUT_SECONDS,
                transport=self._transport,
                trust_env=False,
                follow_redirects=False,
                headers={"User-Agent": USER_AGENT},
            ) as http,
        ):
            if self._clock() >= self._token_until:
                self._new_token(http)
            answer = self._security_key(http)
            if answer.status_code == 401 and NO_AGENCY not in answer.text:
                self._new_token(http)
                answer = self._security_key(http)
            if answer.status_code == 401 and NO_AGENCY in answer.text:
                raise AccountError(
                    f"{self.name} has no keys for this instance: no agency is attached to it. Attach an "
                    "agency (IAM → Agencies, for the ECS service) to the ECS instance, or to the CCE node "
                    "pool, with the ModelArts permissions the jobs need; or turn useInstanceMetadata off and "
                    "give keys another way"
                )
            if answer.status_code != 200:
                raise self._refusal(answer, "fetching the instance's temporary keys")
            if answer.problem is not None:
                raise AccountError(
                    f"fetching the instance's temporary keys failed: {self.name} answered HTTP 200, a body "
                    f"that is {answer.problem}"
                )
            return keys_from_answer(answer.payload, self.name)

    def _send(self, http: httpx.Client, method: str, path: str, headers: dict[str, str]) -> Received:
        try:
            return receive(http, http.build_request(method, path, headers=headers))
        except TooLarge as exc:
            raise AccountError(f"{method} {path} failed: {self.name} answered a body {exc.problem}") from None
        except httpx.HTTPError as exc:
            timed_out = isinstance(exc, httpx.TimeoutException)
            what = "timed out" if timed_out else f"failed ({type(exc).__name__})"
            raise AccountError(
                f"{self.name} did not answer: {method} {path} {what}. It exists only on an ECS instance or "
                f"CCE node; elsewhere give keys another way, or check {SETTINGS}"
            ) from None

    def _new_token(self, http: httpx.Client) -> None:
        now = self._clock()
        answer = self._send(http, "PUT", TOKEN_PATH, {"X-Metadata-Token-Ttl-Seconds": str(TOKEN_TTL_SECONDS)})
        if answer.status_code == 200 and answer.text.strip():
            if header_value_problem(answer.text.strip()) is not None:
                raise AccountError(
                    f"asking for a metadata token failed: {self.name} answered a token that cannot be sent "
                    "back in a header (only visible ASCII, no spaces)"
                )
            self._token = answer.text.strip()
            self._handled.append(self._token)
            # Renewed a minute early: never sent just as it expires.
            self._token_until = now + TOKEN_TTL_SECONDS - 60
        elif answer.status_code in NO_TOKENS:
            self._token = None
            # Asked again after a day, as the official SDK does: the service may have gained tokens.
            self._token_until = now + 24 * 60 * 60
        else:
            raise self._refusal(answer, "asking for a metadata token")

    def _security_key(self, http: httpx.Client) -> Received:
        headers = {"X-Metadata-Token": self._token} if self._token else {}
        return self._send(http, "GET", SECURITY_KEY_PATH, headers)

    def _refusal(self, answer: Received, what: str) -> AccountError:
        said = shorten(redact(answer.text.strip(), self.secrets()))
        rid = request_id(answer)
        return AccountError(
            f"{what} failed: {self.name} answered HTTP {answer.status_code}"
            f"{f': {said}' if said else ''}{f' [request id {rid}]' if rid else ''}"
        )

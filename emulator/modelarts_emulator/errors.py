"""The answers the emulated service gives instead of a result, and every error code it uses.

Codes come from the API pages, the official SDK and Huawei's ModelArts error-code pages; the few the emulator
had to choose itself (the pages name none for the case) are marked "emulator's choice".
"""

from __future__ import annotations

from collections.abc import Sequence

# API gateway
AUTH_FAILED = "APIG.0301"
TOKEN_EXPIRED = "APIG.0307"  # a temporary key (its security token) past its expiry
THROTTLED = "APIG.0308"
NO_SUCH_API = "APIG.0101"
BACKEND_UNAVAILABLE = "APIG.0201"  # emulator's choice for an injected 503
# ModelArts
INTERNAL = "ModelArts.0001"  # emulator's choice for a 500
WRONG_PROJECT = "ModelArts.0105"  # emulator's choice
DUPLICATE_NAME = "ModelArts.2751"
TAGS_REFUSED = "ModelArts.0106"  # emulator's choice: tagging not permitted (the emulator/refuse-tags hook)
POLICY_DENIED = "ModelArts.0203"  # emulator's choice: no IAM policy allows the action (--catalogue closed)
INVALID = "ModelArts.2763"  # emulator's choice for a malformed request
NOT_FOUND = "ModelArts.2775"
UNSUPPORTED_FILTER = "ModelArts.2789"
UNSUPPORTED_SORT = "ModelArts.2790"
NOT_TERMINABLE = "ModelArts.2796"
TOO_MANY_REQUESTS = "ModelArts.2799"
UNSUPPORTED_CONDITION_KEY = "ModelArts.2807"
UNSUPPORTED_CONDITION_OPERATOR = "ModelArts.2808"
UNSUPPORTED_CONDITION_VALUE = "ModelArts.2809"
UNSUPPORTED_ACTION = "ModelArts.2812"
LOG_NOT_GENERATED = "ModelArts.2818"
LOG_CLEARED = "ModelArts.2819"
STATUS_CHANGED = "ModelArts.2878"


class ServiceError(Exception):
    """An answer the service gives instead of a result (status, error_code, error_msg, error_solution)."""

    def __init__(self, status: int, code: str, message: str, solution: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.solution = solution


def invalid(problems: Sequence[tuple[str, str]]) -> ServiceError:
    """400 for a request whose fields are wrong; the message names every field (the first one first)."""
    field, message = problems[0]
    text = f"Invalid request: {field} {message}."
    if len(problems) > 1:
        text += " Also: " + "; ".join(f"{f} {m}" for f, m in problems[1:]) + "."
    return ServiceError(400, INVALID, text, f"Correct the field {field} in the request and send it again.")


def not_found(job_id: str) -> ServiceError:
    return ServiceError(
        400,
        NOT_FOUND,
        f"Training job {job_id} does not exist.",
        "Check whether the training job ID is correct and the job was not deleted.",
    )

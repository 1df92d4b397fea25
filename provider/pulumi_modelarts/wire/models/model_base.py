"""The bases of the wire models: strict ``RequestModel``, tolerant ``ResponseModel``, the numbers of
requests, the converters responses use, ``to_wire``, ``wire_fields`` and ``build_validators``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PrivateAttr
from pydantic.fields import FieldInfo

from .rules import rule_error


def _whole_number_not_a_flag(value: object) -> object:
    if isinstance(value, bool):
        raise rule_error("must be a whole number, not true or false")
    return value


def _number_not_a_flag(value: object) -> object:
    if isinstance(value, bool):
        raise rule_error("must be a number, not true or false")
    return value


# The numbers of requests: every int and float field is declared with one of these (tests/test_models.py
# finds any that is not). pydantic's lax mode reads true as 1, so a flag written where a count is meant would
# go out as 1; it is refused instead. Everything else lax mode takes is kept: 2.0 for a whole number (Pulumi
# hands every number over as a float), 2 for a number, and text holding a number.
WholeNumber = Annotated[int, BeforeValidator(_whole_number_not_a_flag)]
Number = Annotated[float, BeforeValidator(_number_not_a_flag)]


class RequestModel(BaseModel):
    """Base for everything the user writes: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    # Warning rules broken in this object: (path below it, message, rule key); see ``advice``.
    _advice: list[tuple[tuple[str, ...], str, str]] = PrivateAttr(default_factory=list)

    @property
    def advice_notes(self) -> list[tuple[tuple[str, ...], str, str]]:
        """The warning rules this object breaks, as ``(path below it, message, rule key)``."""
        return self._advice


class ResponseModel(BaseModel):
    """Base for what the service returns: unknown keys kept, numbers accepted where text is documented."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True, defer_build=True)


def none_as_empty_list(value: object) -> object:
    return [] if value is None else value


def none_as_empty_dict(value: object) -> object:
    return {} if value is None else value


def empty_mapping_as_none(value: object) -> object:
    # The service answers an unset log path as {} instead of "" or null.
    if isinstance(value, Mapping) and not value:
        return None
    return value


# pydantic builds a deferred model's validator inside the first call that validates, on whatever thread makes
# it, and two threads may build the same one: under the GIL that costs twice as long as one build.
_BUILDING = threading.Lock()


def build_validators(*classes: type[BaseModel]) -> None:
    """Build these models' validators now if not built yet; a thread finding another building waits for it."""
    with _BUILDING:
        for cls in classes:
            if not cls.__pydantic_complete__:
                cls.model_rebuild()


# ----------------------------------------------------------------------------------------------------
# to_wire


def to_wire(model: BaseModel, *, keep_null: bool = False) -> dict[str, Any]:
    """The JSON-ready body: field names as on the wire, only what was set (plus defaults such as ``kind``).

    Fields explicitly set to ``None`` are dropped unless ``keep_null`` is true (then a parsed body dumps back
    exactly as it came in).
    """
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=not keep_null)


def wire_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """A model's fields by their names on the wire (the alias where one is set)."""
    return {field.alias or name: field for name, field in model.model_fields.items()}

"""Messages: ``problems()`` turns a ``pydantic.ValidationError`` into ``(dotted path, plain message)`` pairs;
``advice()`` gives the warning rules a valid request breaks, spelled the same way.
"""

from __future__ import annotations

import importlib
import re
import types
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Final, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from .model_base import RequestModel, wire_fields
from .rules import RULE_ERROR

# ----------------------------------------------------------------------------------------------------
# problems(): ValidationError -> (dotted path, plain message)

TOP_LEVEL: Final = "(top level)"

_BOUND_KEYS: Final = {
    "greater_than_equal": "ge",
    "greater_than": "gt",
    "less_than_equal": "le",
    "less_than": "lt",
}
_KIND_WORDS: Final[dict[str, str]] = {
    "dict_type": "must be an object (a map of fields)",
    "model_type": "must be an object (a map of fields)",
    "model_attributes_type": "must be an object (a map of fields)",
    "dataclass_type": "must be an object (a map of fields)",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "set_type": "must be a list",
    "string_type": "must be text",
    "string_sub_type": "must be text",
    "string_unicode": "must be valid text",
    "bytes_type": "must be text",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "int_parsing_size": "is too large a number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "none_required": "must be empty (null)",
    "missing": "is required",
    "extra_forbidden": "unknown field",
    "frozen_field": "cannot be changed",
    "frozen_instance": "cannot be changed",
    "recursion_loop": "refers to itself",
    "is_instance_of": "has the wrong kind of value",
    "callable_type": "has the wrong kind of value",
    "union_tag_invalid": "has the wrong kind of value",
    "union_tag_not_found": "has the wrong kind of value",
}


def _plural(count: object, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _message(error: Mapping[str, Any]) -> str:
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    if kind == RULE_ERROR:
        return str(error.get("msg", "is not valid"))
    if kind in _KIND_WORDS:
        return _KIND_WORDS[kind]
    if kind == "string_too_short":
        minimum = ctx.get("min_length", 1)
        return "must not be empty" if minimum == 1 else f"must be at least {_plural(minimum, 'character')}"
    if kind == "string_too_long":
        return f"must be at most {_plural(ctx.get('max_length'), 'character')}"
    if kind == "too_short":
        minimum = ctx.get("min_length", 1)
        return "must not be empty" if minimum == 1 else f"must have at least {_plural(minimum, 'item')}"
    if kind == "too_long":
        return f"must have at most {_plural(ctx.get('max_length'), 'item')}"
    if kind == "string_pattern_mismatch":
        return "has characters that are not allowed"
    for bound, words in (
        ("greater_than_equal", "at least"),
        ("greater_than", "more than"),
        ("less_than_equal", "at most"),
        ("less_than", "less than"),
    ):
        if kind == bound:
            return f"must be {words} {ctx.get(_BOUND_KEYS[bound])}"
    if kind in ("literal_error", "enum"):
        return f"must be {ctx.get('expected', 'one of the allowed values')}"
    if kind in ("value_error", "assertion_error"):
        text = str(error.get("msg", ""))
        for prefix in ("Value error, ", "Assertion failed, "):
            text = text.removeprefix(prefix)
        return text or "is not valid"
    return "is not valid"


def _is_type_tag(part: object) -> bool:
    # pydantic adds union-member tags such as "list[dict[str,str]]" or "function-after[...]" to locations.
    return isinstance(part, str) and part.endswith("]") and "[" in part and not part.startswith("[")


_PLAIN_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _dotted(parts: Iterable[object]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _unwrap(annotation: Any) -> Any:
    """Strip Optional/Annotated/Union-with-None from a field annotation."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
            continue
        args = [a for a in get_args(annotation) if a is not type(None)]
        if origin in (Union, types.UnionType) and len(args) == 1:
            annotation = args[0]
            continue
        return annotation


def _model_at(root: type[BaseModel] | None, parts: Iterable[object]) -> type[BaseModel] | None:
    """The model class found by following a location from ``root`` (None when it leads elsewhere)."""
    current: Any = root
    for part in parts:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            # Error locations use wire names, which differ from attribute names where an alias is set.
            field = wire_fields(current).get(str(part))
            if field is None:
                return None
            current = field.annotation
            continue
        origin = get_origin(current)
        args = get_args(current)
        if origin is list and args:
            current = args[0]
        elif origin is dict and len(args) == 2:
            current = args[1]
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _suggestion(unknown: object, known: Iterable[str]) -> str | None:
    import difflib  # only needed when a user mistypes a field name

    if not isinstance(unknown, str):
        return None
    names = list(known)

    def squash(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "")

    for name in names:
        if squash(name) == squash(unknown):
            return name
    close = difflib.get_close_matches(unknown.lower(), names, n=1, cutoff=0.7)
    return close[0] if close else None


_MODELS_BY_TITLE: dict[str, type[BaseModel]] = {}


#: The modules holding the wire models (models.py's parts), where a validated model's title is looked up.
MODEL_MODULES: Final = (
    "model_base",
    "requests_job",
    "requests_algorithm",
    "requests_parameters",
    "requests_data",
    "requests_tasks",
    "requests_spec",
    "requests_scheduling",
    "requests_search",
    "tag_models",
    "responses",
    "responses_algorithm",
    "responses_spec",
)


def _root_model(title: str) -> type[BaseModel] | None:
    if not _MODELS_BY_TITLE:
        for name in MODEL_MODULES:
            module = importlib.import_module(f"{__package__}.{name}")
            for value in list(vars(module).values()):
                defined_here = isinstance(value, type) and value.__module__ == module.__name__
                if defined_here and issubclass(value, BaseModel):
                    _MODELS_BY_TITLE[value.__name__] = value
    return _MODELS_BY_TITLE.get(title)


def problems(error: ValidationError, model: type[BaseModel] | None = None) -> list[tuple[str, str]]:
    """Each problem in ``error`` as ``(dotted path, message)``.

    model: the model validated, for a model outside the wire models (``ProviderSettings``); the wire models
    are found by the error's title.

    For example ``("spec.resource.node_count", "must be at least 1")``. Paths use ``[i]`` for list positions;
    messages are plain words; repeated pairs are merged.
    """
    root = model or _root_model(error.title)
    found: list[tuple[str, str]] = []
    for item in error.errors(include_url=False):
        loc = [part for part in item.get("loc", ()) if not _is_type_tag(part)]
        kind = item.get("type")
        ctx = item.get("ctx") or {}
        if kind == RULE_ERROR and ctx.get("at"):
            loc.extend(str(ctx["at"]).split("."))
        message = _message(item)
        if loc and loc[-1] == "[key]":
            loc.pop()
            message = f"key {message}"
        if kind == "extra_forbidden" and loc:
            parent = _model_at(root, loc[:-1])
            if parent is not None:
                hint = _suggestion(loc[-1], wire_fields(parent))
                if hint is not None and hint != loc[-1]:
                    message = f"unknown field; did you mean '{hint}'?"
        pair = (_dotted(loc) or TOP_LEVEL, message)
        if pair not in found:
            found.append(pair)
    return found


def advice(request: RequestModel) -> list[tuple[str, str]]:
    """The warning rules a validated request breaks, as ``(dotted path, message)`` pairs in field order.

    The request is still valid (the service takes it as written); each message says what the API pages advise
    and what the service does instead, where that is known. Paths are spelled as in ``problems``.
    """
    found: list[tuple[str, str, str]] = []
    _collect_advice(request, [], found)
    return [(path, message) for path, message, _ in found]


def advice_rules(request: RequestModel) -> list[str]:
    """The keys (``INPUT_RULES``) of the warning rules a validated request breaks, each once."""
    found: list[tuple[str, str, str]] = []
    _collect_advice(request, [], found)
    return list(dict.fromkeys(key for _, _, key in found))


def _collect_advice(model: RequestModel, loc: list[object], found: list[tuple[str, str, str]]) -> None:
    for at, message, key in model.advice_notes:
        note = (_dotted([*loc, *at]) or TOP_LEVEL, message, key)
        if note not in found:
            found.append(note)
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        key = info.alias or name
        if isinstance(value, RequestModel):
            _collect_advice(value, [*loc, key], found)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, RequestModel):
                    _collect_advice(item, [*loc, key, index], found)

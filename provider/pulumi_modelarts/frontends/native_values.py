"""The native plugin's values: the engine's ``PropertyValue``s (schema names) <-> the plain data ``core``
takes and returns (wire names).

- renaming is ``renaming``'s one walk, reading ``PropertyValue``s as it goes (``PROPERTY_VALUES``): the
  engine's values are read and renamed in one pass, never converted first and renamed after;
- values not known yet (preview) become the unknown marker the dynamic provider sees; numbers stay the floats
  the engine sends, as the dynamic provider's do: core's normalising (``normalising.normalise_inputs``) is
  the one pass that makes whole ones ints again, for both front-ends (``to_plain``, for what core does not
  read, makes them ints itself);
- secrets are opened on the way in (a ``PropertyValue`` read is its value) and marked again on the way out:
  where the values the engine sent had them, on the outputs that are always secret, and on every secret
  input (``secret_paths``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from pulumi.provider.experimental.property_value import Computed, PropertyValue

from ..generated import schema_names
from ..generated.fields import SECRET_OUTPUTS
from ..job.normalising import NOT_KNOWN
from ..job.secret_paths import SECRET_PATHS, Path, Steps, mark, renamed
from .renaming import Values, rename, rename_fields, schema_path, to_schema, wire_table

__all__ = [
    "PROPERTY_VALUES",
    "answered",
    "diff_key",
    "outputs_map",
    "plain_map",
    "planned_state",
    "property_map",
    "read",
    "to_plain",
    "to_property",
    "wire_args",
    "wire_inputs",
    "wire_state",
    "with_secret_inputs",
    "with_tags_found",
]


def to_plain(value: PropertyValue) -> Any:
    """Plain data from a PropertyValue: secrets opened, whole floats as ints, unknowns as the marker."""
    return _plain(value, _whole)


def read(value: PropertyValue) -> Any:
    """A PropertyValue as core takes it: ``to_plain``, but with numbers as the engine sent them (floats), as
    the dynamic provider's arrive: core's normalising makes the whole ones ints, once."""
    return _plain(value, _as_sent)


def _whole(number: float) -> float | int:
    return int(number) if number.is_integer() else number


def _as_sent(number: float) -> float:
    return number


def _plain(value: PropertyValue, number: Callable[[float], float | int]) -> Any:
    inner = value.value
    # The exact types a PropertyValue holds first (str, float, a mapping proxy, a tuple): the ABC checks
    # below cost more than the rest of the walk, for every value of every request.
    if isinstance(inner, str) or inner is None or isinstance(inner, bool):
        return inner
    if isinstance(inner, float):
        return number(inner)
    if isinstance(inner, MappingProxyType):
        return {str(k): _plain(v, number) for k, v in inner.items() if isinstance(v, PropertyValue)}
    if isinstance(inner, tuple):
        return [_plain(v, number) for v in inner if isinstance(v, PropertyValue)]
    if isinstance(inner, Computed):
        return NOT_KNOWN
    if isinstance(inner, Mapping):
        return {str(k): _plain(v, number) for k, v in inner.items() if isinstance(v, PropertyValue)}
    if isinstance(inner, Sequence):
        return [_plain(v, number) for v in inner if isinstance(v, PropertyValue)]
    raise ValueError(f"unsupported value of type {type(inner).__name__}")


def plain_map(values: Mapping[str, PropertyValue]) -> dict[str, Any]:
    return {k: to_plain(v) for k, v in values.items()}


def to_property(value: Any, like: PropertyValue | None = None, *, secret: bool = False) -> PropertyValue:
    """A PropertyValue from plain data; where ``like`` (the value it came from) was secret, so is this."""
    secret = secret or (like is not None and like.is_secret)
    template = like.value if like is not None else None
    if value is NOT_KNOWN:
        converted = PropertyValue.computed()
    elif value is None or isinstance(value, (bool, str)):
        converted = PropertyValue(value)
    elif isinstance(value, (int, float)):
        converted = PropertyValue(float(value))
    elif isinstance(value, Mapping):
        olds = template if isinstance(template, Mapping) else {}
        converted = PropertyValue({str(k): to_property(v, olds.get(str(k))) for k, v in value.items()})
    elif isinstance(value, (list, tuple)):
        items = template if isinstance(template, tuple) else ()
        converted = PropertyValue(
            [to_property(v, items[i] if i < len(items) else None) for i, v in enumerate(value)]
        )
    else:
        raise ValueError(f"unsupported value of type {type(value).__name__}")
    return converted.with_secret(True) if secret else converted


def property_map(
    values: Mapping[str, Any], like: Mapping[str, PropertyValue] | None = None, secret: Sequence[str] = ()
) -> dict[str, PropertyValue]:
    like = like or {}
    return {k: to_property(v, like.get(k), secret=k in secret) for k, v in values.items()}


# ---------------------------------------------------------------------------------------------------------
# Requests: schema names in, core's plain data in wire names out, read and renamed in one walk


def _fields(value: PropertyValue) -> Mapping[Any, Any] | None:
    # The exact types a PropertyValue holds (a mapping proxy, a tuple): this walk runs for every request.
    inner = value.value
    return inner if type(inner) is MappingProxyType else None


def _items(value: PropertyValue) -> Sequence[Any] | None:
    inner = value.value
    return inner if type(inner) is tuple else None


#: How ``renaming.rename`` reads PropertyValues for core (``read``).
PROPERTY_VALUES = Values(_fields, _items, read)


def wire_inputs(values: Mapping[str, PropertyValue]) -> dict[str, Any]:
    """A request's inputs (schema names) as the plain data core takes (wire names)."""
    return _wire_map(values, schema_names.INPUTS)


def wire_state(values: Mapping[str, PropertyValue]) -> dict[str, Any]:
    """A request's stored outputs (schema names) as the plain data core takes (wire names)."""
    return _wire_map(values, schema_names.OUTPUTS)


def wire_args(values: Mapping[str, PropertyValue], root: str = schema_names.FUNCTION_ARGS) -> dict[str, Any]:
    """A function's arguments (schema names; root: where they start in ``schema_names.TYPES``, by default
    getTrainingJobs') as plain data in wire names."""
    return _wire_map(values, root)


def _wire_map(values: Mapping[str, PropertyValue], shape: str) -> dict[str, Any]:
    table = wire_table()
    props = table.get(shape)
    if props is None:
        return {k: read(v) for k, v in values.items()}
    return rename_fields(values, props, table, PROPERTY_VALUES)


# What diff reads of the stored outputs (core.plan): the declared inputs, the last phases and the name. A job
# adopted by `pulumi import` has no declared inputs; diff then compares with the whole job as found.
_PLANNED = ("declared_inputs", "phase", "secondary_phase", "name")


def planned_state(state: Mapping[str, PropertyValue]) -> Mapping[str, PropertyValue]:
    """The stored outputs diff needs (schema names), without converting the ~90 the job itself carries."""
    names = schema_names.TYPES[schema_names.OUTPUTS]
    planned = {names[wire][0] for wire in _PLANNED}
    if names["declared_inputs"][0] not in state:
        return state
    return {key: value for key, value in state.items() if key in planned}


# ---------------------------------------------------------------------------------------------------------
# Answers: core's plain data in wire names in, schema names out, secrets marked


def answered(
    values: Mapping[str, Any], sent_wire: Mapping[str, Any], sent: Mapping[str, PropertyValue]
) -> dict[str, PropertyValue]:
    """Checked inputs (core's, in wire names) for the engine, in schema names. Each top-level value the engine
    sent unchanged (its plain form equal, as check leaves most) is answered with the very PropertyValue it
    sent: its secrets and dependencies are kept as they came, and nothing is renamed or built again."""
    names = schema_names.TYPES[schema_names.INPUTS]
    answer: dict[str, PropertyValue] = {}
    for key, value in values.items():
        name, shape = names.get(key, (key, ""))
        if name in sent and key in sent_wire and sent_wire[key] == value:
            answer[name] = sent[name]
        else:
            schema_value = rename(value, shape, schema_names.TYPES) if shape else value
            answer[name] = to_property(schema_value, sent.get(name))
    return answer


def outputs_map(outputs: Mapping[str, Any], inputs: Mapping[str, PropertyValue]) -> dict[str, PropertyValue]:
    """The resource's outputs (core's, in wire names) for the engine, in schema names; those always secret are
    marked, and so is any output whose input was secret."""
    secret = [schema_path(name, schema_names.OUTPUTS) for name in SECRET_OUTPUTS]
    schema_outputs = to_schema(outputs, schema_names.OUTPUTS)
    return property_map(schema_outputs, {k: v for k, v in inputs.items() if v.is_secret}, secret)


def diff_key(name: str) -> str:
    """A detailed-diff key or replace reason of core (a wire path) in schema names."""
    return schema_path(name, schema_names.OUTPUTS if name == "status" else schema_names.INPUTS)


def with_tags_found(
    inputs: Mapping[str, PropertyValue], drifted: Mapping[str, str] | None
) -> Mapping[str, PropertyValue]:
    """The stored inputs with the tags a refresh found changed elsewhere (``JobState.drifted_tags``), when
    the inputs manage tags: the next preview then shows the drift as a change of ``tags`` (and only of it).
    Otherwise the very inputs given."""
    if drifted is None or "tags" not in inputs:
        return inputs
    return {**inputs, "tags": to_property(dict(drifted), inputs["tags"])}


def with_secret_inputs(inputs: Mapping[str, PropertyValue]) -> dict[str, PropertyValue]:
    """inputs with every secret input (``fields.SECRET_INPUTS``) marked secret, whatever the program passed.

    The schema declares them secret, but the generated SDKs mark no nested property so: the checked inputs the
    engine records in the state must, or environment variables would be stored there in plain text.
    """
    return mark(inputs, _STEPS, _secret, _secret_schema_paths())


@functools.cache
def _secret_schema_paths() -> tuple[Path, ...]:
    # The plugin's values are in schema names: the secret paths renamed once.
    return renamed(schema_path, SECRET_PATHS)


def _into_field(
    value: PropertyValue, name: str, inner: Callable[[PropertyValue], PropertyValue]
) -> PropertyValue:
    fields = value.value
    if isinstance(fields, Mapping) and name in fields:
        return PropertyValue(
            {**fields, name: inner(fields[name])}, is_secret=value.is_secret, dependencies=value.dependencies
        )
    return value  # absent, unknown (Computed) or not the shape the schema gives: nothing to mark


def _into_items(value: PropertyValue, inner: Callable[[PropertyValue], PropertyValue]) -> PropertyValue:
    items = value.value
    if isinstance(items, Sequence) and not isinstance(items, str):
        marked = [inner(item) for item in items]
        return PropertyValue(marked, is_secret=value.is_secret, dependencies=value.dependencies)
    return value


def _secret(value: PropertyValue) -> PropertyValue:
    return value if value.is_secret else value.with_secret(True)


_STEPS: Steps[PropertyValue] = Steps(_into_field, _into_items)

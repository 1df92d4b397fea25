"""The account's errors: a setting missing or unusable (``SettingsError``, one kind of the wire's
``UnusableValueError``, which the wire raises for an endpoint URL, a CA file or a header value it cannot use),
and a source of keys or of the project (IAM, the instance metadata service) that refused or answered nothing
usable (``AccountError``). A message names places and services, never a credential's value.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..wire.errors import ModelArtsError, UnusableValueError

__all__ = ["AccountError", "SettingsError", "as_settings_error"]


class SettingsError(UnusableValueError):
    """Region, project, endpoint or credentials are missing or unusable (names places, never values)."""


class AccountError(ModelArtsError):
    """IAM or the instance metadata service refused, answered nothing usable, or could not be reached.

    The message names the service, the call, what it answered and its request id; never a credential.
    """


@contextlib.contextmanager
def as_settings_error() -> Iterator[None]:
    """A value the wire refuses in the block (an endpoint URL, a CA file) came from the user's settings: it is
    raised as the SettingsError it is, with the wire's text."""
    try:
        yield
    except SettingsError:
        raise
    except UnusableValueError as exc:
        raise SettingsError(str(exc)) from None

"""Parameter checks with one message form, used at construction everywhere.

"The 'c' parameter of MCTS must be a float > 0. Got -1 instead."
"""

from __future__ import annotations

import math
import os
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def invalid(name: str, owner: str, requirement: str, value: Any) -> ValueError:
    """The error of the one message form, for a requirement the checks here do not cover."""
    return ValueError(
        f"The {name!r} parameter of {owner} must be {requirement}. Got {value!r} instead."
    )


def check_int(
    value: Any, name: str, owner: str, *, low: int | None = None, high: int | None = None
) -> int:
    """Return ``value`` if it is an int within ``[low, high]``; raise ValueError otherwise."""
    requirement = "an int" + _bounds(low, high)
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise invalid(name, owner, requirement, value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise invalid(name, owner, requirement, value)
    return int(value)


def check_float(
    value: Any,
    name: str,
    owner: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = False,
) -> float:
    """Return ``value`` as a float if finite and within bounds; raise ValueError otherwise."""
    if low is not None and high is None:
        requirement = f"a float {'>=' if low_inclusive else '>'} {low:g}"
    elif low is not None and high is not None:
        requirement = f"a float in {'[' if low_inclusive else '('}{low:g}, {high:g}]"
    else:
        requirement = "a float"
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise invalid(name, owner, requirement, value)
    number = float(value)
    too_low = low is not None and (number < low or (number == low and not low_inclusive))
    if not math.isfinite(number) or too_low or (high is not None and number > high):
        raise invalid(name, owner, requirement, value)
    return number


def check_choice(value: Any, name: str, owner: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``; raise ValueError otherwise."""
    if value not in choices:
        raise invalid(name, owner, "one of " + ", ".join(repr(c) for c in choices), value)
    return str(value)


def check_instance(value: Any, name: str, owner: str, expected: type[T], description: str) -> T:
    """Return ``value`` if it is an instance of ``expected``; raise ValueError otherwise.

    ``description`` names the requirement in the message, e.g. "a Budget".
    """
    if not isinstance(value, expected):
        raise invalid(name, owner, description, value)
    return value


def check_callable(value: T, name: str, owner: str, description: str) -> T:
    """Return ``value`` if it can be called; raise ValueError naming ``description`` otherwise."""
    if not callable(value):
        raise invalid(name, owner, description, value)
    return value


def _bounds(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" in [{low}, {high}]"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def physical_mib() -> float:
    """This machine's memory in MiB (unbounded where the system does not say): what a
    memory budget may ask for at most."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (AttributeError, ValueError, OSError):
        return math.inf

"""Checks of model descriptions read back from JSON (saved, hand-edited or damaged files).

Every problem is reported as one :class:`~optrees._validation.OptreesInputError` naming the
field, so that a bad file is refused when it is loaded instead of failing deep inside
``predict`` or, worse, predicting nonsense.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from .._validation import OptreesInputError


def fail(message: str) -> NoReturn:
    """Refuse the description with one clear message."""
    raise OptreesInputError(message)


def is_int(v: Any) -> bool:
    """An integer that is not a boolean (JSON ``true`` is no index)."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_)


def is_number(v: Any) -> bool:
    """A finite real number that is not a boolean."""
    return (isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)
            and math.isfinite(float(v)))


def is_scalar(v: Any) -> bool:
    """A value JSON keeps as it is: a string, a boolean or a finite number."""
    return isinstance(v, str | bool | np.bool_) or is_number(v)


def mapping(data: Any, what: str) -> dict[str, Any]:
    """``data`` itself, which must be a JSON object."""
    if not isinstance(data, dict):
        fail(f"{what} must be an object, got {type(data).__name__}")
    return data


def sequence(data: dict[str, Any], key: str, length: int | None = None) -> list[Any]:
    """The list ``data[key]`` (of ``length`` entries when given)."""
    if key not in data:
        fail(f"'{key}' is missing")
    return as_list(data[key], f"'{key}'", length)


def as_list(value: Any, what: str, length: int | None = None) -> list[Any]:
    """``value`` as a list (of ``length`` entries when given)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple):
        fail(f"{what} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        fail(f"{what} has {len(value)} entries, expected {length}")
    return list(value)


def integer(v: Any, what: str, low: int, high: int | None) -> int:
    """An integer in [low, high) (no upper bound when ``high`` is None)."""
    if not is_int(v) or v < low or (high is not None and v >= high):
        bound = "" if high is None else f", at most {high - 1}"
        fail(f"{what} = {v!r} must be an integer >= {low}{bound}")
    return int(v)


def ints(values: Sequence[Any], what: str, low: int, high: int | None) -> list[int]:
    """Integers in [low, high) (no upper bound when ``high`` is None)."""
    return [integer(v, f"{what}[{i}]", low, high) for i, v in enumerate(values)]


def real(v: Any, what: str) -> float:
    """A finite number."""
    if not is_number(v):
        fail(f"{what} = {v!r} must be a finite number")
    return float(v)


def reals(values: Sequence[Any], what: str) -> list[float]:
    """Finite numbers."""
    return [real(v, f"{what}[{i}]") for i, v in enumerate(values)]


def booleans(values: Sequence[Any], what: str) -> list[bool]:
    """``values``, each true or false."""
    if not all(isinstance(v, bool) for v in values):
        fail(f"{what} must hold true or false only")
    return list(values)


def strings(values: Sequence[Any], what: str, unique: bool = False) -> list[str]:
    """Strings (distinct when ``unique``)."""
    for i, v in enumerate(values):
        if not isinstance(v, str):
            fail(f"{what}[{i}] = {v!r} must be a string")
    if unique and len(set(values)) != len(values):
        fail(f"{what} has duplicates")
    return list(values)


def labels(values: Sequence[Any], what: str) -> list[Any]:
    """Distinct class labels or categories: strings, booleans or finite numbers."""
    for i, v in enumerate(values):
        if not is_scalar(v):
            fail(f"{what}[{i}] = {v!r} must be a string, a number or a boolean")
    if len(set(values)) != len(values):
        fail(f"{what} has duplicates")
    return list(values)


def check_tree(children: Sequence[Sequence[int]], what: str = "node") -> None:
    """Children are node indices, each node below the root has exactly one parent, and
    children come after their parent: so no cycles, and every node is reached from the root
    (node 0) exactly once."""
    n = len(children)
    parent = [-1] * n
    for p, kids in enumerate(children):
        for c in kids:
            if not is_int(c) or not 0 <= c < n:
                fail(f"{what} {p} has child {c!r}, which is not a node index (0..{n - 1})")
            if c <= p:
                fail(f"{what} {p} has child {c}: a child must come after its parent "
                     "(a cycle, or nodes out of order)")
            if parent[c] >= 0:
                fail(f"{what} {c} is a child of both {what} {parent[c]} and {what} {p}")
            parent[c] = p
    orphans = [c for c in range(1, n) if parent[c] < 0]
    if orphans:
        fail(f"{what} {orphans[0]} is not reached from the root")

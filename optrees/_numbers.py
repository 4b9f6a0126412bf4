"""Split thresholds that print as what they are: a midpoint cleaned of float noise, and its
exact text, so a printed tree routes every value as the model does."""

from __future__ import annotations

import numpy as np

CUT_DIGITS = 10
"""Significant digits a midpoint is rounded to when that keeps it between its two values:
(1.6 + 1.7) / 2 is 1.6500000000000001 in floats, 1.65 after it (a shift of at most 5e-10
relative, which no training row notices)."""

NAME_DIGITS = 4
"""Fewest significant digits tried for a binarizer's cut point (its literal's name)."""


def round_significant(v: np.ndarray | float, digits: int = CUT_DIGITS,
                      how: np.ufunc = np.round) -> np.ndarray:
    """``v`` rounded (``how``: np.round, np.floor) to ``digits`` significant digits: the
    float nearest the short decimal (an integer times or over an exact power of ten), ``v``
    where no power of ten is exact."""
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        exp = np.floor(np.log10(np.abs(v))) - (digits - 1)
        exp = np.where(np.isfinite(exp), exp, 0.0)
        exact = np.abs(exp) <= 22
        scale = 10.0 ** np.abs(np.where(exact, exp, 0.0))
        out = np.where(exp >= 0, how(v / scale) * scale, how(v * scale) / scale)
    return np.where(exact & np.isfinite(out), out, v)


def clean_midpoints(lo: np.ndarray | float, hi: np.ndarray | float) -> np.ndarray:
    """Thresholds ``t`` with ``lo <= t < hi`` for consecutive distinct values ``lo < hi``:
    the midpoint rounded (:func:`round_significant`) when that stays inside the gap, else
    the midpoint, else ``lo`` (adjacent floats: their midpoint can round to ``hi``; ``x <=
    lo`` is the same partition)."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    mid = lo + (hi - lo) / 2.0
    mid = np.where(mid < hi, mid, lo)
    rounded = round_significant(mid)
    return np.where((lo <= rounded) & (rounded < hi), rounded, mid)


def _shortest_same_side(cuts: np.ndarray, values: np.ndarray, side: str, digits: int,
                        hows: tuple[np.ufunc, ...]) -> np.ndarray:
    """Each cut as the decimal of fewest significant digits (at least ``digits``; at each
    count the roundings ``hows`` in turn) that leaves the same sorted ``values`` on each
    side (``np.searchsorted``'s ``side``: "left" for ``x >= t`` / ``x < t``, "right" for
    ``x <= t``); a cut no rounding keeps stays as it is."""
    cuts = np.asarray(cuts, dtype=np.float64)
    k = np.searchsorted(values, cuts, side)
    out, todo = cuts.copy(), np.ones(len(cuts), dtype=bool)
    for d in range(digits, 18):
        for how in hows:
            if not todo.any():
                return out
            r = round_significant(cuts[todo], d, how)
            same = np.searchsorted(values, r, side) == k[todo]
            idx = np.flatnonzero(todo)[same]
            out[idx], todo[idx] = r[same], False
    return out


def clean_cuts(cuts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Cut points of tests ``x >= t`` as the decimals of fewest significant digits (at least
    :data:`NAME_DIGITS`) that leave the same sorted training ``values`` on each side, the
    nearest rounding first, else the one below: a quantile interpolated to
    4.639999999999999 becomes 4.64, a cut at the value 1/6 becomes 0.1666."""
    return _shortest_same_side(cuts, values, "left", NAME_DIGITS, (np.round, np.floor))


def short_threshold(t: float, values: np.ndarray, strict: bool = False,
                    digits: int = 6) -> float:
    """The decimal of fewest significant digits (at least ``digits``; rounded to nearest,
    else down, else up) that splits the sorted ``values`` as ``t`` does (``x <= t``, or ``x <
    t`` when ``strict``): a scikit-learn tree's float32 threshold 4.900000095367432 becomes
    4.9 when no value lies between, 4.79999995 (the value 4.8 above it) 4.79999."""
    return float(_shortest_same_side(np.array([t], dtype=np.float64), values,
                                     "left" if strict else "right", digits,
                                     (np.round, np.floor, np.ceil))[0])


def threshold_text(t: float) -> str:
    """``t`` as the shortest text that reads back as ``t`` exactly ("1.65", "1234567.5"):
    rounded text (six digits printed 1234567.5 as 1.23457e+06) sends the rows between the
    printed and the real threshold to the other branch than the tree does."""
    t = float(t)
    if t.is_integer() and abs(t) < 1e16:
        return str(int(t))
    return repr(t)


INTEGER_DIGITS_BELOW = 1e10
"""Leaf values below this print every integer digit; larger ones print with an exponent."""


def value_digits(values: np.ndarray, least: int) -> int:
    """Significant digits to print a tree's leaf ``values`` with: at least ``least``; every
    integer digit of values below :data:`INTEGER_DIGITS_BELOW` (leaves of y + 1e6 all
    printed "1e+06"), larger ones with an exponent (1.03126e+14, not 103125748502994); more
    (up to 15) while two values that differ (beyond 12 digits) print alike."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if not len(v):
        return least
    big = float(np.abs(v).max())
    digits = least
    if 1 <= big < INTEGER_DIGITS_BELOW:
        digits = max(least, int(np.floor(np.log10(big))) + 1)
    distinct = len(np.unique(round_significant(v, 12)))
    while digits < 15 and len({f"{x:.{digits}g}" for x in v}) < distinct:
        digits += 1
    return digits

"""Declarative estimator parameters: each estimator lists its parameters once, in a table of
:class:`Param` (rule + one-line help), and :func:`validate_params` checks them all.

The pattern is scikit-learn's ``_parameter_constraints``; the table is also what the command
line reads (option names, help, choices), so a new estimator option is one table line.

    class MyClassifier(BaseEstimator):
        _parameters = {"depth": Param(Integer(1, 12), "maximum depth of the tree"), ...}

        def fit(self, X, y):
            p = validate_params(self)       # p.depth: the checked (converted) value
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._validation import OptreesInputError, check_seed, check_time_limit


class Rule:
    """What a parameter accepts: :meth:`describe` for messages, :meth:`convert` to check.

    ``convert`` returns the value as the method uses it (e.g. a float) or raises ValueError.
    """

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def convert(self, value: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


def _bounds(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high:g}"
    return ""


def _inside(v: float, low: float | None, high: float | None, low_open: bool,
            high_open: bool) -> bool:
    if low is not None and (v < low or (low_open and v == low)):
        return False
    return not (high is not None and (v > high or (high_open and v == high)))


@dataclass(frozen=True)
class Integer(Rule):
    """An integer (not a bool) in [low, high]."""

    low: int | None = None
    high: int | None = None

    def describe(self) -> str:
        return f"an integer {_bounds(self.low, self.high, False, False)}".rstrip()

    def convert(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError
        if not _inside(int(value), self.low, self.high, False, False):
            raise ValueError
        return int(value)


@dataclass(frozen=True)
class Real(Rule):
    """A finite real number (not a bool) between ``low`` and ``high``."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    text: str | None = None  # a description instead of "a number in [low, high]"

    def describe(self) -> str:
        if self.text:
            return self.text
        return f"a number {_bounds(self.low, self.high, self.low_open, self.high_open)}".rstrip()

    def convert(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError
        v = float(value)
        if math.isnan(v) or not _inside(v, self.low, self.high, self.low_open, self.high_open):
            raise ValueError
        return v


@dataclass(frozen=True)
class Boolean(Rule):
    """True or False (numpy booleans too)."""

    def describe(self) -> str:
        return "True or False"

    def convert(self, value: Any) -> bool:
        if not isinstance(value, bool) and type(value).__name__ != "bool_":
            raise ValueError
        return bool(value)


class Options(Rule):
    """One of a fixed set of values (strings, None, True, ...)."""

    def __init__(self, *values: Any) -> None:
        self.values = values

    def describe(self) -> str:
        shown = [repr(v) for v in self.values]
        return "one of " + ", ".join(shown) if len(shown) > 2 else " or ".join(shown)

    def convert(self, value: Any) -> Any:
        for v in self.values:
            # `is` for None/True/False so that 1 is not True; == for strings and numbers
            if value is v or (not isinstance(value, bool) and not isinstance(v, bool)
                              and v is not None and isinstance(value, type(v)) and value == v):
                return v
        raise ValueError


class Either(Rule):
    """Any one of several rules (the first that accepts the value converts it)."""

    def __init__(self, *rules: Rule) -> None:
        self.rules = rules

    def describe(self) -> str:
        return " or ".join(r.describe() for r in self.rules)

    def convert(self, value: Any) -> Any:
        for rule in self.rules:
            try:
                return rule.convert(value)
            except ValueError:
                continue
        raise ValueError


class Check(Rule):
    """A rule given by a function: ``convert(value)`` returns the checked value or raises
    ValueError (or an OptreesInputError with its own message); ``text`` describes what is
    accepted."""

    def __init__(self, text: str, convert: Callable[[Any], Any]) -> None:
        self.text = text
        self._convert = convert

    def describe(self) -> str:
        return self.text

    def convert(self, value: Any) -> Any:
        return self._convert(value)


NONE = Options(None)


def as_given(value: Any) -> Any:
    """A value checked against the data at fit time (column names, class labels)."""
    return value


def optional(rule: Rule) -> Rule:
    """``rule`` or None."""
    return Either(rule, NONE)


@dataclass(frozen=True)
class Param:
    """One constructor parameter: what it accepts and a one-line help (command line, docs).

    ``cli``: the command-line option that sets it ("" = none; default ``--name``);
    ``bare``: the value of that option given without a word (None: it needs one).
    """

    rule: Rule
    help: str
    cli: str | None = None
    bare: Any = None

    def option(self, name: str) -> str | None:
        """The command-line option of parameter ``name`` (None: not on the command line)."""
        if self.cli == "":
            return None
        return self.cli or "--" + name.replace("_", "-")


class Params(dict):
    """Checked parameter values, also readable as attributes (``p.depth``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc


def parameter_table(cls: type) -> dict[str, Param]:
    """The merged ``_parameters`` tables of ``cls`` and its bases (subclasses override)."""
    table: dict[str, Param] = {}
    for klass in reversed(cls.__mro__):
        table.update(vars(klass).get("_parameters", {}))
    return table


def _parameter_table(cls: type) -> Mapping[str, Param]:
    """:func:`parameter_table` once per class and set of tables (each fit asks for it)."""
    key = tuple(id(vars(k).get("_parameters")) for k in cls.__mro__)
    cached = _TABLES.get(cls)
    if cached is None or cached[0] != key:
        cached = _TABLES[cls] = (key, parameter_table(cls))
    return cached[1]


_TABLES: dict[type, tuple[tuple[int, ...], dict[str, Param]]] = {}


def check_param(name: str, value: Any, rule: Rule) -> Any:
    """``value`` converted by ``rule``, or OptreesInputError "name must be ..., got ...".

    Also for checks outside an estimator's table (e.g. a Binarizer's own).  A rule may raise
    its own OptreesInputError when the plain message would say too little."""
    try:
        return rule.convert(value)
    except OptreesInputError:
        raise
    except (ValueError, TypeError) as exc:
        raise OptreesInputError(f"{name} must be {rule.describe()}, got {value!r}") from exc


def validate_params(estimator: Any, table: Mapping[str, Param] | None = None) -> Params:
    """Check every parameter of ``estimator`` against its table; return the converted values.

    A parameter the table does not list is passed through unchanged; a table entry that is
    no constructor parameter but a class attribute (a value fixed by a subclass, e.g.
    BendOCT's ``penalty``) is read from the class.  With the class's own table, its static
    ``_check_together(values)`` (if any) then checks rules between parameters, so that
    ``optrees fit`` refuses them before loading any data."""
    together = getattr(type(estimator), "_check_together", None) if table is None else None
    table = _parameter_table(type(estimator)) if table is None else table
    values = Params(estimator.get_params(deep=False))
    for name, param in table.items():
        if name not in values and hasattr(estimator, name):
            values[name] = getattr(estimator, name)
        if name in values:
            values[name] = check_param(name, values[name], param.rule)
    if together is not None:  # rules between parameters (the whole table checked first)
        together(values)
    return values


def _verbose(value: Any) -> int:
    if not isinstance(value, numbers.Integral) or value < 0:  # bool is Integral
        raise ValueError
    return int(value)


# Parameters most estimators share (same name, rule and meaning everywhere).
TIME_LIMIT = Param(Check("a positive number of seconds or None", check_time_limit),
                   "seconds for the whole fit (None: no limit); when it runs out, the best "
                   "model found is returned with its gap")
RANDOM_STATE = Param(Check("None or an integer >= 0", check_seed),
                     "seed of every random choice (None = 0: reproducible by default)",
                     cli="--seed")


def class_weight_value(value: Any) -> Any:
    """The rule of every ``class_weight`` parameter: None, "balanced" or a dict."""
    if value is None or isinstance(value, dict) or (isinstance(value, str)
                                                    and value == "balanced"):
        return value
    raise ValueError


CLASS_WEIGHT = Param(Check("None, 'balanced' or a dict {label: weight}", class_weight_value),
                     "weight of each class's rows (times sample_weight): None = 1, "
                     "'balanced' = total / (classes x class total), a dict (missing labels: 1)",
                     cli="")
VERBOSE = Param(Check("0, 1, 2 or a bool", _verbose),
                "0 silent, 1 progress lines, 2 also the solver's log")


class GeneratedInit:
    """Mixin: a class that sets ``_defaults`` (its constructor parameters, in order, with
    their defaults) gets the constructor scikit-learn expects, generated: keyword arguments
    stored unchanged, a real signature for ``get_params`` and ``help()``.  Subclasses list
    their own ``_defaults`` (often built from shared dicts) instead of hand-copying
    twenty-line constructors.  ``_positional`` names the leading parameters that may also be
    given by position (a meta-estimator's ``estimator``, as in scikit-learn)."""

    _defaults: Mapping[str, Any] = {}
    _positional: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_defaults" in vars(cls):
            cls.__init__ = _constructor(cls.__name__, dict(cls._defaults), cls._positional)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """scikit-learn's parameter names (``get_params``), read from the generated
        signature once per class: scikit-learn inspects it on every call (15 us a fit)."""
        names = vars(cls).get("_param_names")
        if names is None or vars(cls).get("_param_names_of") is not cls.__init__:
            names = tuple(super()._get_param_names())  # type: ignore[misc]
            cls._param_names, cls._param_names_of = names, cls.__init__
        return list(names)


def _constructor(owner: str, defaults: dict[str, Any], positional: tuple[str, ...] = ()
                 ) -> Callable[..., None]:
    """``__init__(self, p1=default, ..., *, name=default, ...)`` storing each argument on
    ``self``; ``positional``: the leading names ``p1, ...`` (none: all keyword-only)."""
    if list(defaults)[:len(positional)] != list(positional):
        raise TypeError(f"{owner}: positional parameters {positional} must lead _defaults")
    kinds = dict.fromkeys(positional, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(name, kinds.get(name, inspect.Parameter.KEYWORD_ONLY),
                             default=value)
           for name, value in defaults.items()])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or not kwargs.keys() <= defaults.keys():  # the signature's own message
            try:
                kwargs = dict(signature.bind(self, *args, **kwargs).arguments)
            except TypeError as exc:
                raise TypeError(f"{owner}(): {exc} (parameters are keyword arguments: "
                                f"{', '.join(defaults)})") from None
        for name, value in defaults.items():
            setattr(self, name, kwargs.get(name, value))

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{owner}.__init__"
    __init__.__doc__ = f"Store the parameters of {owner} (keyword arguments; see the class)."
    return __init__

"""The method options of ``optrees fit``, read from the estimators' parameter tables.

Every parameter of a registered estimator with a command-line option (:class:`Param` ``cli``,
default ``--name``) becomes one option; an option several estimators share (``--alpha``) is
one option with each method's meaning.  A new estimator parameter therefore reaches the
command line through its table line alone.  Options common to every method (``--depth``,
``--time-limit``, ...) are written out in :mod:`optrees.cli`, with the command line's own
defaults.
"""

from __future__ import annotations

import argparse
import inspect
from dataclasses import dataclass, field
from typing import Any

from ._params import NONE, Boolean, Either, Integer, Options, Param, Real, Rule, parameter_table
from .cli_base import _UsageError
from .registry import cli_methods

NO_DEFAULT = object()
"""Default of an option whose methods have different defaults."""


@dataclass
class Use:
    """How one method uses an option: parameter ``name``; ``fixed`` when the estimator has
    the parameter as a fixed class attribute (BendOCT's ``penalty``), not in its constructor."""

    name: str
    param: Param
    default: Any
    fixed: bool = False


@dataclass
class MethodOption:
    """One ``fit`` option and the methods that use it (``users``: method -> :class:`Use`)."""

    flag: str
    users: dict[str, Use] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def default(self) -> Any:
        """The common default of the methods that take the parameter in their constructor
        (:data:`NO_DEFAULT` when they differ), shown in its help."""
        values = [u.default for u in self.users.values() if not u.fixed]
        return values[0] if all(_same(v, values[0]) for v in values) else NO_DEFAULT

    @property
    def rule(self) -> Rule:
        """The rule of its methods; several different ones (e.g. the fairness notions of
        FairRUG and of the trees) accept the union, and each estimator checks its own."""
        rules = list({id(u.param.rule): u.param.rule for u in self.users.values()}.values())
        if all(isinstance(r, Boolean) for r in rules):
            return rules[0]  # on / off, whichever method
        return rules[0] if len(rules) == 1 else Either(*rules)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def method_options(reserved: set[str]) -> dict[str, MethodOption]:
    """Options of every ``--method`` (imports the estimators); ``reserved``: flags that
    :mod:`optrees.cli` defines itself."""
    options: dict[str, MethodOption] = {}
    for method, entry in cli_methods().items():
        cls = entry.load()
        signature = inspect.signature(cls).parameters
        for name, param in parameter_table(cls).items():
            flag = param.option(name)
            if flag is None or flag in reserved:
                continue
            if name in signature:
                use = Use(name, param, signature[name].default)
            elif hasattr(cls, name):
                use = Use(name, param, getattr(cls, name), fixed=True)
            else:
                continue
            options.setdefault(flag, MethodOption(flag)).users[method] = use
    return options


# ------------------------------------------------------------------------------ text -> value
def from_text(rule: Rule, text: str) -> Any:
    """The value a command-line word stands for under ``rule`` ("off" -> False, "none" ->
    None, "3" -> 3); ValueError when none.  The estimator checks the value itself."""
    if isinstance(rule, Either):
        for inner in rule.rules:
            try:
                return from_text(inner, text)
            except ValueError:
                continue
        raise ValueError(text)
    if isinstance(rule, Boolean):
        word = text.lower()
        if word in ("yes", "true", "on"):
            return True
        if word in ("no", "false", "off"):
            return False
        raise ValueError(text)
    if isinstance(rule, Integer):
        return int(text)
    if isinstance(rule, Real):
        return float(text)
    if isinstance(rule, Options):
        for value in rule.values:
            if isinstance(value, str) and value == text:
                return value
            if value is None and text.lower() == "none":
                return None
        raise ValueError(text)
    return text  # a Check: the estimator's rule decides


def _choices(rule: Rule) -> list[str] | None:
    """The words an option of ``rule`` takes, when they are a fixed list."""
    if isinstance(rule, Options) and all(isinstance(v, str) for v in rule.values):
        return list(rule.values)
    if isinstance(rule, Either):
        words = [_choices(r) or (["on", "off"] if isinstance(r, Boolean) else None)
                 for r in rule.rules if r is not NONE]
        if all(w is not None for w in words):  # once each (methods share their words)
            return list(dict.fromkeys(w for ws in words for w in ws))
    return None


def _argparse_type(option: MethodOption) -> Any:
    rule = option.rule

    def convert(text: str) -> Any:
        try:
            return from_text(rule, text)
        except ValueError as exc:
            choices = _choices(rule)
            hint = f" (choose from {', '.join(choices)})" if choices else ""
            raise argparse.ArgumentTypeError(f"invalid value {text!r}{hint}") from exc

    convert.__name__ = option.dest  # argparse names the type in its messages
    return convert


def _help(option: MethodOption) -> str:
    users = option.users
    use = next(iter(users.values()))
    text = use.param.help
    if option.flag.startswith("--no-"):
        text = f"turn off: {text}"
    if len(users) == 1:
        text = f"{next(iter(users))}: {text}"
    else:
        text = f"{text} ({', '.join(users)})"
    default = option.default
    choices = _choices(option.rule)
    if choices and len(choices) > 6:
        text = f"{text}; one of {', '.join(choices)}"
    fixed = [f"{m}: always {_shown(u.default)}" for m, u in users.items() if u.fixed]
    if default is NO_DEFAULT:
        shown = ", ".join(f"{m} {_shown(u.default)}" for m, u in users.items() if not u.fixed)
    else:
        shown = _shown(default)
    return f"{text} (default: {'; '.join([shown, *fixed])})".replace("%", "%%")  # argparse


def _shown(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return "none" if value is None else str(value)


def add_method_options(parser: argparse.ArgumentParser,
                       options: dict[str, MethodOption]) -> None:
    """Add every method option, grouped by the first method that uses it; an option left
    unset is absent from the parsed namespace (the estimator's default applies)."""
    groups: dict[str, Any] = {}
    for option in options.values():
        users = list(option.users)
        title = f"--method {users[0]}" if len(users) == 1 else "options of several methods"
        group = groups.get(title)
        if group is None:
            group = groups[title] = parser.add_argument_group(title)
        kwargs: dict[str, Any] = {"dest": option.dest, "default": argparse.SUPPRESS,
                                  "help": _help(option)}
        if isinstance(option.rule, Boolean):
            if option.flag.startswith("--no-"):
                kwargs.update(action="store_false")
            elif option.default is False:
                kwargs.update(action="store_true")
            else:
                kwargs.update(action=argparse.BooleanOptionalAction)
        else:
            kwargs.update(type=_argparse_type(option), metavar=_metavar(option))
            bare = next(iter(option.users.values())).param.bare
            if bare is not None:
                kwargs.update(nargs="?", const=bare)
        group.add_argument(option.flag, **kwargs)


def _metavar(option: MethodOption) -> str:
    choices = _choices(option.rule)
    if choices and len(choices) <= 6:
        return "{" + ",".join(choices) + "}"
    return option.dest.upper()


def given(args: argparse.Namespace, options: dict[str, MethodOption]) -> dict[str, Any]:
    """The method options given on the command line: ``{flag: value}``.  Every option typed
    counts, whatever its value (an option left out is absent from ``args``), so an option
    the method does not use is refused even at another method's default."""
    return {flag: getattr(args, option.dest) for flag, option in options.items()
            if hasattr(args, option.dest)}


FAIRNESS_ONLY = ("--epsilon", "--sensitive", "--positive-class", "--legitimate",
                 "--drop-sensitive")
"""Method options that only a fairness constraint (``--fairness``) uses."""

SCORES_WITHOUT_FAIRNESS = {"rug": ("--sensitive", "--positive-class"),
                           "rux": ("--sensitive", "--positive-class")}
"""Those the rule sets use without ``--fairness``: they print the groups' fairness scores."""


def refuse_without_fairness(flags: dict[str, Any], method: str) -> None:
    """A fairness option given without ``--fairness`` is refused (it would do nothing)."""
    if "--fairness" in flags:
        return
    scored = SCORES_WITHOUT_FAIRNESS.get(method, ())
    for flag in FAIRNESS_ONLY:
        if flag in flags and flag not in scored:
            raise _UsageError(f"{flag} is not used by --method {method} without --fairness "
                              "(only a fairness constraint uses it); give --fairness NOTION or "
                              f"leave {flag} out")


def implied_task(args: argparse.Namespace, reserved: set[str]) -> tuple[str, str] | None:
    """``(task, flag)`` when a method option given belongs to the methods of one task other
    than classification only (``--leaf-model``: regression), else None; asked when neither
    ``--task`` nor ``--method`` says it (classification is what the target decides)."""
    options = method_options(reserved)
    methods = cli_methods()
    for flag in given(args, options):
        tasks = {methods[m].task for m in options[flag].users}
        if len(tasks) == 1 and tasks != {"classification"}:
            return tasks.pop(), flag
    return None

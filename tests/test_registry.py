"""The method registry is the one list of methods: the command line, the benchmark harness and
the shared test matrix read it, and every registered estimator declares all its parameters."""

from __future__ import annotations

import inspect

import pytest
from estimator_matrix import REGRESSOR_SPECS, SPECS, TASK_SPECS

from optrees._params import Param, parameter_table
from optrees.bench.tasks import METHOD_PARAMS
from optrees.bench.tasks import METHODS as BENCH_METHODS
from optrees.registry import METHODS, cli_methods, estimator_classes


def test_every_registered_estimator_is_in_the_test_matrix():
    specs = SPECS + REGRESSOR_SPECS + TASK_SPECS
    assert {s.cls for s in specs} == set(estimator_classes())
    tasks = {m.load(): m.task for m in METHODS.values()}
    assert all(tasks[s.cls] == s.task for s in specs)


def test_the_cli_offers_the_registry_methods():
    from optrees.cli import METHODS as CLI_METHODS

    assert CLI_METHODS == {name: m.class_name for name, m in cli_methods().items()}


def test_the_bench_harness_runs_every_registry_method():
    for name, method in METHODS.items():
        assert BENCH_METHODS[name] == method.target
        assert METHOD_PARAMS.get(name, {}) == method.params


@pytest.mark.parametrize("cls", estimator_classes(), ids=lambda c: c.__name__)
def test_every_constructor_parameter_has_a_table_line(cls):
    table = parameter_table(cls)
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert params <= set(table), f"no table line for {sorted(params - set(table))}"
    assert all(isinstance(p, Param) and p.help for p in table.values())


@pytest.mark.parametrize("cls", estimator_classes(), ids=lambda c: c.__name__)
def test_the_defaults_pass_their_own_rules(cls):
    from optrees._params import validate_params

    validate_params(cls())  # a default a rule refuses would make fit() fail out of the box


def test_an_option_shared_by_methods_reads_its_words_one_way():
    """``optrees fit`` parses a shared option by one rule: the methods must agree on it."""
    from optrees.cli import RESERVED
    from optrees.cli_options import method_options

    for flag, option in method_options(RESERVED).items():
        kinds = {type(u.param.rule).__name__ for u in option.users.values()}
        assert len(kinds) == 1, f"{flag}: {kinds}"

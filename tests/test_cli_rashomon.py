"""``optrees rashomon``: the printed count, optimum, best trees and importance against every
tree enumerated from the definition (:func:`test_rashomon.enumerated`)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from test_rashomon import _data, _uses, enumerated

from optrees.cli import main


@pytest.fixture
def table(tmp_path):
    X, y = _data(50, 40, 4, 2)
    w = np.random.default_rng(1).integers(1, 4, 40)
    frame = pd.DataFrame(X, columns=list("abcd")).assign(wt=w, label=np.where(y, "yes", "no"))
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return path, X, y, w.astype(float)


def _run(capsys, *argv):
    code = main(["rashomon", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("additive", [False, True])
def test_prints_the_count_optimum_trees_and_importance(table, capsys, additive):
    path, X, y, w = table
    want, best = enumerated(X, y, w, 2, 2, 0.02, 0.4, additive)
    code, out, _ = _run(capsys, "--csv", path, "--target", "label", "--depth", 2, "--lam",
                        0.02, "--epsilon", 0.4, "--weight-column", "wt", "--max-trees", 2,
                        *(["--additive"] if additive else []))
    assert code == 0
    assert f"trees in the set: {len(want):,} (exact)" in out
    assert float(re.search(r"optimum ([0-9.e-]+)", out).group(1)) == pytest.approx(best,
                                                                                   rel=1e-5)
    objectives = [float(v) for v in re.findall(r"tree \d+: objective ([0-9.e-]+)", out)]
    assert objectives == pytest.approx(sorted(want.values())[:2], rel=1e-5)
    printed = dict(re.findall(r"^  (\w)  ([0-9.]+)$", out, re.M))
    assert set(printed) == set("abcd")
    for f, name in enumerate("abcd"):
        share = np.mean([_uses(t, f) for t in want])
        assert float(printed[name]) == pytest.approx(share, abs=1e-4)


def test_a_set_too_large_to_list_prints_its_count(table, capsys):
    path, X, y, w = table
    want, _ = enumerated(X, y, w, 2, 3, 0.005, 1.0)
    code, out, _ = _run(capsys, "--csv", path, "--target", "label", "--depth", 3, "--lam",
                        0.005, "--epsilon", 1.0, "--max-nodes", 20, "--weight-column", "wt")
    assert code == 0, out
    assert f"trees in the set: {len(want):,} (exact)" in out
    assert "counted, not stored" in out and "tree 0" not in out


@pytest.mark.parametrize("argv, match", [
    (["--target", "label", "--epsilon", "-1"], "epsilon must be"),
    (["--epsilon", "0.1"], "--csv needs --target"),
    (["--target", "label", "--epsilon", "0.1", "--max-trees", "-1"], "--max-trees must be"),
    (["--target", "nope", "--epsilon", "0.1"], "target column 'nope'"),
])
def test_bad_options_are_one_line(table, capsys, argv, match):
    path = table[0]
    code, out, err = _run(capsys, "--csv", path, *argv)
    assert code == 2 and out == ""
    assert re.search(match, err) and len(err.strip().splitlines()) == 1


def test_a_table_of_words_is_read_one_hot(tmp_path, capsys):
    path = tmp_path / "w.csv"
    pd.DataFrame({"colour": ["red", "blue", "red", "green"] * 5,
                  "label": [0, 1, 0, 1] * 5}).to_csv(path, index=False)
    code, out, err = _run(capsys, "--csv", path, "--target", "label", "--epsilon", 0.1,
                          "--depth", 1)
    assert code == 0 and "colour = " in out, err
    code, out, _ = _run(capsys, "--csv", path, "--target", "label", "--epsilon", 0.1,
                        "--binarize", "--depth", 1)
    assert code == 0 and "trees in the set: " in out


def test_fair_set_from_the_command_line(tmp_path, capsys):
    """``--fairness``: the count of fair labelled trees enumerated from the definition
    (:func:`test_rashomon_fair.enumerated`), its fair optimum and largest gap."""
    from test_rashomon_fair import _data as fair_data
    from test_rashomon_fair import enumerated as fair_enumerated

    X, y, g = fair_data(0, 30, 3)
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(grp=np.where(g, "b", "a"),
                                                               label=y)
    path = tmp_path / "fair.csv"
    frame.to_csv(path, index=False)
    want, best = fair_enumerated(X, y, g, np.ones(30), 2, 2, 0.01, 0.5, 0.1,
                                 "statistical_parity")
    code, out, _ = _run(capsys, "--csv", path, "--target", "label", "--depth", 2, "--lam",
                        0.01, "--epsilon", 0.5, "--fairness", "statistical_parity",
                        "--sensitive", "grp", "--drop-sensitive", "--fairness-cap", 0.1)
    assert code == 0
    assert f"trees in the set: {len(want):,} (exact)" in out
    assert f"fair optimum {best:.6g}" in out
    gap = max(v[1] for v in want.values())
    assert "statistical_parity <= 0.1 on the training rows" in out
    assert f"largest gap {gap:.4f}" in out


def test_fairness_flags_need_each_other(capsys):
    code, _, err = _run(capsys, "--dataset", "monk1", "--epsilon", 0.1, "--sensitive", "a1")
    assert code == 2 and "need --fairness" in err
    code, _, err = _run(capsys, "--dataset", "monk1", "--epsilon", 0.1, "--fairness",
                        "statistical_parity")
    assert code == 2 and "--fairness needs --sensitive" in err

"""CGH stops its set-up at the deadline: structural tests (stubbed steps and deadlines that
pass at a fixed point of the work), so that a loaded machine cannot break them."""

from __future__ import annotations

import numpy as np
import pytest

import optrees.cgh.paths as cgh_paths
from optrees.cgh.master import Master
from optrees.cgh.paths import PathSpace
from optrees.cgh.sampling import SplitTable, threshold_sampling
from optrees.cgh.solve import CGHSettings, solve_cgh
from optrees.solvers.deadline import Deadline
from tests.deadlines import Until


def _data(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Continuous columns: every split of them is a few hundred splits."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4)).round(3)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1)
    return X, y


def test_all_splits_row_groups_stop_between_blocks(monkeypatch):
    """splits='all' on 20,000 rows spent 30 s masking and grouping 45,000 splits with no
    deadline check; now the masks are built in blocks and the fit stops after the block in
    which the deadline passed, returning CART's start tree with status 'time_limit'."""
    X, y = _data()
    deadline = Until()
    calls: list[int] = []
    masks = SplitTable.masks

    def masks_then_expire(self, ids=None, *args, **kwargs):
        assert not deadline.over, "split masks built after the deadline passed"
        calls.append(len(ids))
        deadline.over = True  # the deadline passes during the first block
        return masks(self, ids, *args, **kwargs)

    monkeypatch.setattr(cgh_paths, "BLOCK_CELLS", 8 * len(y), raising=False)  # 8 a block
    monkeypatch.setattr(SplitTable, "masks", masks_then_expire)
    res = solve_cgh(X, y, np.arange(3), 2, deadline, CGHSettings(all_splits=True))
    assert calls == [8]  # one block of 8 splits, not the whole table of every split
    assert res.status == "time_limit" and res.stats["stop"] == "setup"
    assert res.objective == np.sum(res.model.predict_index(X) == y)


def test_add_all_matches_split_by_split():
    """The every-split table built a column at a time gives the ids and thresholds that
    adding each split alone gives (after some CART splits are already known)."""
    X, _ = _data()
    X = np.c_[X, np.ones(len(X)), X[:, 0] * 1e-8]
    one, block = SplitTable(X), SplitTable(X)
    for table in (one, block):
        table.add(0, 5), table.add(2, 17)
    ids = [one.add(f, k) for f in range(X.shape[1]) for k in range(1, len(one.uniq[f]))]
    assert block.add_all().tolist() == ids
    assert block.feature == one.feature and block.threshold == one.threshold


def _master_with_cart() -> tuple[Master, dict[int, int]]:
    """A master over every split of small data, with CART's paths as its columns."""
    X, y = _data(120)
    sets = threshold_sampling(X, y, 2, all_splits=True)
    space = PathSpace(sets, y, 3)
    cart = {j: space.position(j, sid) for j, sid in sets.cart.items()}
    master = Master(space, Deadline())
    master.add_paths(np.arange(space.n_leaves), space.tree_paths(cart))
    return master, cart


@pytest.mark.parametrize("seconds, presolve", [(0.0, "off"), (np.inf, "choose")])
def test_master_mip_presolves_only_when_its_time_pays_for_it(seconds, presolve):
    """HiGHS's MIP presolve does not look at the time limit (a master MIP given 0.2 s
    presolved for 1.3 s, of which probing and the aggregator most): those two are always
    off, and presolve is skipped when the MIP's time is less than its nonzeros cost."""
    master, cart = _master_with_cart()
    master.make_integer(cart, seconds)
    off = int(master.model.option("presolve_rule_off"))
    assert off & (1 << 15) and off & (1 << 12)  # probing, aggregator
    assert master.model.option("presolve") == presolve
    res = master.solve(Deadline(30))
    assert res.status == "optimal" and res.values is not None


def test_master_mip_is_told_its_time(monkeypatch):
    """solve_cgh gives the master MIP the time it may run, to decide on presolve."""
    told: list[float] = []
    make_integer = Master.make_integer

    def record(self, start, *args):
        told.extend(args)
        return make_integer(self, start, *args)

    monkeypatch.setattr(Master, "make_integer", record)
    X, y = _data()
    res = solve_cgh(X, y, np.arange(3), 3, Deadline(60), CGHSettings(exact_pricing="none"))
    assert res.stats["mip_status"] is not None, res.stats
    assert len(told) == 1 and 0 < told[0] <= 60

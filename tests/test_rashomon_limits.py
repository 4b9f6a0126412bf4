"""The Rashomon set's limits (issue #46, item 3): what a fit keeps for ``rashomon()``, a
count beyond the listing cap, ``max_leaves``, the fit's side objectives.  Oracles enumerate
every tree from the definition (:func:`test_rashomon.enumerated`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_rashomon import _check, _data, enumerated

from optrees import BendersOCTClassifier, BendOCTClassifier, Binarizer


def test_a_fit_encodes_its_table_once(monkeypatch):
    """BendOCT keeps the matrix its fit encoded: no transform more than the same fit of
    BendersOCT (penalty='leaves'), which keeps nothing; the set is the enumerated one."""
    from optrees.encoding import binary

    calls = []
    real = binary.Encoding.transform
    monkeypatch.setattr(binary.Encoding, "transform",
                        lambda self, df: calls.append(1) or real(self, df))
    real_bin = Binarizer.transform
    monkeypatch.setattr(Binarizer, "transform",
                        lambda self, df: calls.append(1) or real_bin(self, df))
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.integers(0, 5, 40), "b": rng.integers(0, 3, 40)})
    y = ((frame.a > 2) ^ (frame.b > 0)).to_numpy().astype(int)
    y[:4] = 1 - y[:4]
    counts = []
    for cls, kw in ((BendersOCTClassifier, {"penalty": "leaves"}), (BendOCTClassifier, {})):
        for binarizer in (Binarizer(n_bins=3), "auto"):
            calls.clear()
            cls(depth=2, lam=0.02, binarizer=binarizer, **kw).fit(frame, y)
            counts.append(len(calls))
    assert counts[:2] == counts[2:]
    fit = BendOCTClassifier(depth=2, lam=0.02, binarizer=Binarizer(n_bins=3)).fit(frame, y)
    X01 = fit.binarizer_.transform(frame)
    want, best = enumerated(X01, y, np.ones(40), 2, 2, 0.02, 0.4)
    _check(fit.rashomon(0.4), want, best, X01.shape[1])


def test_a_zero_one_fit_keeps_its_matrix():
    X, y = _data(3, 30, 4, 2)
    fit = BendOCTClassifier(depth=2, lam=0.01).fit(X, y)
    want, best = enumerated(X, y, np.ones(30), 2, 2, 0.01, 0.5)
    _check(fit.rashomon(0.5), want, best, 4)

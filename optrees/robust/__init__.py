"""Optimal robust classification trees (issue #46, item 1).

The definition, as in Justin, Aghaei, Gómez, Vayanos, *Optimal robust classification trees*
(AAAI-2022 Workshop on Adversarial Machine Learning, https://openreview.net/pdf?id=HbasA9ysA3;
arXiv:2310.17772) and ODTlearn 1.1's ``RobustOCT`` (read, not copied: ``odtlearn/robust_oct.py``
and ``utils/callback_helpers.py``, github.com/D3M-Research-Group/odtlearn):

- Features are integers. A test is ``x[f] <= t`` with ``t`` in ``min_f .. max_f - 1`` (the
  feature's training range); a row goes right when ``x[f] >= t + 1``.
- An adversary may shift row ``i``'s feature ``f`` by an integer ``xi[i, f]`` at cost
  ``gamma[i, f] * |xi[i, f]|`` (``costs``, one number per row and feature), with ONE total
  budget over the whole data set: ``sum_i sum_f gamma[i, f] |xi[i, f]| <= epsilon``. A
  shifted value stays within the feature's training range ([min_f, max_f]; ODTlearn's
  shortest-path step calls a path leaving it impossible). ODTlearn's default ``costs`` is
  ``budget + 1`` everywhere (no perturbation possible); ours is 1 (the brief's unit costs).
  ODTlearn also has a label-flip cost ``eta = budget + 1``, which never fits in the budget.
- The tree maximises its worst-case number of correctly classified rows. The paper has no
  accuracy-complexity penalty; ODTlearn subtracts ``1 / (|branch nodes| + 1)`` per branch
  node only as a tie-break (less than one row in total). ``lam`` here is that penalty per
  branch node, in accuracy units (default 0). The paper's own lambda is the calibration of
  the uncertainty set (``budget = -n log(lambda)``, ``costs = -log(1 - q_f)`` with ``q_f`` the
  probability that feature f is not shifted); :func:`costs_from_probabilities` computes it.
- Sample weights (ours; the paper has none): the objective is the worst-case correct weight.
  A row of weight ``w`` is ``floor(w)`` copies of weight 1 and one copy of the fractional
  rest, each shifted on its own at the row's costs, so integer weights are duplicated rows
  (:mod:`.adversary` solves that knapsack exactly).

How we solve it exactly (not the paper's Benders MIP): for a fixed tree, moving row ``i``
into leaf ``l`` costs ``sum_f gamma[i, f] * dist(x[i, f], [lo_lf, hi_lf])`` (the leaf's box
met with the training range: coordinates move independently, and a feature tested twice on a
path is one interval), so the cheapest misclassification of row ``i`` is ``c_i = min`` over
the leaves whose label differs from ``y_i`` (0 when it is misclassified already, inf when no
such leaf is reachable). The adversary's best response spends the budget on the cheapest
rows: worst-case correct ``= n - max{k : sum of the k smallest c_i <= epsilon}``. The search
(:mod:`optrees.robust.search`) enumerates complete trees of the given depth (every shallower
tree is one whose sibling leaves share a label) in decreasing order of an upper bound on
their worst case, and stops when that bound meets the best worst case found (certified) or at
the time limit (the next bound is ``bound_``). The bounds: nominal accuracy (the adversary
does nothing); per root split, ``C_L(e B) + C_R((1 - e) B)``, the sides' own robust optima
when the adversary keeps every row within its side and spends a share ``e`` of the budget on
the left side, for ``e`` in 0, 1/4, 1/2, 3/4, 1 (any split of the budget between the sides is
one adversary, weaker than the free one, so each sum bounds every tree with that root); the
same with the rows of one side crossed into the other (each row of the crossed side placed
just across the split as a "ghost" whose flip costs the crossing on top of its moves within
the other side: exact for that side's leaves, so the other side's robust optimum on its rows
and the ghosts bounds every tree with that root); the sides' ranges end at their rows (the
thresholds of one gap between the rows' values share one bound: keeping the rows out of the
gap is one more adversary); per pair of side structures, the same sum with each side's best
labelling in place of ``C`` (its half-budget value orders the pairs).
"""

"""OMT: a multiway-split tree on car-evaluation, then the same with a feature-cost budget.

Each rule may only test features whose acquisition costs add up to at most the budget
([OMT] §5); the constraint is re-checked on the returned rules.
Run: python examples/multiway_tree.py
"""

import warnings

from optrees import OMTClassifier, load_dataset

X, y = load_dataset("car-evaluation")
costs = {"buying": 1.0, "maint": 1.0, "doors": 1.0, "persons": 2.0, "lug_boot": 1.0,
         "safety": 3.0}  # a rule may not test both safety and persons

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # a time-limited solve warns; the model is still returned
    # leaf_penalty=0: the paper's objective, so the LP bound and gap below are about errors
    paper = dict(depth=3, leaves=8, leaf_penalty=0, time_limit=30, random_state=0)
    free = OMTClassifier(**paper).fit(X, y)
    cheap = OMTClassifier(feature_costs=costs, rule_budget=4.0, **paper).fit(X, y)

print(free.tree_.export_text())
for name, clf in (("no budget", free), ("budget 4", cheap)):
    print(f"{name:9}: train accuracy {clf.score(X, y):.3f}, {clf.tree_.n_leaves} leaves, "
          f"LP bound {clf.bound_:g} errors, gap (IP-LP)/IP {clf.gap_:.1%}")
worst = max(sum(costs[f] for f in rule["features"]) for rule in cheap.paths_)
print(f"most expensive rule under the budget costs {worst:g}")
assert worst <= 4.0

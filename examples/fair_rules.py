"""FairRUG: a weighted rule set whose error rates differ little between groups.

The sensitive attribute here is a column of the data ("group"); the rule set is learned with
and without the disparate-mistreatment cap (DMC) and both are scored on the training data.
The cap bounds the groups' difference in average hinge loss (the LP's proxy, eq. 11-12), so
the difference in error rates shrinks but is not bounded by ``epsilon`` itself.
Run: python examples/fair_rules.py
"""

import numpy as np
import pandas as pd

from optrees import RUGClassifier, metrics

rng = np.random.default_rng(0)
n = 600
group = rng.choice(["a", "b"], size=n, p=[0.7, 0.3])
income = rng.normal(50, 15, n) + np.where(group == "b", -8, 0)
debt = rng.normal(20, 8, n)
y = np.where(income - debt + rng.normal(0, 8, n) > 28, "repaid", "default")
X = pd.DataFrame({"income": income.round(1), "debt": debt.round(1), "group": group})

for fairness in (None, "dmc"):
    clf = RUGClassifier(max_depth=2, pen_par=1.0, fairness=fairness, sensitive="group",
                        epsilon=0.01, drop_sensitive=True, time_limit=30,
                        random_state=0).fit(X, y)
    pred = clf.predict(X)
    gap = metrics.dmc_gap(y, pred, group)  # largest per-class difference in error rates
    print(f"fairness={fairness}: {len(clf.rules_)} rules, accuracy {np.mean(pred == y):.3f}, "
          f"DMC gap between groups {gap:.3f}")
print(clf.rules_.export_text())
print("why sample 0 got its class:", clf.explain(X.iloc[:1])[0])

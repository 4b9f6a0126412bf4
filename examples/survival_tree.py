"""An optimal survival tree on the bundled synthetic-survival data (known truth: stage III
quadruples the hazard, age over 65 doubles it in stages I-II, treatment halves it), next to
scikit-survival's greedy tree when it is installed: the tree with each leaf's hazard ratio and
Kaplan–Meier curve, the proof, the C-index, and the saved model.

Run: python examples/survival_tree.py [OUTPUT_DIR]
(OUTPUT_DIR is created if missing; default: a new temporary folder)
"""

import sys
import tempfile
from pathlib import Path

from sklearn.model_selection import train_test_split

from optrees import OptimalSurvivalTree, load_dataset, load_model, save_model
from optrees.datasets.synthetic import TRUE_HAZARD_RATIOS

out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)
X, y = load_dataset("synthetic-survival")  # y: structured array of (event, time)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
print("true hazard ratios:", TRUE_HAZARD_RATIOS)

tree = OptimalSurvivalTree(depth=2, lam=0.01, min_samples_leaf=10, time_limit=60,
                           random_state=0).fit(X_train, y_train)
print(tree.export_text())
print(f"{tree.status_}, gap {tree.gap_:.2%}; C-index train {tree.score(X_train, y_train):.3f}, "
      f"test {tree.score(X_test, y_test):.3f}")
tree.plot(out / "tree.png")  # each leaf: its hazard ratio and the Kaplan–Meier curve

try:  # the greedy log-rank tree of the same depth, as a reference
    from sksurv.tree import SurvivalTree

    from optrees.estimators.survival import concordance_index

    encoded = X_train.assign(stage=X_train["stage"].cat.codes)
    greedy = SurvivalTree(max_depth=2, min_samples_leaf=10).fit(encoded, y_train)
    risk = greedy.predict(X_test.assign(stage=X_test["stage"].cat.codes))
    print(f"scikit-survival SurvivalTree, depth 2: test C-index "
          f"{concordance_index(y_test['event'], y_test['time'], risk):.3f}")
except ImportError:
    print("(scikit-survival is not installed: no greedy reference)")

save_model(tree, out / "survival_tree.json")
again = load_model(out / "survival_tree.json")
assert (again.predict(X_test) == tree.predict(X_test)).all()
print(f"saved and reloaded: {out / 'survival_tree.json'}")

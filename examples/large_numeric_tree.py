"""CGH: a depth-3 tree with real thresholds on numeric data, compared with CART.

Run: python examples/large_numeric_tree.py
"""

from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from optrees import CGHClassifier

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
clf = CGHClassifier(depth=3, time_limit=10, random_state=0).fit(X, y)
cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
print(clf.tree_.export_text())
print(f"CGH  train accuracy {clf.score(X, y):.4f}  (LP value {clf.lp_bound_:.1f} correct rows)")
print(f"CART train accuracy {cart.score(X, y):.4f}")

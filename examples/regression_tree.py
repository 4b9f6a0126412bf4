"""An optimal regression tree on the bundled liver-disorders data, next to CART: leaf means,
the proof, R², the picture and the saved model.

Run: python examples/regression_tree.py [OUTPUT_DIR]
(OUTPUT_DIR is created if missing; default: a new temporary folder)
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.tree import DecisionTreeRegressor

from optrees import OptimalTreeRegressor, load_dataset, load_model, save_model

out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)
X, y = load_dataset("liver-disorders")  # five blood tests; drinks: half-pints per day
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

for depth in (2, 3):
    reg = OptimalTreeRegressor(depth=depth, min_samples_leaf=10, time_limit=60,
                               random_state=0).fit(X_train, y_train)
    cart = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=10,
                                 random_state=0).fit(X_train, y_train)
    sse = {name: float(np.sum((y_train - m.predict(X_train)) ** 2)) for name, m in
           (("optimal", reg), ("CART", cart))}
    print(f"depth {depth}: {reg.status_}, gap {reg.gap_:.2%}; training SSE {sse['optimal']:.1f}"
          f" (CART {sse['CART']:.1f}); test R² {reg.score(X_test, y_test):.3f} "
          f"(CART {cart.score(X_test, y_test):.3f})")

# the exact fit follows the training rows more closely than CART: choose the leaf size by
# 5-fold cross-validation (R²) for both, at depth 3
grid = {"min_samples_leaf": [10, 20, 30]}
reg = GridSearchCV(OptimalTreeRegressor(depth=3, time_limit=60, random_state=0), grid,
                   cv=5).fit(X_train, y_train).best_estimator_
cart = GridSearchCV(DecisionTreeRegressor(max_depth=3, random_state=0), grid,
                    cv=5).fit(X_train, y_train).best_estimator_
print(f"min_samples_leaf by cross-validation: optimal {reg.min_samples_leaf}, test R² "
      f"{reg.score(X_test, y_test):.3f}; CART {cart.min_samples_leaf}, test R² "
      f"{cart.score(X_test, y_test):.3f}")
print(reg.export_text())  # each leaf: the training mean of drinks and its rows
reg.plot(path=out / "regression_tree.png")
save_model(reg, out / "regression_tree.json")
again = load_model(out / "regression_tree.json")
assert np.array_equal(again.predict(X_test), reg.predict(X_test))
print(f"wrote {out / 'regression_tree.png'} and {out / 'regression_tree.json'}")

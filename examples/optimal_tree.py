"""An optimal depth-2 tree on raw categorical data, with its gap, text, picture and JSON.

Run: python examples/optimal_tree.py [OUTPUT_DIR]
(OUTPUT_DIR is created if missing; default: a new temporary folder)
"""

import sys
import tempfile
from pathlib import Path

from sklearn.model_selection import train_test_split

from optrees import BendersOCTClassifier, load_dataset, load_model, save_model

out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)  # a new OUTPUT_DIR is created
X, y = load_dataset("monk1")  # six categorical attributes, binary label
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

clf = BendersOCTClassifier(depth=2, lam=0.0, time_limit=30, random_state=0).fit(X_train, y_train)
print(clf.tree_.export_text())
print(f"status {clf.status_}, gap {clf.gap_:.2%}")  # gap 0 means proven optimal
print(f"train accuracy {clf.score(X_train, y_train):.3f}, test {clf.score(X_test, y_test):.3f}")

clf.tree_.plot(path=out / "tree.png")
(out / "tree.dot").write_text(clf.tree_.to_dot())
save_model(clf, out / "tree.json")
again = load_model(out / "tree.json")
assert (again.predict(X_test) == clf.predict(X_test)).all()
print(f"wrote {out / 'tree.png'}, {out / 'tree.dot'} and {out / 'tree.json'}")

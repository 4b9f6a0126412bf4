"""Accelerated BendOCT: accuracy minus a penalty per leaf, checked against CART.

Run: python examples/accelerated_tree.py
"""

from sklearn.tree import DecisionTreeClassifier

from optrees import BendOCTClassifier, Binarizer, load_dataset

X, y = load_dataset("monk1")
binarizer = Binarizer()  # one-hot literals such as "a5 = 1"
Xb = binarizer.fit_transform(X)

clf = BendOCTClassifier(depth=3, lam=0.01, time_limit=30, random_state=0).fit(Xb, y)
cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(Xb, y)
print(clf.tree_.export_text([lit.name for lit in binarizer.literals_]))
print(f"BendOCT: {clf.tree_.n_leaves} leaves, train accuracy {clf.score(Xb, y):.3f}, "
      f"status {clf.status_}, gap {clf.gap_:.2%}")
print(f"CART   : {cart.get_n_leaves()} leaves, train accuracy {cart.score(Xb, y):.3f}")

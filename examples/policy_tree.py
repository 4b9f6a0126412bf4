"""An optimal policy tree on the bundled synthetic policy-trial data (three treatments, known
counterfactuals): which treatment for whom, with and without a budget on surgery, judged on
held-out rows by the share given their best treatment and the regret; the picture and the
saved model.

Run: python examples/policy_tree.py [OUTPUT_DIR]
(OUTPUT_DIR is created if missing; default: a new temporary folder)
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from optrees import OptimalPolicyTree, load_dataset, load_model, save_model

out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)
X, y = load_dataset("policy-trial")  # treatments 0 none, 1 drug, 2 surgery
features = ["age", "smoker", "bmi", "sex"]
train, test = train_test_split(np.arange(len(y)), test_size=0.3, random_state=0)
truth = X[["mu_0", "mu_1", "mu_2"]].to_numpy()[test]  # the true mean outcome of each

for budget in (None, {2: 0.15}):  # at most 15 % of the patients may have surgery
    policy = OptimalPolicyTree(depth=3, teacher="dr", treatment_budget=budget,
                               random_state=0).fit(
        X[features].iloc[train], X["treatment"].iloc[train], y.iloc[train],
        propensity=X["propensity"].iloc[train])  # outcome models: cross-fitted
    given = policy.predict(X[features].iloc[test])
    regret = np.mean(truth.max(axis=1) - truth[np.arange(len(test)), given])
    print(f"budget {budget}: {policy.status_}, gap {policy.gap_:.2%} (over "
          f"{policy.thresholds_} thresholds); training shares "
          f"{np.round(policy.treatment_shares_, 3)}; test: best treatment for "
          f"{np.mean(given == truth.argmax(axis=1)):.1%}, regret {regret:.3f}")

print(policy.export_text())  # each leaf: treatment, weight, estimated outcome
policy.plot(path=out / "policy_tree.png")
save_model(policy, out / "policy_tree.json")
again = load_model(out / "policy_tree.json")
assert np.array_equal(again.predict(X[features]), policy.predict(X[features]))
print(f"wrote {out / 'policy_tree.png'} and {out / 'policy_tree.json'}")

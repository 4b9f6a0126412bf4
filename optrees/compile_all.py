"""``python -m optrees.compile_all``: compile every numba kernel of the package into
numba's disk cache (or load it from there): the 0/1 and numeric searches, the regression
searches (every threshold, 0/1 columns) and RUG's pricing tree.  Run once after an install,
so that no later fit pays for a compilation.  (A module of its own: :mod:`.compiled`, which every
kernel's user imports, must not import them.)"""

from __future__ import annotations


def compile_everything() -> None:
    """Compile (or load) every kernel."""
    from .rug.pricing import _compile as compile_pricing_tree
    from .trees.search.binary.warmup import compile_node3
    from .trees.search.numeric.warmup import compile_kernels as compile_numeric
    from .trees.search.regression.binary_kernels import compile_kernels as compile_binary
    from .trees.search.regression.kernels import compile_kernel as compile_regression

    compile_numeric(deep=True)  # the 0/1 search's kernels too
    compile_node3()  # and its compiled depth-3 node (long: only here or in a long fit)
    compile_regression()
    compile_binary()  # the regression search on 0/1 columns
    compile_pricing_tree()


if __name__ == "__main__":  # pragma: no cover - a command
    compile_everything()

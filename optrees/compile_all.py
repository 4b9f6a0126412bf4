"""``python -m optrees.compile_all``: compile every numba kernel of the package into
numba's disk cache (or load it from there): the 0/1 and numeric searches, the λ-path's
fronts, the regression
searches (every threshold, 0/1 columns; squared error and survival) and RUG's pricing
tree.  Run once after an install, so that no later fit pays for a compilation.  (A module of
its own: :mod:`.compiled`, which every kernel's user imports, must not import them.)"""

from __future__ import annotations


def compile_everything() -> None:
    """Compile (or load) every kernel."""
    from .trees.search.numeric.warmup import compile_kernels as compile_numeric

    compile_numeric(deep=True)  # the 0/1 search's kernels too
    compile_the_rest()


def compile_the_rest() -> None:
    """Every kernel but the numeric and 0/1 searches' (the test set-up compiles these two
    groups in two processes at once)."""
    from .rug.pricing import _compile as compile_pricing_tree
    from .trees.problem.objectives.survival import SurvivalLoss
    from .trees.search.binary import front_kernels, root_kernels
    from .trees.search.binary.warmup import compile_node3
    from .trees.search.regression import binary_kernels, kernels, segments

    compile_node3()  # the compiled depth-3 node (long: only here or in a long fit)
    front_kernels.compile_all()  # the λ-path's fronts
    root_kernels.compile_all()  # ... and their depth-4 nodes' shared cells
    for objective in (None, SurvivalLoss):  # squared error (the modules' own), survival
        kernels.compile_kernel(None if objective is None
                               else kernels.for_objective(objective))
        binary_kernels.compile_kernels(None if objective is None  # on 0/1 columns
                                       else binary_kernels.for_objective(objective))
    segments.compile_kernel()  # squared error's k-means bound
    compile_pricing_tree()


if __name__ == "__main__":  # pragma: no cover - a command
    compile_everything()

"""Pictures of fitted models: the public name of :mod:`optrees.export` (kept so that
``from optrees.plotting import plot_tree`` keeps working)."""

from .export import *  # noqa: F403
from .export import __all__  # noqa: F401

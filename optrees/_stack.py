"""Where a warning points: the user's line, however deep inside the package it is raised."""

from __future__ import annotations

import os
import sys

_HOME = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning raised by the caller point at the first frame
    outside the package (the user's ``fit`` line, or the library that called into ours),
    so no call site counts its own depth."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_HOME):
        frame, level = frame.f_back, level + 1
    return level

"""What every matplotlib figure of schedlab shares: the headless backend, imported lazily, and saving.

matplotlib costs about a quarter of a second to import, so no module imports it at
its top: each figure function calls :func:`pyplot` when it draws.
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["is_number", "pyplot", "save_figure"]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (files only: no display is needed or opened)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def is_number(value) -> bool:
    """Whether a table cell can be drawn: not None and not NaN."""
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def save_figure(fig, path: Path) -> Path:
    """Write ``fig`` to ``path`` (its folder created when missing) at 110 dpi, trimmed, then close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    pyplot().close(fig)
    return path

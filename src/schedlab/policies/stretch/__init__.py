"""Max-stretch scheduling of independent tasks (Saule, Bozdag and Catalyurek 2014): DASEDF, FCFS,
reservation, Split for sequential tasks; DBOS and its competitors for moldable tasks."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.policies.stretch.moldable import DBOS, ImprovedIterative, Iterative, MoldableFCFS, ScojoLike
    from schedlab.policies.stretch.sequential import DASEDF, Split, StretchFCFS

__all__ = ["DASEDF", "DBOS", "ImprovedIterative", "Iterative", "MoldableFCFS", "ScojoLike", "Split", "StretchFCFS"]

__getattr__, __dir__ = exports(
    __name__,
    {
        "DBOS": "schedlab.policies.stretch.moldable",
        "ImprovedIterative": "schedlab.policies.stretch.moldable",
        "Iterative": "schedlab.policies.stretch.moldable",
        "MoldableFCFS": "schedlab.policies.stretch.moldable",
        "ScojoLike": "schedlab.policies.stretch.moldable",
        "DASEDF": "schedlab.policies.stretch.sequential",
        "Split": "schedlab.policies.stretch.sequential",
        "StretchFCFS": "schedlab.policies.stretch.sequential",
    },
)

"""Max-stretch scheduling of independent tasks (Saule, Bozdag and Catalyurek 2014): DASEDF, FCFS,
reservation, Split for sequential tasks; DBOS and its competitors for moldable tasks."""

from schedlab.policies.stretch.moldable import DBOS, ImprovedIterative, Iterative, MoldableFCFS, ScojoLike
from schedlab.policies.stretch.sequential import DASEDF, Split, StretchFCFS

__all__ = ["DASEDF", "DBOS", "ImprovedIterative", "Iterative", "MoldableFCFS", "ScojoLike", "Split", "StretchFCFS"]

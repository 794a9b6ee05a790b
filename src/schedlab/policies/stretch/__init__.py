"""Max-stretch scheduling of independent tasks (Saule, Bozdag and Catalyurek 2014): DASEDF, FCFS,
reservation, Split for sequential tasks; DBOS and its competitors for moldable tasks."""

from schedlab.policies.stretch.sequential import DASEDF, Split, StretchFCFS

__all__ = ["DASEDF", "Split", "StretchFCFS"]

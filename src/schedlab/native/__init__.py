"""schedlab's compiled core: the extension module ``_core``, built from ``rust/`` by maturin.

It holds schedlab's one event loop (used by :mod:`schedlab.engine.simulator` for every Python
policy), FCFS, EASY and conservative backfilling on it (used by
:mod:`schedlab.policies.rigid.compiled`), the processor-set profile of the forced allocators
(``MaskProfile``, used by :mod:`schedlab.policies.rigid.profile`) and, sharing no code with them,
the validator's double-booking sweep (used by :mod:`schedlab.validation`). This package is the
bottom layer of the import contracts and only the modules its contract names import it, so the
layers above the engine and the policies never learn which implementation of a policy ran.
"""

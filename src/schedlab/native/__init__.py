"""schedlab's compiled core: the extension module ``_core``, built from ``rust/`` by maturin.

It holds the rigid-job engine with FCFS, EASY and conservative backfilling (used by
:mod:`schedlab.policies.rigid.compiled`) and, sharing no code with it, the validator's
double-booking sweep (used by :mod:`schedlab.validation`) and the processor-set profile of
forced allocators (``MaskProfile``, used by :mod:`schedlab.policies.rigid.profile`). This package is the bottom layer of
the import contracts and nothing else imports it, so the rest of schedlab never learns which
path ran.
"""

"""The campaign fixtures (a synthetic trace, spec files) for the ``schedlab campaign`` command tests."""

from campaign.conftest import make_spec, small_spec, small_text, trace  # noqa: F401  (fixtures)

"""Shared test set-up: Hypothesis profiles and the location of the real traces."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def traces_dir() -> Path:
    """The shared PWA traces (``../shared/traces``); tests using it skip if it is absent."""
    if not TRACES.is_dir():
        pytest.skip(f"no traces at {TRACES}")
    return TRACES


@pytest.fixture
def data_dir() -> Path:
    return DATA

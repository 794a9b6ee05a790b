"""Durations and spans as users write them, parsed the same way by every command and campaign file."""

from __future__ import annotations

import math

import pytest

from schedlab.durations import parse_duration, parse_span
from schedlab.errors import ArgumentError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("7d", 604800), ("12h", 43200), ("30m", 1800), ("90", 90), ("1w", 604800), ("1.5h", 5400), (3600, 3600.0)],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["7 days", "", "-1", "0", "nan", "inf", True, "1e400"])
def test_bad_durations_are_value_errors(text):
    with pytest.raises(ValueError, match="expected"):
        parse_duration(text)


def test_zero_only_when_allowed():
    assert parse_duration("0", allow_zero=True) == 0.0
    with pytest.raises(ArgumentError, match="> 0"):
        parse_duration("0")


@pytest.mark.parametrize(
    ("text", "span"),
    [("0:7d", (0.0, 604800.0)), ("7d:", (604800.0, math.inf)), ("1000000:2000000", (1e6, 2e6)), (":1h", (0.0, 3600.0))],
)
def test_spans(text, span):
    assert parse_span(text) == span


@pytest.mark.parametrize(("text", "message"), [("9:3", "START < END"), ("7d", "START:END"), ("a:b", "expected")])
def test_bad_spans(text, message):
    with pytest.raises(ArgumentError, match=message):
        parse_span(text)

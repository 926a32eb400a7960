"""Tests of the compiled engine."""

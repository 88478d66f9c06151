"""Benchmarks: speed and strength, measured, never asserted in tests."""

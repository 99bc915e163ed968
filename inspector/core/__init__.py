"""Headless core: loading, gating, streams and diffs. Never imports Qt."""

"""Metrics per group of tasks (per category): the per-group estimates and whether they differ."""

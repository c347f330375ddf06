"""Prefect flows, one per DVC stage: read inputs, call steps as tasks, validate, write."""

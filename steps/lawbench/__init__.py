"""LawBench as a pipeline: prompts for any model, scripted policies, and the report tables.

The 20 scorers live in `steps/lawbench/metrics/`.
"""

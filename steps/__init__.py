"""jurisflow's domain steps: plain functions over DataFrames and dataclasses (no Prefect, no fixed paths)."""

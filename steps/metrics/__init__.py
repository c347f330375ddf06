"""Rule metrics: LawBench scorers, J1 and MILE rule metrics, shared Chinese text utilities."""

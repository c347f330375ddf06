"""UCL-Bench's queries (DuckDB SQL over its Parquet views), by file stem."""

from pathlib import Path

from steps.sql import Queries

QUERIES = Queries(Path(__file__).parent)

"""J1 sources (data card)'s queries (DuckDB SQL over its Parquet views), by file stem."""

from pathlib import Path

from steps.sql import Queries

QUERIES = Queries(Path(__file__).parent)

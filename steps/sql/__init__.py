"""The result-table SQL: one `.sql` file per table, run by DuckDB over Parquet views.

The kernel's queries (the data card's shared sections, the leaderboard) are here, named by their file's stem; a
benchmark keeps its own in its package's `sql/` folder, reached through that folder's `QUERIES` (`Queries`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb
import pandas as pd

SQL_DIR = Path(__file__).parent


def query_text(name: str | Path) -> str:
    path = name if isinstance(name, Path) else SQL_DIR / f"{name}.sql"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such query")
    return path.read_text(encoding="utf-8")


def register_parquet(con: duckdb.DuckDBPyConnection, tables: dict[str, Path]) -> None:
    """Expose each Parquet file as a view named after its table."""
    for name, path in tables.items():
        literal = str(path).replace("'", "''")
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet('{literal}')")


def register_parquet_union(con: duckdb.DuckDBPyConnection, name: str, paths: list[Path]) -> None:
    """Expose several Parquet files with the same schema as one view."""
    literals = ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths)
    con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet([{literals}], union_by_name = true)")


def register_labelled_union(
    con: duckdb.DuckDBPyConnection,
    name: str,
    files: Sequence[tuple[Mapping[str, str], Path]],
    columns: Sequence[str],
) -> None:
    """Expose `columns` of several Parquet files as one view, each file's rows with its labels as constant
    columns (e.g. {"benchmark": "ucl", "table": "verdicts"})."""

    def literal(value: object) -> str:
        return "'" + str(value).replace("'", "''") + "'"

    cols = ", ".join(f'"{c}"' for c in columns)
    parts = [
        "SELECT " + "".join(f'{literal(v)} AS "{k}", ' for k, v in labels.items()) + f"{cols} "
        f"FROM read_parquet({literal(path)})"
        for labels, path in files
    ]
    con.execute(f"CREATE OR REPLACE VIEW {name} AS " + " UNION ALL ".join(parts))


def run_query(con: duckdb.DuckDBPyConnection, name: str | Path) -> pd.DataFrame:
    """Run `steps/sql/<name>.sql` (or the .sql file `name`) and return its result."""
    return con.execute(query_text(name)).df()


class Queries:
    """The `.sql` files of one folder (a benchmark's `sql/`), by stem."""

    def __init__(self, folder: Path):
        self.folder = folder

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.sql"

    def run(self, con: duckdb.DuckDBPyConnection, name: str) -> pd.DataFrame:
        return run_query(con, self.path(name))

"""Rendering result tables into Markdown reports and their long-format CSV twins."""

"""The static HTML report: one page per benchmark (tables beside the paper's, inline SVG plots) and a transcript
viewer for the dialogue benchmarks. Plain functions from DataFrames to HTML strings; no I/O here."""

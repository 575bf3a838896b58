"""Reports: summaries (data) → render (Markdown/HTML) ← plots."""

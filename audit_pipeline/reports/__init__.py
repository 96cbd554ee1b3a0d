"""Per-audit reports: one self-contained HTML page and the same content in Markdown.

``write.write_report(warehouse, audit_id, out_dir)`` is the entry point; ``data`` loads what a
report shows, ``html`` and ``markdown_report`` render it. Kept free of imports here so that the
small ``reports.markdown`` helpers stay cheap to import for asset metadata and the CLI.
"""

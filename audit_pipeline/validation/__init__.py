"""Answer validation: Self-RAG checks, confidence and recommendation, citation-audit classes.

The same functions score one answer sent over HTTP or MCP and every answer of a batch audit,
so a single validation and a weekly audit reach the same verdicts.
"""

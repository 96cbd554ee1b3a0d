"""Validation as a service: the HTTP API (``audit-pipeline serve``) and the MCP server
(``audit-pipeline mcp``), both on one :class:`ValidationService`."""

"""Writers of the documentation's reference pages, from the code they describe.

Every page under ``docs/reference/`` is generated: the configuration keys from the pydantic
models, the CLI from its argument parser, the tables and views from the warehouse's own
comments, the HTTP API from its OpenAPI schema, the MCP tools from their input schemas.
``python -m docs.gen`` writes them; ``--check`` (CI, and a test) fails when a page differs from
what the code says, so a reference page cannot drift from the code.
"""

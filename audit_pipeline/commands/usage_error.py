"""The one exception every command raises for a mistake the user can fix: exit code 2.

A module of its own so the preflight checks, which live in several modules, can all raise it
without importing each other in circles."""


class UsageError(Exception):
    """Bad configuration, arguments or inputs: exit code 2."""

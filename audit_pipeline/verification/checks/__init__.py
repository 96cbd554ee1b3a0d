"""The local verifier's checks: each reads one claim's alignment and may decide its label.

A check is a small named object with one method, ``find(alignment) -> Finding | None``, in a
module of its own (``specifics``, ``polarity``, ``rewrite``). ``chain.py`` runs the configured
ones (``detection.checks``) and picks the finding that decides; the learned model reads every
claim no check decided. The name of the deciding check is what ``verdicts.decided_by`` stores,
so an analyst can count verdicts per check in SQL.
"""

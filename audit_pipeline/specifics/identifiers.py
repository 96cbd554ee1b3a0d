"""Identifier tokens: control ids, codes and versions that name one thing exactly.

Semantic similarity is blind to "TH-CR-09" against "TH-CR-04"; an exact match on such a token is
the most specific evidence there is. One definition serves the vault search (a ranking of its
own) and the verifier (an identifier the evidence never names is a fabricated one).
"""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"(?<![\w-])(?=[\w.-]*\d)(?=[\w.-]*[A-Za-z])\w+(?:[-._]\w+)+(?![\w-])")
# The part before the last separator: "TH-AC" of "TH-AC-11", the family a control id belongs to.
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)\b", re.IGNORECASE)
_LAST_PART = re.compile(r"[-._]\w+$")


def identifier_tokens(text: str) -> list[str]:
    """Tokens such as ``TH-CR-09``, ``CC6.1`` or ``AES-256``: letters and digits, joined (an
    ordinal compound such as "18th-century" is a word, not an identifier)."""
    return list(dict.fromkeys(t for t in _IDENTIFIER.findall(text) if not _ORDINAL.match(t)))


def identifier_family(token: str) -> str:
    """``th-ac`` for ``TH-AC-11``: ids of one family name things of one kind."""
    return _LAST_PART.sub("", token.lower())

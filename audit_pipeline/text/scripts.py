"""Which writing system a text is in, as far as the claim extractor is concerned.

The offline extractor splits Latin-script prose (its sentence rules, abbreviations and claim
filters are written for it) and keeps no claim without a Latin letter or digit, so an answer in
Arabic, Hebrew, Chinese or Russian yields no claim at all: nothing in it is verified, and an
audit used to count such an answer as checked. ``unread_script`` names the script of such a
text, so completeness can count it as unverified and say why.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

# Letters the extractor reads: Latin ones. A text is "unread" when most of its letters are not.
READ_SHARE = 0.5
_NAMES = {"CJK": "CJK (Chinese/Japanese)", "HANGUL": "Hangul (Korean)"}


def _script(letter: str) -> str:
    return unicodedata.name(letter, "UNKNOWN").split(" ", 1)[0]


def unread_script(text: str | None) -> str | None:
    """The script most of ``text``'s letters are in, when that is not Latin ("Arabic",
    "Hebrew", ...); None for Latin text or text without letters."""
    letters = [char for char in text or "" if char.isalpha()]
    if not letters:
        return None
    scripts = Counter(_script(letter) for letter in letters)
    if scripts["LATIN"] / len(letters) >= READ_SHARE:
        return None
    name, _ = next((s, n) for s, n in scripts.most_common() if s != "LATIN")
    return _NAMES.get(name, name.title())

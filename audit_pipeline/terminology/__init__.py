"""Terminology truth source: a glossary (or a SKOSMOS thesaurus) that definitions are checked
against before any vault passage (issue 15, item 3)."""

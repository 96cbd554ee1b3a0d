"""Text primitives shared by every stage: tokens and stems, sentence and clause spans.

A leaf package (it imports nothing from the engine) so that claims, evidence and verification
can all split and tokenize text the same way without importing each other.
"""

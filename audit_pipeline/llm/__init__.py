"""Calling an LLM: the fenced-prompt, JSON-reply helper and what calls spent.

A leaf package (it imports nothing from the engine) shared by the claim extractor, the judge and
the suite generator, so none of those stages imports another to reach the LLM.
"""

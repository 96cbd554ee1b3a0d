"""Specifics: what an auditor would check in a claim or its evidence (numbers with units,
durations and frequencies, dates, amounts, names, identifiers), put on one scale.

A leaf package (it imports only ``text``): the evidence stage uses it to look up a claim's
names in the vault, and the verifier to ground each specific in the evidence.
"""

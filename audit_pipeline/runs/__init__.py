"""Orchestration of an audit's detection: plan batches, compute them apart, write once.

Above the compute stages (claims, evidence, verification, terminology) and the warehouse, below
the Dagster assets (``defs/``), which stay thin calls into this package. Here an audit's
evidence and verification are planned and split into batches (``detection_batches.py``), and
verdicts are carried over or marked stale (``carry_over.py``); the stages themselves take
records and return records, and the warehouse only stores them.
"""

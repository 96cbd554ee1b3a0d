"""The verifier as declared stages: each step that may set or change a claim's label is a named,
versioned, configured ``Stage``, composed by ``detection.stages`` into a ``VerifierChain``.

``base`` says what a stage is, ``cases`` what it is handed, ``registry`` how it is found by
name (this package's and plugins' through the ``audit_pipeline.stages`` entry-point group),
``chain`` how the chain runs them; the other modules are the stages this package ships.
"""

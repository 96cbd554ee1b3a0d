"""Plain typed records that cross stages and storage.

The claim, evidence, verification, assertion and scoring stages pass these between them, the
warehouse stores and loads them, and the run package hands them from one to the other. They
live at the bottom of the import order and import nothing of the project, so a stage and the
warehouse can share a record without one importing the other (``lint-imports`` holds it).
"""

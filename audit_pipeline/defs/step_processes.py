"""What every step process of a multiprocess run imports once, in the executor's fork server.

Dagster's multiprocess executor starts a process per step. With the default ``spawn`` each one
is a fresh interpreter that imports Dagster, the engine and torch again: seconds per step on a
busy 2-core machine, more than a small batch's work. With ``start_method: forkserver`` and this
module in ``preload_modules`` (``audit-pipeline run --processes N`` sets both) the server imports
them once and every step process is a fork of it.

LanceDB warns at every fork that a child might deadlock "if other state was mid-operation at
fork time". The fork server only imports LanceDB and never opens a database, so no operation
can be in flight when it forks; the warning is silenced here, in the server, and nowhere else.
"""

import warnings

import sentence_transformers  # noqa: F401  (the models' library: the engine imports it lazily)

import audit_pipeline.defs.graph  # noqa: F401  (the job's module: Dagster and the engine)

warnings.filterwarnings(
    "ignore", message="lancedb fork support is experimental", category=RuntimeWarning
)

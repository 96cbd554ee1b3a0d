"""The Celery app a worker of the ``celery`` executor runs (``celery -A
audit_pipeline.defs.celery_workers worker -Q dagster --concurrency 1``), on the broker named by
``$AUDIT_CELERY_BROKER``.

Importing it marks the process (and the pool processes it forks) as a cluster worker: a step
that would open the warehouse here fails instead of becoming its second writer.
"""

from audit_pipeline.defs.celery_cluster import broker_from_environment, celery_app
from audit_pipeline.defs.cluster_execution import mark_cluster_worker

mark_cluster_worker()
app = celery_app(*broker_from_environment())

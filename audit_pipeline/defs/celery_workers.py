"""The Celery app a worker of the ``celery`` executor runs (``celery -A
audit_pipeline.defs.celery_workers worker -Q dagster --concurrency 1``), on the broker named by
``$AUDIT_CELERY_BROKER``.

The app is built when Celery asks for ``app``, not at import: importing the module (a
documentation tool, a test that imports every module) needs no broker. Building it marks the
process (and the pool processes it forks) as a cluster worker: a step that would open the
warehouse there fails instead of becoming its second writer.
"""

from celery import Celery

from audit_pipeline.defs.celery_cluster import broker_from_environment, celery_app
from audit_pipeline.defs.cluster_execution import mark_cluster_worker


def __getattr__(name: str) -> Celery:
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    mark_cluster_worker()
    app = celery_app(*broker_from_environment())
    globals()["app"] = app
    return app

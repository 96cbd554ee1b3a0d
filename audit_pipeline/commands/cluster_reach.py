"""Whether a cluster's address answers, and how many workers stand behind it, asked before an
audit starts.

A dead broker or scheduler used to be found by the run itself: after the vault was indexed and
the target answered, as ``error: TimeoutError`` 38 s later, naming no address. Here a TCP
connection to the address is tried first (a refused port fails at once, a silent host within
``CONNECT_TIMEOUT_S``), then the cluster is asked for its workers. Every message names the
address with a broker's password masked: the URL comes from the environment and may carry one.
"""

from __future__ import annotations

import socket
from urllib.parse import SplitResult, urlsplit

from audit_pipeline.commands.usage_error import UsageError

CONNECT_TIMEOUT_S = 5.0
WORKERS_TIMEOUT_S = 10.0  # for the scheduler's or broker's answer about its workers
PING_TIMEOUT_S = 2.0  # how long Celery workers have to answer a ping
# Brokers Celery (kombu) reaches over TCP, with their default ports.
BROKER_PORTS = {
    "redis": 6379,
    "rediss": 6379,
    "amqp": 5672,
    "amqps": 5671,
    "pyamqp": 5672,
    "librabbitmq": 5672,
}
DASK_PORT = 8786


def masked(url: str) -> str:
    """``url`` with any password replaced by ``***`` (``redis://:***@host:6379/0``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def _parts(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        return None
    return parts


def check_broker_url(url: str, where: str) -> None:
    """``UsageError`` unless ``url`` is a broker URL Celery reaches over TCP."""
    parts = _parts(url)
    if parts is None or parts.scheme not in BROKER_PORTS or not parts.hostname:
        schemes = ", ".join(sorted(BROKER_PORTS))
        raise UsageError(
            f"{where} is {masked(url)!r}, which is not a broker URL: write "
            f"redis://HOST:PORT/0 (schemes: {schemes})"
        )


def check_reachable(url: str, where: str) -> None:
    """``UsageError`` naming the address when nothing accepts a TCP connection there."""
    parts = _parts(url)
    if parts is None or not parts.hostname:
        raise UsageError(f"{where} {masked(url)!r} names no host")
    port = parts.port or BROKER_PORTS.get(parts.scheme, DASK_PORT)
    try:
        with socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_S):
            return
    except ConnectionRefusedError:
        why = "connection refused: nothing listens on that port"
    except TimeoutError:
        why = f"no answer within {CONNECT_TIMEOUT_S:g} s"
    except socket.gaierror:
        why = f"the host name {parts.hostname!r} does not resolve"
    except OSError as error:
        why = error.strerror or str(error)
    raise UsageError(f"{where} {masked(url)} cannot be reached ({why})")


def dask_workers(address: str) -> int:
    """The workers the Dask scheduler at ``address`` has now."""
    from dask.distributed import Client

    try:
        with Client(address, timeout=WORKERS_TIMEOUT_S) as client:
            return len(client.nthreads())
    except (OSError, TimeoutError) as error:
        raise UsageError(
            f"--scheduler {address} answers, but not as a Dask scheduler: {error}"
        ) from None


def celery_workers(broker: str) -> int:
    """The Celery workers that answer a ping on ``broker`` now. A bare app asks: the run's own
    (``celery_cluster.celery_app``) registers dagster-celery's task, which may be done once
    per process."""
    from celery import Celery

    app = Celery(broker=broker)
    try:
        return len(app.control.ping(timeout=PING_TIMEOUT_S) or [])
    except Exception as error:  # kombu's errors have no common base worth naming
        raise UsageError(
            f"the broker {masked(broker)} answers, but Celery cannot use it: "
            f"{str(error).splitlines()[0] if str(error) else type(error).__name__}"
        ) from None
    finally:
        app.close()

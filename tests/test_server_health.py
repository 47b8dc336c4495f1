"""The health servicer tells watchers a new status without waiting for grpc while it holds its lock
(no deadlock on a stop), using grpc_health's public API only (see server/runtime/health.py).

Each test plays grpc's part with one thread as grpc's event thread: a watcher's stream closing runs
its close callback there, and that callback takes the servicer's lock.
"""

import threading

from grpc_health.v1 import health, health_pb2

from server.runtime.health import health_servicer

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
WAIT_S = 2.0


class Context:
    """What ``Watch`` asks of a grpc context: it registers the stream's close callback."""

    def __init__(self):
        self.on_close = []

    def add_callback(self, callback) -> bool:
        self.on_close.append(callback)
        return True


def shutdown_while_a_watcher_closes(servicer, non_blocking: bool) -> tuple:
    """A stop's ``enter_graceful_shutdown`` while the only watcher's stream closes as the news goes
    out; grpc's send waits for its event thread, which runs the close callback. (whether every wait
    ended without timing out, the statuses the watcher was sent)."""
    context, sent, timed_out = Context(), [], []
    closed = threading.Event()

    def close_on_event_thread():
        for callback in context.on_close:
            callback()
        closed.set()

    def grpc_send(response):
        if response is None:  # the stream is over
            return
        sent.append(response.status)
        if response.status == NOT_SERVING:
            threading.Thread(target=close_on_event_thread, daemon=True).start()
            if not closed.wait(WAIT_S):  # grpc would wait for ever: a deadlock
                timed_out.append("send")

    request = health_pb2.HealthCheckRequest(service="")
    if non_blocking:
        servicer.Watch(request, context, grpc_send)
        sender = None
    else:  # a server thread sends from the watcher's queue
        responses = servicer.Watch(request, context)
        sender = threading.Thread(target=lambda: [grpc_send(r) for r in responses], daemon=True)
        sender.start()
    stopper = threading.Thread(target=servicer.enter_graceful_shutdown, daemon=True)
    stopper.start()
    stopper.join(3 * WAIT_S)
    if sender is not None:
        sender.join(3 * WAIT_S)
    if stopper.is_alive() or (sender is not None and sender.is_alive()) or not closed.wait(WAIT_S):
        timed_out.append("stop")
    return not timed_out, sent


def test_the_servers_health_stops_while_a_watcher_closes():
    in_time, sent = shutdown_while_a_watcher_closes(health_servicer(), non_blocking=False)
    assert in_time
    assert sent[0] == SERVING and sent[-1] == NOT_SERVING


def test_the_servers_health_ignores_a_status_once_stopping():
    servicer = health_servicer()
    servicer.enter_graceful_shutdown()
    servicer.set("", SERVING)  # ignored once shutting down
    assert servicer.Check(health_pb2.HealthCheckRequest(service=""), Context()).status == NOT_SERVING


def test_the_library_default_deadlocks_when_a_watcher_closes():
    """Why the server uses the blocking mode: in grpc_health's default (non-blocking) mode the send
    happens under the servicer's lock, and the closing watcher's callback waits for that lock while
    the send waits for it. If this starts failing, the library has fixed it and its default would do."""
    in_time, sent = shutdown_while_a_watcher_closes(health.HealthServicer(), non_blocking=True)
    assert not in_time and sent == [SERVING, NOT_SERVING]

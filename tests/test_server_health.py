"""The health servicer tells watchers a new status without holding its lock (no stop deadlock)."""

import threading

from grpc_health.v1 import health, health_pb2

from server.app import HealthServicer


def lock_free_while_sending(servicer) -> list:
    """Register a watcher that, when told, checks from another thread that the lock is free."""
    seen = []

    def watcher(response):
        def try_lock():
            got = servicer._lock.acquire(timeout=0.5)
            if got:
                servicer._lock.release()
            seen.append((got, response.status))

        thread = threading.Thread(target=try_lock)
        thread.start()
        thread.join()

    servicer._send_response_callbacks[""] = {watcher}
    return seen


def test_watchers_are_told_not_serving_outside_the_lock():
    servicer = HealthServicer()
    seen = lock_free_while_sending(servicer)
    servicer.enter_graceful_shutdown()
    assert seen == [(True, health_pb2.HealthCheckResponse.NOT_SERVING)]
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)  # ignored once shutting down
    assert servicer._server_status[""] == health_pb2.HealthCheckResponse.NOT_SERVING and len(seen) == 1


def test_the_library_servicer_holds_its_lock_while_sending():
    """Why the subclass exists: grpc_health's own servicer sends under its lock (a closing
    watcher's callback, on grpc's event thread, then waits for that lock while the send waits for
    that thread). If this starts failing, the library has fixed it and the subclass can go."""
    servicer = health.HealthServicer()
    seen = lock_free_while_sending(servicer)
    servicer.enter_graceful_shutdown()
    assert seen == [(False, health_pb2.HealthCheckResponse.NOT_SERVING)]

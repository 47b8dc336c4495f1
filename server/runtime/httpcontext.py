"""A gRPC servicer context for a call that came in over HTTP.

The HTTP gateway hands the very same servicer methods (:mod:`server.translation.service`) a stand-in for
``grpc.ServicerContext``, so both transports run one code path: the deadline is the search's
deadline, ending the call trips the search's cancel token, and ``abort`` ends the handler with a
``google.rpc.Status`` that the gateway writes as the JSON error body.
"""

from __future__ import annotations

import threading
import time

import grpc
from google.rpc import status_pb2

STATUS_DETAILS_KEY = "grpc-status-details-bin"


class Aborted(Exception):
    """Raised by :meth:`HttpContext.abort`, as grpc raises inside a handler; carries the status."""

    def __init__(self, status: status_pb2.Status):
        super().__init__(status.message)
        self.status = status


class HttpContext:
    """What the servicer uses of ``grpc.ServicerContext``; ``deadline`` is a ``time.monotonic()`` instant."""

    def __init__(self, *, deadline: float | None = None, metadata=(), peer: str = ""):
        self._deadline = deadline
        self._metadata = tuple(metadata)
        self._peer = peer
        self._callbacks: list = []
        self._ended = False
        self._lock = threading.Lock()
        self._code = None
        self._details: str | None = None

    # --- the call's life --------------------------------------------------------------------

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def add_callback(self, callback) -> bool:
        with self._lock:
            if self._ended:
                return False
            self._callbacks.append(callback)
            return True

    def end(self) -> None:
        """The call is over (answered, timed out, client gone): run the callbacks once."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def is_active(self) -> bool:
        return not self._ended

    def cancel(self) -> None:
        self.end()

    def invocation_metadata(self):
        return self._metadata

    def peer(self) -> str:
        return self._peer

    # --- the outcome ------------------------------------------------------------------------

    def abort(self, code: grpc.StatusCode, details: str):
        self._code, self._details = code, details
        raise Aborted(status_pb2.Status(code=code.value[0], message=details))

    def abort_with_status(self, status: grpc.Status):
        """``status`` as ``grpc_status.rpc_status.to_status`` builds it: the full Status rides in its metadata."""
        self._code, self._details = status.code, status.details
        for key, value in status.trailing_metadata or ():
            if key == STATUS_DETAILS_KEY:
                raise Aborted(status_pb2.Status.FromString(value))
        raise Aborted(status_pb2.Status(code=status.code.value[0], message=status.details))

    def set_code(self, code) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def code(self):
        return self._code

    def details(self):
        return self._details

    def set_trailing_metadata(self, metadata) -> None:
        pass  # nothing to carry it over HTTP/1.1 JSON

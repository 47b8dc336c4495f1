"""Every call: one log line, long-lived streams capped, undecodable requests refused cleanly.

- One line per call (logger ``server.calls``): method, status code, latency; never a traceback
  for a client's mistake.
- Long-lived calls other than the work (reflection streams, health Watch) are capped at
  ``max_streams`` open at once, so that idle streams can never hold every server thread; one more
  gets RESOURCE_EXHAUSTED.
- A request that is not a valid protobuf message of its method gets INVALID_ARGUMENT (grpc itself
  would log a traceback and answer INTERNAL).
"""

from __future__ import annotations

import functools
import logging
import threading
import time

import grpc

log = logging.getLogger("server.calls")

WORK_SERVICE = "/route18xx.v1.RouteOptimizer/"
MAX_WRAPPED = 256  # handlers wrapped once and kept: the server's methods, a few dozen


def _code(context, failed: bool) -> str:
    code = context.code()
    if code is not None:
        return code.name
    if failed:
        return "UNKNOWN"
    return "OK" if context.is_active() else "CANCELLED"


def _log(method: str, context, failed: bool, start: float) -> None:
    log.info("%s %s %.1f ms", method, _code(context, failed), (time.monotonic() - start) * 1000)


class _Undecodable:
    """Stands for a request that could not be parsed, so that the handler can refuse it."""

    def __init__(self, err: Exception):
        self.reason = f"{type(err).__name__}"


def _tolerant(deserializer):
    @functools.wraps(deserializer)
    def parse(data):
        try:
            return deserializer(data)
        except Exception as err:  # noqa: BLE001 - any malformed bytes
            return _Undecodable(err)

    return parse


def _refuse_undecodable(request, context, method) -> None:
    if isinstance(request, _Undecodable):
        context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request is not a valid {method.rsplit('/', 1)[-1]} message ({request.reason})",
        )


def _unary_response(behavior, method):
    @functools.wraps(behavior)  # keeps grpc's experimental_* attributes
    def logged(request, context, *args, **kwargs):
        start = time.monotonic()
        failed = True
        try:
            _refuse_undecodable(request, context, method)
            response = behavior(request, context, *args, **kwargs)
            failed = False
            return response
        finally:
            _log(method, context, failed, start)

    return logged


def _streaming_response(behavior, method):
    def stream(responses, context, start):
        failed = True
        try:
            yield from responses
            failed = False
        except GeneratorExit:  # the call ended under us (cancelled): not a failure of ours
            failed = False
            raise
        finally:
            _log(method, context, failed, start)

    @functools.wraps(behavior)
    def logged(request, context, *args, **kwargs):
        start = time.monotonic()
        try:
            _refuse_undecodable(request, context, method)
            responses = behavior(request, context, *args, **kwargs)
        except BaseException:
            _log(method, context, True, start)
            raise
        if responses is None:  # a non-blocking handler (health Watch) answers through a callback
            context.add_callback(lambda: _log(method, context, False, start))
            return None
        return stream(responses, context, start)

    return logged


class _StreamCap:
    """How many long-lived calls are open; more than ``most`` are refused."""

    def __init__(self, most: int):
        self.most, self.open = most, 0
        self._lock = threading.Lock()

    def wrap(self, behavior):
        @functools.wraps(behavior)
        def capped(request, context, *args, **kwargs):
            with self._lock:
                full = self.open >= self.most
                if not full:
                    self.open += 1
            if full:
                context.abort(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"too many open streams (at most {self.most}); close one and retry",
                )
            released = threading.Event()

            def release():
                if not released.is_set():
                    released.set()
                    with self._lock:
                        self.open -= 1

            if not context.add_callback(release):
                release()
            try:
                result = behavior(request, context, *args, **kwargs)
            except BaseException:
                release()
                raise
            if result is None or not hasattr(result, "__next__"):
                return result  # non-blocking (health Watch): released when the call ends
            return self._released_after(result, release)

        return capped

    @staticmethod
    def _released_after(responses, release):
        try:
            yield from responses
        finally:
            release()


class LoggingInterceptor(grpc.ServerInterceptor):
    """Wraps each method's handler: logged with its code and latency, streams capped, input checked."""

    def __init__(self, max_streams: int = 64):
        self._streams = _StreamCap(max_streams)
        self._wrapped: dict = {}  # (method, its handler) -> the handler wrapped: built once, not per call

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        key = (handler_call_details.method, handler)
        wrapped = self._wrapped.get(key)
        if wrapped is None:
            wrapped = self._wrap(handler, handler_call_details.method)
            if len(self._wrapped) < MAX_WRAPPED:  # a handler made anew per call is wrapped per call
                self._wrapped[key] = wrapped
        return wrapped

    def _wrap(self, handler, method: str):
        long_lived = (handler.request_streaming or handler.response_streaming) and not method.startswith(WORK_SERVICE)
        if not handler.request_streaming and handler.request_deserializer is not None:
            handler = handler._replace(request_deserializer=_tolerant(handler.request_deserializer))
        for kind in ("unary_unary", "stream_unary", "unary_stream", "stream_stream"):
            behavior = getattr(handler, kind)
            if behavior is None:
                continue
            if long_lived:
                behavior = self._streams.wrap(behavior)
            wrap = _streaming_response if kind.endswith("_stream") else _unary_response
            return handler._replace(**{kind: wrap(behavior, method)})
        return handler

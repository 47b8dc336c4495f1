"""Logs every call: method, status code and latency, one line each (logger ``server.calls``)."""
from __future__ import annotations

import functools
import logging
import time

import grpc

log = logging.getLogger("server.calls")


def _code(context, failed: bool) -> str:
    code = context.code()
    if code is not None:
        return code.name
    if failed:
        return "UNKNOWN"
    return "OK" if context.is_active() else "CANCELLED"


def _log(method: str, context, failed: bool, start: float) -> None:
    log.info("%s %s %.1f ms", method, _code(context, failed), (time.monotonic() - start) * 1000)


def _unary_response(behavior, method):
    @functools.wraps(behavior)  # keeps grpc's experimental_* attributes
    def logged(request, context, *args, **kwargs):
        start = time.monotonic()
        failed = True
        try:
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
            responses = behavior(request, context, *args, **kwargs)
        except BaseException:
            _log(method, context, True, start)
            raise
        if responses is None:  # a non-blocking handler (health Watch) answers through a callback
            context.add_callback(lambda: _log(method, context, False, start))
            return None
        return stream(responses, context, start)
    return logged


class LoggingInterceptor(grpc.ServerInterceptor):
    """Wraps each method's handler so that its end is logged with its code and latency."""

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        if handler.unary_unary:
            return handler._replace(unary_unary=_unary_response(handler.unary_unary, method))
        if handler.stream_unary:
            return handler._replace(stream_unary=_unary_response(handler.stream_unary, method))
        if handler.unary_stream:
            return handler._replace(unary_stream=_streaming_response(handler.unary_stream, method))
        return handler._replace(stream_stream=_streaming_response(handler.stream_stream, method))

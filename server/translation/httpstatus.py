"""``google.rpc.Status`` over HTTP: the HTTP status of each code, the JSON error body, the body limit."""

from __future__ import annotations

from typing import NoReturn

import anyio
from google.protobuf import json_format
from google.rpc import code_pb2, status_pb2
from starlette.responses import JSONResponse

from ..runtime.httpcontext import Aborted
from .errors import RETRY_AFTER_S, is_busy

# google.rpc.Code -> HTTP status (google/rpc/code.proto), except RESOURCE_EXHAUSTED: here it
# means "request too large", 413; a busy server (ErrorInfo reason SERVER_BUSY) is 503 with Retry-After.
HTTP_STATUS = {
    code_pb2.OK: 200,
    code_pb2.CANCELLED: 499,
    code_pb2.UNKNOWN: 500,
    code_pb2.INVALID_ARGUMENT: 400,
    code_pb2.DEADLINE_EXCEEDED: 504,
    code_pb2.NOT_FOUND: 404,
    code_pb2.ALREADY_EXISTS: 409,
    code_pb2.PERMISSION_DENIED: 403,
    code_pb2.UNAUTHENTICATED: 401,
    code_pb2.RESOURCE_EXHAUSTED: 413,
    code_pb2.FAILED_PRECONDITION: 400,
    code_pb2.ABORTED: 409,
    code_pb2.OUT_OF_RANGE: 400,
    code_pb2.UNIMPLEMENTED: 501,
    code_pb2.INTERNAL: 500,
    code_pb2.UNAVAILABLE: 503,
    code_pb2.DATA_LOSS: 500,
}


def status_json(status: status_pb2.Status) -> dict:
    return json_format.MessageToDict(status)


def error_response(status: status_pb2.Status) -> JSONResponse:
    if status.code == code_pb2.RESOURCE_EXHAUSTED and is_busy(status):
        return JSONResponse(status_json(status), status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})
    return JSONResponse(status_json(status), status_code=HTTP_STATUS.get(status.code, 500))


def abort(code: int, message: str) -> NoReturn:
    """End the call with this status (the gateway answers it as :func:`error_response`)."""
    raise Aborted(status_pb2.Status(code=code, message=message))


async def read_body(request, limit: int, hold=None, timeout_s: float | None = None) -> bytes:
    """The body, refused (RESOURCE_EXHAUSTED) as soon as it is known to pass ``limit`` bytes; each
    chunk added to ``hold`` (a :class:`~server.runtime.admission.Hold`: busy when too much is held); ended
    (DEADLINE_EXCEEDED) when it has not all come within ``timeout_s``."""
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > limit:
        abort(code_pb2.RESOURCE_EXHAUSTED, f"request of {length} bytes is larger than the limit of {limit}")
    body = bytearray()
    with anyio.move_on_after(timeout_s):
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                abort(code_pb2.RESOURCE_EXHAUSTED, f"request is larger than the limit of {limit} bytes")
            if hold is not None:
                hold.add(len(chunk))
        return bytes(body)
    abort(code_pb2.DEADLINE_EXCEEDED, f"the request's body did not all come within {timeout_s:g} s")

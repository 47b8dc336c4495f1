"""A user's mistake as a gRPC status: INVALID_ARGUMENT with details naming the field and the hex.

Clients read the details with ``grpc_status.rpc_status.from_call``: a ``google.rpc.BadRequest``
(one field violation: the field path and the message) and a ``google.rpc.ErrorInfo`` (metadata
``field`` and ``hex``). Anything else that goes wrong is INTERNAL and logged, never UNKNOWN.
"""
from __future__ import annotations

import contextlib
import logging

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from optimizer.errors import OptimizerError, RoutesError

log = logging.getLogger(__name__)

DOMAIN = "route18xx.v1"
WHOLE_DOCUMENT = "(document)"  # optimizer.errors' name for "the board as a whole"


def _packed(message) -> any_pb2.Any:
    out = any_pb2.Any()
    out.Pack(message)
    return out


def invalid_argument(err: OptimizerError, source: str = "") -> grpc.Status:
    """The status for a user's mistake; ``source`` ("board" or "state_json") names the whole board."""
    return rpc_status.to_status(invalid_argument_status(err, source))


def invalid_argument_status(err: OptimizerError, source: str = "") -> status_pb2.Status:
    """The ``google.rpc.Status`` of :func:`invalid_argument` (the HTTP gateway writes it as JSON)."""
    field = err.field or WHOLE_DOCUMENT
    if field == WHOLE_DOCUMENT and source:
        field = source
    reason = "INVALID_ROUTES" if isinstance(err, RoutesError) else "INVALID_BOARD"
    violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=str(err), reason=reason)
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata={"field": field, "hex": err.hex or ""})
    return status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=str(err),
                             details=[_packed(error_details_pb2.BadRequest(field_violations=[violation])),
                                      _packed(info)])


@contextlib.contextmanager
def guard(context, source: str = ""):
    """Turn what a handler raises into a status: a user's mistake, or INTERNAL (logged)."""
    try:
        yield
    except OptimizerError as err:
        context.abort_with_status(invalid_argument(err, source))
    except Exception:
        if context.code() is not None:  # already ended by context.abort(): pass it on
            raise
        log.exception("internal error")
        context.abort(grpc.StatusCode.INTERNAL, "internal error in the optimiser (logged on the server)")

"""A user's mistake as a gRPC status: INVALID_ARGUMENT with details naming the field and the hex.

Clients read the details with ``grpc_status.rpc_status.from_call``: a ``google.rpc.BadRequest``
(one field violation: the field path and the message) and a ``google.rpc.ErrorInfo`` (metadata
``field`` and ``hex``). A request over the server's limits is RESOURCE_EXHAUSTED with the same
details, and so is a busy server; work stopped by its deadline is DEADLINE_EXCEEDED. Every message
is capped (:func:`server.runtime.limits.capped`): at most ~100 characters of the input, 1 KB in all, so
that it fits any client's metadata limit. Anything else that goes wrong is INTERNAL and logged with
its traceback, never UNKNOWN; clients' mistakes are never logged with one.
"""

from __future__ import annotations

import contextlib
import logging

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from optimizer.errors import OptimizerError, RoutesError

from ..runtime.admission import CallExpired, Overloaded
from ..runtime.limits import LimitExceeded, capped, quote

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
    """The ``google.rpc.Status`` of :func:`invalid_argument` (the HTTP gateway writes it as JSON):
    INVALID_ARGUMENT, or RESOURCE_EXHAUSTED for a request over the server's limits."""
    field = capped(err.field or WHOLE_DOCUMENT, 200)
    if field == WHOLE_DOCUMENT and source:
        field = source
    if isinstance(err, LimitExceeded):
        code, reason = code_pb2.RESOURCE_EXHAUSTED, "LIMIT_EXCEEDED"
    else:
        code, reason = code_pb2.INVALID_ARGUMENT, "INVALID_ROUTES" if isinstance(err, RoutesError) else "INVALID_BOARD"
    message = capped(str(err))
    violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=message, reason=reason)
    info = error_details_pb2.ErrorInfo(
        reason=reason, domain=DOMAIN, metadata={"field": field, "hex": capped(quote(err.hex or "", 20))}
    )
    return status_pb2.Status(
        code=code,
        message=message,
        details=[_packed(error_details_pb2.BadRequest(field_violations=[violation])), _packed(info)],
    )


BUSY_REASON = "SERVER_BUSY"
RETRY_AFTER_S = 1


def busy_status(message: str) -> status_pb2.Status:
    """RESOURCE_EXHAUSTED for a busy server (not a request too large): ErrorInfo reason SERVER_BUSY,
    which HTTP answers 503 with ``Retry-After``."""
    info = error_details_pb2.ErrorInfo(
        reason=BUSY_REASON, domain=DOMAIN, metadata={"retry_after_s": str(RETRY_AFTER_S)}
    )
    return status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message=capped(message), details=[_packed(info)])


def is_busy(status: status_pb2.Status) -> bool:
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.reason == BUSY_REASON:
                return True
    return False


@contextlib.contextmanager
def guard(context, source: str = ""):
    """Turn what a handler raises into a status: a user's mistake, or INTERNAL (logged)."""
    try:
        yield
    except OptimizerError as err:
        context.abort_with_status(invalid_argument(err, source))
    except Overloaded as err:
        context.abort_with_status(rpc_status.to_status(busy_status(str(err))))
    except CallExpired as err:
        context.abort(
            grpc.StatusCode.DEADLINE_EXCEEDED if context.is_active() else grpc.StatusCode.CANCELLED, f"stopped: {err}"
        )
    except (OverflowError, UnicodeError) as err:  # a number or string the reader let through
        field = source or "request"
        log.warning("%s rejected by %s: %s", field, type(err).__name__, quote(err))
        context.abort_with_status(
            invalid_argument(
                OptimizerError(
                    f"{field}: a number or string out of range ({type(err).__name__}: {quote(err)})", field=field
                ),
                source,
            )
        )
    except Exception:
        if context.code() is not None:  # already ended by context.abort(): pass it on
            raise
        log.exception("internal error")
        context.abort(grpc.StatusCode.INTERNAL, "internal error in the optimiser (logged on the server)")

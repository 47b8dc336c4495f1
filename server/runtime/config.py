"""How a server process listens and what it allows: read by the supervisor and every worker.

No grpc here: the supervisor of ``serve --workers N`` imports this before it forks its workers,
and a process must not have started grpc when it forks (see grpc's multiprocessing example).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path

from optimizer.errors import OptimizerError

from .limits import Limits


@dataclass(frozen=True)
class ServeConfig:
    """How a server process listens and what it allows; the same for every worker."""

    host: str = "127.0.0.1"
    port: int = 50051
    limits: Limits = field(default_factory=Limits)  # sizes, counts, times: what each call may cost
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    grace_s: float = 10.0
    http_port: int | None = None  # HTTP/JSON and the page beside gRPC (None: none)
    cors_origins: tuple = ()
    # an 18xx.games engine checkout: the page reviews whole games (server/translation/review.py)
    engine: str | None = None
    reuse_port: bool = False  # True in worker processes, which share the ports

    @property
    def address(self) -> str:
        host = self.host
        return f"[{host}]:{self.port}" if ":" in host and not host.startswith("[") else f"{host}:{self.port}"


# --- TLS ----------------------------------------------------------------------------------------


def _read(path: str, option: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise OptimizerError(f"{option}: cannot read {path}: {err.strerror}", field=option) from None


def tls_files(config: ServeConfig) -> tuple | None:
    """(key, cert, client CA or None) as bytes, each checked, naming the file that is wrong; None: no TLS."""
    if not (config.tls_cert or config.tls_key or config.tls_client_ca):
        return None
    if not (config.tls_cert and config.tls_key):
        raise OptimizerError("TLS needs both --tls-cert and --tls-key", field="--tls-cert")
    key, cert = _read(config.tls_key, "--tls-key"), _read(config.tls_cert, "--tls-cert")
    ca = _read(config.tls_client_ca, "--tls-client-ca") if config.tls_client_ca else None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    for path, option in ((config.tls_cert, "--tls-cert"), (config.tls_client_ca, "--tls-client-ca")):
        if path:
            try:
                context.load_verify_locations(cafile=path)
            except (ssl.SSLError, ValueError) as err:
                raise OptimizerError(
                    f"{option}: {path} holds no PEM certificate ({getattr(err, 'reason', None) or err})", field=option
                ) from None
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    except ssl.SSLError as err:
        raise OptimizerError(
            f"--tls-key: {config.tls_key} is not the PEM private key of {config.tls_cert} ({err.reason or err})",
            field="--tls-key",
        ) from None
    return key, cert, ca


def announcement(config: ServeConfig, grpc_port: int, http_port: int | None) -> str:
    """The ready line: ``listening on HOST:PORT[ (TLS)][, HTTP on http://HOST:PORT/]``."""
    line = f"listening on {config.host}:{grpc_port}" + (" (TLS)" if config.tls_cert else "")
    if http_port is not None:
        line += f", HTTP on http://{config.host}:{http_port}/"
    return line

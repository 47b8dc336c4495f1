"""The HTTP mapping of the RPCs, read from the gRPC API configuration beside the proto.

``proto/route18xx/v1/route_optimizer_http.yaml`` (copied into ``server/generated/`` by ``python -m
server.generate``, so an installed server has it) is a ``google.api.Service`` document whose
``http.rules`` are ``google.api.HttpRule`` messages, the convention grpc-gateway and Google's service
configs use. Keeping the mapping out of the ``.proto`` lets any stock ``protoc`` compile the proto alone.
A rule that names no RPC, or an RPC named twice, is an error when the server starts, not a missing route.
"""

from __future__ import annotations

from importlib import resources

import yaml
from google.api import http_pb2
from google.protobuf import json_format

CONFIG = ("server.generated.route18xx.v1", "route_optimizer_http.yaml")


def read_rules(service_descriptor, text: str | None = None) -> dict:
    """RPC name -> its ``HttpRule``, from the configuration (``text``, else the packaged file)."""
    if text is None:
        text = resources.files(CONFIG[0]).joinpath(CONFIG[1]).read_text(encoding="utf-8")
    config = yaml.safe_load(text)
    if not isinstance(config, dict) or config.get("type") != "google.api.Service":
        raise ValueError(f"{CONFIG[1]}: not a gRPC API configuration (type: google.api.Service)")
    prefix = service_descriptor.full_name + "."
    rules = {}
    for index, raw in enumerate((config.get("http") or {}).get("rules") or []):
        rule = json_format.ParseDict(raw, http_pb2.HttpRule())
        name = rule.selector.removeprefix(prefix)
        if not rule.selector.startswith(prefix) or name not in service_descriptor.methods_by_name:
            raise ValueError(
                f"{CONFIG[1]}: http.rules[{index}].selector {rule.selector!r} names no RPC of {prefix[:-1]}"
            )
        if name in rules:
            raise ValueError(f"{CONFIG[1]}: http.rules[{index}]: {rule.selector} has a rule already")
        if rule.WhichOneof("pattern") is None:
            raise ValueError(f"{CONFIG[1]}: http.rules[{index}]: no method and path (get, post, ...)")
        rules[name] = rule
    return rules

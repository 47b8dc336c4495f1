"""The HTTP mapping read from the gRPC API configuration beside the proto, not from the proto itself,
so that the proto imports nothing a stock ``protoc`` lacks (the routes staying those the annotations
gave: tests/test_http_jsonform.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from server import generate
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.translation import httprules

from . import ruby

ROOT = Path(__file__).resolve().parents[1]
SERVICE = pb.DESCRIPTOR.services_by_name["RouteOptimizer"]


def test_the_proto_imports_only_well_known_types():
    text = (ROOT / "proto" / generate.PROTO_FILES[0]).read_text()
    imports = re.findall(r'^import "([^"]+)";', text, flags=re.M)
    assert imports and all(i.startswith("google/protobuf/") for i in imports), imports
    assert "google.api" not in text.replace("google.api.HttpRule", "").replace("google.api.Service", "")


def test_a_stock_protoc_compiles_the_proto_alone(tmp_path):
    """Debian's protoc with no include path but ``proto/`` (its well-known types are built in)."""
    protoc = ruby.tool("protoc")
    out = subprocess.run(
        [protoc, "-I", str(ROOT / "proto"), f"--descriptor_set_out={tmp_path / 'set.pb'}", generate.PROTO_FILES[0]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "set.pb").stat().st_size > 0


def test_the_packaged_configuration_is_the_one_beside_the_proto():
    packaged = ROOT / generate.PACKAGE_DIR / generate.HTTP_CONFIG
    assert packaged.read_bytes() == (ROOT / "proto" / generate.HTTP_CONFIG).read_bytes()


CONFIG = """
type: google.api.Service
config_version: 3
http:
  rules:
{rules}
"""


@pytest.mark.parametrize(
    "rules, message",
    [
        ("    - selector: route18xx.v1.RouteOptimizer.Solve\n      post: /v1/solve", "names no RPC"),
        ("    - selector: other.v1.Service.Optimize\n      post: /v1/optimize", "names no RPC"),
        (
            "    - selector: route18xx.v1.RouteOptimizer.Optimize\n      post: /a\n"
            "    - selector: route18xx.v1.RouteOptimizer.Optimize\n      post: /b",
            "has a rule already",
        ),
        ("    - selector: route18xx.v1.RouteOptimizer.Optimize\n      body: '*'", "no method and path"),
        ("    - selector: route18xx.v1.RouteOptimizer.Optimize\n      put_it: /x", "put_it"),
    ],
)
def test_a_wrong_rule_stops_the_server_naming_it(rules, message):
    with pytest.raises(Exception, match=message):
        httprules.read_rules(SERVICE, CONFIG.format(rules=rules))


def test_a_file_that_is_not_a_service_configuration_is_refused():
    with pytest.raises(ValueError, match="google.api.Service"):
        httprules.read_rules(SERVICE, "http:\n  rules: []\n")


def test_an_rpc_without_a_rule_is_left_off_http():
    rules = httprules.read_rules(
        SERVICE, CONFIG.format(rules="    - selector: route18xx.v1.RouteOptimizer.ListGames\n      get: /v1/games")
    )
    assert list(rules) == ["ListGames"] and rules["ListGames"].get == "/v1/games"

"""Regenerate the checked-in Python stubs from ``proto/``: ``python -m server.generate``.

It also copies the HTTP mapping (``route_optimizer_http.yaml``, the gRPC API configuration beside the
proto) into the package, where the HTTP gateway reads it.

The proto source lives at its canonical path, ``proto/route18xx/v1/route_optimizer.proto``. It is
compiled as if it sat at ``server/generated/route18xx/v1/`` (protoc's ``-IVIRTUAL=DIR`` mapping),
so the stubs are the modules ``server.generated.route18xx.v1.*`` and import each other by that
name: no sys.path tricks and no editing of generated code. ``tests/test_grpc_e2e.py`` regenerates
into a temporary directory and fails if the checked-in stubs are stale.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
PROTO_DIR = ROOT / "proto"
PROTO_FILES = ("route18xx/v1/route_optimizer.proto",)
HTTP_CONFIG = "route18xx/v1/route_optimizer_http.yaml"  # the HTTP mapping (server/httprules.py), copied as is
PACKAGE_DIR = "server/generated"  # where the stubs live, as a path from the repository root
STUB_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def stub_paths(root: Path = ROOT) -> list:
    """The generated files under ``root``, for comparing two generations."""
    out = []
    for proto in PROTO_FILES:
        stem = (Path(PACKAGE_DIR) / proto).with_suffix("")
        out += [root / f"{stem}{suffix}" for suffix in STUB_SUFFIXES]
    return out + [root / PACKAGE_DIR / HTTP_CONFIG]


def generate(out_root: Path = ROOT) -> list:
    """Compile the protos into ``out_root/server/generated/...``; return the files written."""
    from grpc_tools import protoc

    out_root = Path(out_root)
    (out_root / PACKAGE_DIR).mkdir(parents=True, exist_ok=True)
    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PACKAGE_DIR}={PROTO_DIR}",
        f"-I{well_known}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
    ]
    args += [str(PROTO_DIR / p) for p in PROTO_FILES]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed (its message is above)")
    config = out_root / PACKAGE_DIR / HTTP_CONFIG
    config.write_bytes((PROTO_DIR / HTTP_CONFIG).read_bytes())
    return stub_paths(out_root)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.generate", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT, help="root to write server/generated/... under (default: the repository)"
    )
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

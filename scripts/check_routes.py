#!/usr/bin/env python3
"""Checks that the server's route table and openapi.yaml list the same operations.

Reads every line that starts `Route(method: "GET", path: "/pins/{host}", ` (the right and the handler follow) from
Sources/PinSetServer/Routes/RouteTable.swift and every operation of openapi.yaml, and
exits 1 with a list of the differences if the two sets are not equal.

Usage: scripts/check_routes.py [--routes FILE] [--spec FILE]
"""

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ROUTE_LINE = re.compile(r'^\s*Route\(method:\s*"([A-Z]+)",\s*path:\s*"([^"]+)"[,)]')
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def placeholders_normalized(path: str) -> str:
    """`/a/{x}/b/{y}` → `/a/{}/b/{}`: names of path parameters may differ, positions may not."""
    return re.sub(r"\{[^}/]+\}", "{}", path)


def server_routes(path: Path) -> dict[tuple[str, str], str]:
    routes: dict[tuple[str, str], str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.lstrip().startswith("Route("):
            continue
        match = ROUTE_LINE.match(line)
        if not match:
            sys.exit(f"{path}:{number}: route line not in the form "
                     f'`Route(method: "GET", path: "/pins/{{host}}", ...`: {line.strip()}')
        method, route = match.group(1), match.group(2)
        key = (method, placeholders_normalized(route))
        if key in routes:
            sys.exit(f"{path}:{number}: duplicate route {method} {route}")
        routes[key] = f"{method} {route}"
    if not routes:
        sys.exit(f"{path}: no route lines found")
    return routes


def spec_operations(path: Path) -> dict[tuple[str, str], str]:
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    operations: dict[tuple[str, str], str] = {}
    for route, item in (spec.get("paths") or {}).items():
        for method in HTTP_METHODS:
            if method in item:
                operations[(method.upper(), placeholders_normalized(route))] = f"{method.upper()} {route}"
    if not operations:
        sys.exit(f"{path}: no operations under `paths`")
    return operations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--routes", type=Path, default=ROOT / "Sources/PinSetServer/Routes/RouteTable.swift")
    parser.add_argument("--spec", type=Path, default=ROOT / "openapi.yaml")
    args = parser.parse_args()
    for required in (args.routes, args.spec):
        if not required.is_file():
            print(f"check_routes: {required} does not exist", file=sys.stderr)
            return 1

    server = server_routes(args.routes)
    spec = spec_operations(args.spec)
    missing_in_spec = sorted(server[k] for k in server.keys() - spec.keys())
    missing_in_server = sorted(spec[k] for k in spec.keys() - server.keys())
    for label in missing_in_spec:
        print(f"check_routes: the server routes {label}, but {args.spec.name} does not document it", file=sys.stderr)
    for label in missing_in_server:
        print(f"check_routes: {args.spec.name} documents {label}, but the server has no such route "
              f"in {args.routes.name}", file=sys.stderr)
    if missing_in_spec or missing_in_server:
        return 1
    print(f"check_routes: {len(server)} routes, server and spec agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())

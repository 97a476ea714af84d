"""The browser client's third-party JavaScript: pinned npm builds, vendored with licences.

Why vendored (not installed by npm at run time, not from a CDN): ``pip install -e .`` must
give a working page on a machine without Node, and the page cannot fetch anything from
elsewhere (its Content-Security-Policy allows scripts only from its own origin).  So the exact upstream build files are kept in ``static/vendor/``,
unmodified, with their licences, and ``MANIFEST.json`` records where each came from and
its SHA-256.

    python3 -m summon.clients.web.vendor check              # the files match the manifest (offline)
    python3 -m summon.clients.web.vendor check --registry   # ... and the npm registry's tarballs
    python3 -m summon.clients.web.vendor refresh            # fetch the pinned versions again (npm)

To move to a new version: change ``PINS``, run ``refresh``, run the browser tests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PINS", "VendorError", "check", "refresh"]

VENDOR = Path(__file__).parent / "static" / "vendor"
MANIFEST = VENDOR / "MANIFEST.json"


class VendorError(Exception):
    """A vendored file is missing, altered, or differs from its pinned npm release."""


@dataclass(frozen=True)
class Pin:
    package: str
    version: str
    files: tuple[tuple[str, str], ...]  # (path inside the npm tarball's package/, vendored name)
    why: str


PINS = (
    Pin("mqtt", "5.16.0",
        (("dist/mqtt.esm.js", "mqtt.esm.js"), ("LICENSE.md", "LICENSE-mqtt.md")),
        "MQTT over WebSockets in the browser (MQTT.js's own ES-module browser build, "
        "its dependencies bundled with their licence notices; already minified upstream by esbuild: "
        "dist/mqtt.min.js is the same code as a global script, 25 bytes larger, so nothing smaller ships)"),
    Pin("@msgpack/msgpack", "3.1.3",
        (("dist.umd/msgpack.min.js", "msgpack.min.js"), ("LICENSE", "LICENSE-msgpack.txt")),
        "the wire format: msgpack's reference JavaScript codec, its one-file browser build "
        "(it defines the global MessagePack)"),
)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _npm_pack(pin: Pin, into: Path) -> Path:
    """Download ``pin``'s tarball with npm (which checks the registry's integrity hash)."""
    if shutil.which("npm") is None:
        raise VendorError("npm is not installed: it is needed to refresh or re-check the vendored files")
    out = subprocess.run(["npm", "pack", f"{pin.package}@{pin.version}", "--json", "--silent"],
                         cwd=into, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise VendorError(f"npm pack {pin.package}@{pin.version} failed: {out.stderr.strip()[:500]}")
    info = json.loads(out.stdout)[0]
    return into / info["filename"]


def _extract(tarball: Path, pin: Pin) -> dict[str, bytes]:
    got: dict[str, bytes] = {}
    with tarfile.open(tarball) as tar:
        for inner, name in pin.files:
            member = tar.extractfile(f"package/{inner}")
            if member is None:
                raise VendorError(f"{pin.package}@{pin.version} has no {inner}")
            got[name] = member.read()
    return got


def refresh() -> dict[str, object]:
    """Fetch every pinned file again and rewrite ``static/vendor/`` and its manifest."""
    packages: list[dict[str, object]] = []
    manifest: dict[str, object] = {"why": "pinned upstream builds; see clients/web/vendor.py", "packages": packages}
    VENDOR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for pin in PINS:
            files = _extract(_npm_pack(pin, Path(tmp)), pin)
            for name, data in files.items():
                (VENDOR / name).write_bytes(data)
            packages.append({
                "package": pin.package, "version": pin.version, "why": pin.why,
                "files": {name: {"from": inner, "sha256": _sha256(files[name]), "bytes": len(files[name])}
                          for inner, name in pin.files}})
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def check(registry: bool = False) -> list[str]:
    """Verify the vendored files; return one line per file checked, raise on any mismatch."""
    if not MANIFEST.exists():
        raise VendorError(f"{MANIFEST} is missing: run `python3 -m summon.clients.web.vendor refresh`")
    manifest = json.loads(MANIFEST.read_text())
    pinned = {(p.package, p.version) for p in PINS}
    listed = {(p["package"], p["version"]) for p in manifest["packages"]}
    if pinned != listed:
        raise VendorError(f"the manifest lists {sorted(listed)} but PINS says {sorted(pinned)}: run refresh")
    lines = []
    for entry in manifest["packages"]:
        for name, facts in entry["files"].items():
            path = VENDOR / name
            if not path.exists():
                raise VendorError(f"{path} is missing: run `python3 -m summon.clients.web.vendor refresh`")
            if _sha256(path.read_bytes()) != facts["sha256"]:
                raise VendorError(f"{path} differs from {entry['package']}@{entry['version']} (sha256): "
                                  "it was edited; run refresh")
            lines.append(f"ok  {name:24} {entry['package']}@{entry['version']} {facts['from']}")
    if registry:
        with tempfile.TemporaryDirectory() as tmp:
            for pin in PINS:
                for name, data in _extract(_npm_pack(pin, Path(tmp)), pin).items():
                    if (VENDOR / name).read_bytes() != data:
                        raise VendorError(f"{name} is not the registry's {pin.package}@{pin.version}")
                    lines.append(f"ok  {name:24} identical to the registry's tarball")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m summon.clients.web.vendor", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="verify the vendored files against the manifest")
    c.add_argument("--registry", action="store_true", help="also compare with the npm registry's tarballs")
    sub.add_parser("refresh", help="download the pinned versions again with npm")
    args = parser.parse_args(argv)
    try:
        if args.command == "refresh":
            refresh()
            print(f"refreshed {VENDOR}")
        for line in check(registry=getattr(args, "registry", False)):
            print(line)
    except VendorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

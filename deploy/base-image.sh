#!/usr/bin/env bash
# Build the base image the Dockerfiles start FROM (ARG BASE=debian:bookworm-slim) on a host
# that cannot pull it (no registry reachable): debootstrap a minimal Debian bookworm from
# Debian's own mirror and `docker import` it under that tag.  Where the tag can be pulled,
# or is already there, this does nothing.  Needs root and debootstrap.
#
#   deploy/base-image.sh                     # tag debian:bookworm-slim
#   deploy/base-image.sh my/bookworm:local   # another tag (then: docker build --build-arg BASE=...)
#
# Why debootstrap and not a downloaded tarball: it is the same Debian the real
# debian:bookworm-slim is made from (--variant=minbase, the same suite), fetched over apt's
# signed archive, so the Dockerfiles build the same way here, in CI and on any host.
# The host's own CA certificates are copied in (below) so that pip inside a build can
# verify TLS behind a proxy the host trusts.
set -euo pipefail

TAG="${1:-debian:bookworm-slim}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DOCKER="${DOCKER:-docker}"

if "$DOCKER" image inspect "$TAG" >/dev/null 2>&1; then
  echo "base-image: $TAG is already here"
  exit 0
fi
if timeout 60 "$DOCKER" pull -q "$TAG" >/dev/null 2>&1; then
  echo "base-image: pulled $TAG"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { echo "base-image: $TAG cannot be pulled and debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "base-image: debootstrap needs root" >&2; exit 2; }

ROOTFS="$(mktemp -d /tmp/summon-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
echo "base-image: debootstrap --variant=minbase bookworm from $MIRROR (about a minute)"
debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 \
  || { tail -20 "$ROOTFS.log" >&2; rm -f "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"
# What the real debian:bookworm-slim also does (debuerreotype's "slim" settings): no docs,
# man pages or translations installed, no apt translations fetched, no .deb kept after an
# install, no package lists in the image.  Smaller images, and faster builds on top of it.
cat >"$ROOTFS/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
echo 'Acquire::Languages "none";' >"$ROOTFS/etc/apt/apt.conf.d/docker-no-languages"
cat >"$ROOTFS/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
find "$ROOTFS/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
rm -rf "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/info/* "$ROOTFS"/usr/share/groff/* "$ROOTFS"/usr/share/lintian/*
find "$ROOTFS/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null || true
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/var/cache/apt/archives/*.deb
# The host's own CAs (a TLS-inspecting proxy's, say): where Debian's ca-certificates keeps
# local ones, so that `apt-get install ca-certificates` in a build adds them to the bundle
# pip reads (PIP_CERT in the Dockerfile) instead of dropping them.
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  mkdir -p "$ROOTFS/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOTFS/usr/local/share/ca-certificates/"
fi
tar -C "$ROOTFS" -c . | "$DOCKER" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]' - "$TAG" >/dev/null
echo "base-image: built $TAG with debootstrap"

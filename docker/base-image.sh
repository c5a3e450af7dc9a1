#!/usr/bin/env bash
# Builds the JRE base image of tspipe's image from Debian packages, for machines that cannot pull
# from a public image registry: debootstrap (a minimal Debian bookworm with openjdk-17-jre-headless),
# then `docker import`. Run as root (debootstrap needs it). Nothing is pulled from an image registry.
#
#   docker/base-image.sh                 # builds tspipe/jre:17 unless it exists
#   docker/base-image.sh --force         # builds it again
#   TSPIPE_DEBIAN_MIRROR=http://mirror.example/debian docker/base-image.sh
set -euo pipefail

image="${TSPIPE_BASE_IMAGE:-tspipe/jre:17}"
mirror="${TSPIPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="bookworm"

if [[ "${1:-}" != "--force" ]] && docker image inspect "$image" >/dev/null 2>&1; then
    echo "base image $image exists (docker/base-image.sh --force builds it again)"
    exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is missing: apt-get install debootstrap" >&2; exit 1; }

rootfs="$(mktemp -d /tmp/tspipe-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
echo "building $image from Debian $suite ($mirror) in $rootfs ..."
start=$SECONDS
debootstrap --variant=minbase --include=openjdk-17-jre-headless "$suite" "$rootfs" "$mirror" \
    > "$rootfs.log" 2>&1 || { tail -30 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
# An image needs no package caches, documentation or locales beyond C.
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
       "$rootfs"/usr/share/locale/* "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/*
tar --numeric-owner -C "$rootfs" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    - "$image" >/dev/null
echo "built $image in $((SECONDS - start)) s: $(docker image inspect --format '{{.Size}}' "$image" | numfmt --to=iec) ($(docker run --rm "$image" java -version 2>&1 | head -1))"

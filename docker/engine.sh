#!/usr/bin/env bash
# Makes this machine able to run docker/compose.yml and the container tests, from Debian packages
# only (no image registry, no download site other than Debian's): the Docker engine (docker.io),
# debootstrap (for docker/base-image.sh), the Compose v2 plugin, and a running daemon. Idempotent:
# what is there already is left as it is. Needs root on a Debian 12 machine.
#
#   docker/engine.sh            # install what is missing, start dockerd if it is not running
#
# Debian 12 ships only Compose v1; Compose v2 (`docker compose`) is taken from Debian 13's package
# docker-compose 2.26.1-4 (a static Go binary that needs only libc 2.34+), checked by its SHA-256.
set -euo pipefail

mirror="${TSPIPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
compose_deb="pool/main/d/docker-compose/docker-compose_2.26.1-4_amd64.deb"
compose_sha256="47681197cb2b1ab88206b42a1a92fc75f50d9530a6322d03494a473eed0408ea"
plugin_dir="/usr/libexec/docker/cli-plugins"

say() { echo "docker/engine.sh: $*" >&2; }

if [[ "$(id -u)" != 0 ]]; then
    say "needs root (apt-get, dockerd)"; exit 1
fi

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})); then
    say "installing ${missing[*]} from Debian ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

if ! docker compose version >/dev/null 2>&1; then
    say "installing the Docker Compose v2 plugin from Debian's $compose_deb ..."
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    curl -fsSL --retry 3 -o "$tmp/compose.deb" "$mirror/$compose_deb"
    echo "$compose_sha256  $tmp/compose.deb" | sha256sum -c --quiet -
    dpkg-deb -x "$tmp/compose.deb" "$tmp/root"
    mkdir -p "$plugin_dir"
    install -m 755 "$tmp/root/usr/libexec/docker/cli-plugins/docker-compose" "$plugin_dir/docker-compose"
fi

if ! docker info >/dev/null 2>&1; then
    say "starting dockerd (log: /var/log/tspipe-dockerd.log) ..."
    nohup dockerd >/var/log/tspipe-dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { tail -20 /var/log/tspipe-dockerd.log >&2; say "dockerd did not start"; exit 1; }
fi
say "ready: $(docker version --format 'engine {{.Server.Version}}'), $(docker compose version --short | sed 's/^/compose /')"

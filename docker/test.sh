#!/usr/bin/env bash
# Runs the container tests (docker/src/test: ClusterIT) on this machine from a clean checkout:
#   1. docker/engine.sh      the Docker engine, debootstrap and the Compose v2 plugin from Debian
#                            packages, and a running daemon (needs root; skipped if all are there)
#   2. docker/base-image.sh  tspipe/jre:17 from Debian packages, unless it exists
#   3. Maven                 builds the jar, then ClusterIT builds the tspipe image from it
#                            (docker compose up --build) and runs the cluster of docker/compose.yml
# No image is pulled from a public registry; containers talk only to each other and to this machine.
#
#   docker/test.sh                      # everything above
#   TSPIPE_BASE_IMAGE=eclipse-temurin:17-jre docker/test.sh   # another Java base image, if it can be had
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
if [[ "$(id -u)" == 0 ]]; then
    docker/engine.sh
elif ! docker info >/dev/null 2>&1; then
    echo "docker/test.sh: no Docker engine answers and this is not root: run docker/engine.sh as root first" >&2
    exit 1
fi

export TSPIPE_BASE_IMAGE="${TSPIPE_BASE_IMAGE:-tspipe/jre:17}"
if [[ "$TSPIPE_BASE_IMAGE" == "tspipe/jre:17" ]]; then
    docker/base-image.sh
fi

# Only the container tests: the reactor builds what they need (the jar, the harness) with its tests skipped.
# tspipe.docker.required: here a skipped ClusterIT (engine, plugin, image or jar missing) is a failure.
mvn -B -pl app,docker -am verify \
    -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=ClusterIT -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dtspipe.docker.required=true
echo "docker/test.sh: done in $((SECONDS - start)) s"

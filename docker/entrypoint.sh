#!/bin/bash
# Runs a tspipe command with the JVM options of TSPIPE_JAVA_OPTS; exec, so that the JVM is PID 1's
# process and `docker stop` (SIGTERM) reaches it and stops it cleanly.
# shellcheck disable=SC2086
exec java ${TSPIPE_JAVA_OPTS:-} -jar /opt/tspipe/tspipe.jar "$@"

#!/bin/bash
# HEALTHCHECK of the tspipe image, by the tspipe command the container runs (no curl needed):
#   node      GET /health on TSPIPE_HTTP_PORT (8080) answers 200 (Kafka Streams not in ERROR)
#   registry  GET /subjects on TSPIPE_PORT (8081) answers 200
#   broker    the client port (TSPIPE_HEALTH_PORT, 9092) accepts a connection
#   others    healthy while they run (generate, import, ...)
mapfile -d '' args < /proc/1/cmdline
command=""
for i in "${!args[@]}"; do
    if [[ "${args[$i]}" == */tspipe.jar ]]; then
        command="${args[$((i + 1))]:-}"
        break
    fi
done
http_ok() {
    exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
    local status
    read -r _ status _ <&3
    exec 3>&-
    [[ "$status" == 200 ]]
}
case "$command" in
    broker)   exec 3<>"/dev/tcp/127.0.0.1/${TSPIPE_HEALTH_PORT:-9092}" ;;
    registry) http_ok "${TSPIPE_PORT:-8081}" /subjects ;;
    node)     http_ok "${TSPIPE_HTTP_PORT:-8080}" /health ;;
    *)        exit 0 ;;
esac

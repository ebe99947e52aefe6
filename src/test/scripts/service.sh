# Shared by the measurement scripts here (sourced, not run): a free TCP port, and waiting for a started service.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1]); s.close()'; }

# waits until the service on port $1 answers its health endpoint (at most 10 minutes: first start unpacks PostgreSQL);
# fails at once if its process $2 (when given) has ended, and after the 10 minutes
await_health() {
    for _ in $(seq 600); do
        curl -s -o /dev/null "http://localhost:$1/actuator/health" && return
        if [[ -n ${2:-} ]] && ! kill -0 "$2" 2> /dev/null; then
            echo "the service for port $1 ended before it was up; see its log" >&2
            return 1
        fi
        sleep 1
    done
    echo "the service for port $1 was not up within 10 minutes" >&2
    return 1
}

# Shared by the measurement scripts here (sourced, not run): a free TCP port, and waiting for a started service.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1]); s.close()'; }

# waits until the service on port $1 answers its health endpoint (at most 10 minutes: first start unpacks PostgreSQL)
await_health() {
    for _ in $(seq 600); do
        curl -s -o /dev/null "http://localhost:$1/actuator/health" && return
        sleep 1
    done
}

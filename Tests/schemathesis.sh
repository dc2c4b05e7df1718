#!/usr/bin/env bash
# Schemathesis against openapi.yaml and a running debug build: no 5xx, no answer that violates the document.
# The /_mockcdn routes are left out: given them, schemathesis installs 5xx fault rules and then reports the
# 5xx it asked for.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v schemathesis >/dev/null || python3 -m pip install -q schemathesis
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
.build/debug/mockcdn serve --port "$port" --log-level error &
server=$!
trap 'kill $server' EXIT
until curl -fsS "http://127.0.0.1:$port/_mockcdn/health" >/dev/null; do sleep 0.1; done
schemathesis run openapi.yaml --url "http://127.0.0.1:$port" --checks not_a_server_error,response_schema_conformance \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" --exclude-path-regex '^/_mockcdn'

#!/usr/bin/env bash
# MCP conformance: the official suite's server scenarios that apply to svc, and the MCP Inspector in CLI mode,
# against a real `svc serve http` on the embedded database. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE=@modelcontextprotocol/conformance@0.1.13
INSPECTOR=@modelcontextprotocol/inspector@2.12.0
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection)

work=$(mktemp -d)
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export SVC_DATA_DIR="$work/data" SVC_HTTP_PORT="$port" SVC_LOG_LEVEL=warn
unset SVC_DATABASE_URL

svc() { node --conditions=@svc/source --import tsx apps/cli/src/main.ts "$@"; }
svc project create demo >/dev/null
actor=$(svc actor add --email conformance@example.test --json | node -e "process.stdin.on('data',d=>console.log(JSON.parse(d).id))")
SVC_DEFAULT_ACTOR_ID="$actor" node --conditions=@svc/source --import tsx apps/cli/src/main.ts serve http >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.5; done
url="http://localhost:$port/mcp"

passed=0
failed=0
for scenario in "${SCENARIOS[@]}"; do
  if npx -y "$CONFORMANCE" server --url "$url" --scenario "$scenario" 2>&1 | grep -v 'npm warn'; then
    passed=$((passed + 1))
  else
    echo "conformance: scenario $scenario FAILED"; failed=$((failed + 1))
  fi
done

# The MCP Inspector in CLI mode (it warns that it prefers Node 22; it runs on 20).
inspect() { npx -y "$INSPECTOR" --cli "$url" --transport http "$@" 2>/dev/null; }
tools=$(inspect --method tools/list | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).tools.length))")
if [ "$tools" = "33" ]; then echo "inspector: tools/list shows 33 tools"; passed=$((passed + 1)); else echo "inspector: tools/list showed '$tools' tools"; failed=$((failed + 1)); fi
if inspect --method tools/call --tool-name svc_brief --tool-arg project_id=demo | grep -q 'Active Work Units'; then
  echo "inspector: svc_brief answered"; passed=$((passed + 1))
else
  echo "inspector: svc_brief FAILED"; failed=$((failed + 1))
fi

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

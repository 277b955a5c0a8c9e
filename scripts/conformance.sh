#!/usr/bin/env bash
# MCP conformance: the official suite's server scenarios that apply to svc, and the MCP Inspector in CLI mode,
# against a real `svc serve http` on the embedded database. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE=@modelcontextprotocol/conformance@0.1.13
INSPECTOR=@modelcontextprotocol/inspector@2.12.0
# resources-list and prompts-list check svc's own resources and prompts. Not run, because they read fixtures
# svc does not ship (test://static-text, test_simple_prompt, ...): resources-read-*, resources-templates-read,
# prompts-get-*, completion-complete (completes the fixture prompt test_prompt_with_arguments); nor
# resources-(un)subscribe (no subscriptions: /mcp is stateless) and the tools-call-* fixtures.
SCENARIOS=(server-initialize ping tools-list resources-list prompts-list dns-rebinding-protection)
# Context budgets (characters): tools/list is paid for in every conversation, the brief in every session.
TOOLS_LIST_MAX=28000
BRIEF_MAX=2000

work=$(mktemp -d)
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export SVC_DATA_DIR="$work/data" SVC_HTTP_PORT="$port" SVC_LOG_LEVEL=warn
unset SVC_DATABASE_URL

svc() { node --conditions=@svc/source --import tsx apps/cli/src/main.ts "$@"; }
svc project create demo >/dev/null
svc project create big >/dev/null
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
if inspect --method resources/read --uri svc://projects/demo/brief | grep -q 'Active Work Units'; then
  echo "inspector: resources/read svc://projects/demo/brief answered"; passed=$((passed + 1))
else
  echo "inspector: resources/read FAILED"; failed=$((failed + 1))
fi
if inspect --method prompts/get --prompt-name start-session --prompt-args project=demo | grep -q 'svc://projects/demo/brief'; then
  echo "inspector: prompts/get start-session embedded the brief"; passed=$((passed + 1))
else
  echo "inspector: prompts/get FAILED"; failed=$((failed + 1))
fi

# Sizes: tools/list as its JSON result; the brief of a project of 1,000 items.
size=$(inspect --method tools/list | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify({tools:JSON.parse(s).tools}).length))")
if [ "$size" -le "$TOOLS_LIST_MAX" ]; then echo "size: tools/list is $size characters (budget $TOOLS_LIST_MAX)"; passed=$((passed + 1)); else echo "size: tools/list is $size characters, over the budget of $TOOLS_LIST_MAX"; failed=$((failed + 1)); fi
# 1,000 decisions in two requests through the REST route of svc_save_decisions (500 at most per call).
for batch in 0 1; do
  node -e "
    const b = Number(process.argv[1]);
    const decisions = Array.from({ length: 500 }, (_, i) => ({ title: 'Decision ' + (b * 500 + i + 1) + ': ' + 'a title of ordinary length for a decision '.repeat(2), body: 'why' }));
    process.stdout.write(JSON.stringify({ decisions }));" "$batch" |
    curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/projects/big/decisions" -H 'content-type: application/json' --data-binary @-
done
brief=$(inspect --method tools/call --tool-name svc_brief --tool-arg project_id=big | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s);console.log(r.isError?-1:r.content[0].text.length)})")
if [ "$brief" -ge 0 ] && [ "$brief" -le "$BRIEF_MAX" ]; then echo "size: svc_brief of 1000 items is $brief characters (budget $BRIEF_MAX)"; passed=$((passed + 1)); else echo "size: svc_brief of 1000 items is '$brief' characters, over the budget of $BRIEF_MAX"; failed=$((failed + 1)); fi

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

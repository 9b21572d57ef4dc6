#!/usr/bin/env bash
# Smoke-tests the compiled binary as an operator would use it: copied alone into an empty folder,
# far from the build tree and its node_modules, on a new data folder.
set -euo pipefail
BIN_SRC=$(realpath "${1:-dist/aml}")
WORK=$(mktemp -d /tmp/aml-smoke.XXXXXX)
PORT=${SMOKE_PORT:-18931}
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
SERVER_PID=""

cp "$BIN_SRC" "$WORK/aml"
cd "$WORK"
step() { echo "smoke: $*"; }
fail() { echo "smoke FAILED: $*" >&2; exit 1; }

step "version"; ./aml --version
step "migrate a new data folder"; ./aml --data-dir data migrate
step "tenant create"
OUT=$(./aml --data-dir data --json tenant create --name "Smoke Bank" --slug smoke --contact-email ops@smoke.example \
  --plan enterprise --lists OFAC,EU,UK,UN,WIKIDATA --webhook-url https://hooks.smoke.example/aml --quota 100)
KEY=$(echo "$OUT" | grep -o '"apiKey": "aml_live_[A-Za-z0-9]*"' | cut -d'"' -f4)
echo "$OUT" | grep -q '"webhookSigningSecret": "whsec_' || fail "no webhook secret printed"
[ -n "$KEY" ] || fail "no api key printed"
step "tenant list/show"; ./aml --data-dir data tenant list >/dev/null; ./aml --data-dir data tenant show smoke >/dev/null
step "bad input exits non-zero"
if ./aml --data-dir data tenant create --name x --slug "Bad Slug" --contact-email nope --plan p --lists FOO 2>/dev/null; then
  fail "invalid tenant accepted"
fi

step "serve"
./aml --data-dir data serve --port "$PORT" > serve.log 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || fail "healthz"
curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null || fail "readyz"
USAGE=$(curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/usage")
echo "$USAGE" | grep -q '"limit":100' || fail "usage: $USAGE"
curl -sf "http://127.0.0.1:$PORT/swagger-ui" | grep -q swagger-ui || fail "swagger ui"
curl -sf -o /dev/null "http://127.0.0.1:$PORT/swagger-ui/assets/swagger-ui-bundle.js" || fail "swagger assets"
curl -sf "http://127.0.0.1:$PORT/openapi.json" | grep -q '"/v1/usage"' || fail "openapi"

step "key issue / revoke seen by the running server"
NEW=$(./aml --data-dir data --json key issue smoke --label smoke-new)
NEW_KEY=$(echo "$NEW" | grep -o '"apiKey": "aml_live_[A-Za-z0-9]*"' | cut -d'"' -f4)
NEW_ID=$(echo "$NEW" | grep -o '"keyId": "[^"]*"' | cut -d'"' -f4)
curl -sf -o /dev/null -H "X-Api-Key: $NEW_KEY" "http://127.0.0.1:$PORT/v1/usage" || fail "new key refused"
./aml --data-dir data key list smoke >/dev/null
./aml --data-dir data key revoke smoke "$NEW_ID" >/dev/null
CODE=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Api-Key: $NEW_KEY" "http://127.0.0.1:$PORT/v1/usage")
[ "$CODE" = 401 ] || fail "revoked key got $CODE"
step "quota set seen by the running server"
./aml --data-dir data quota set smoke unlimited >/dev/null
curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/usage" | grep -q '"unlimited":true' || fail "quota not seen"
step "audit"
./aml --data-dir data audit verify smoke | grep -q "intact *true" || fail "audit chain not intact"
curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/audit?format=csv" | head -1 | grep -q '^id,sequence' || fail "audit csv"
step "backup"
./aml --data-dir data backup backup-out >/dev/null
[ -s backup-out/aml.db ] && [ -s backup-out/master.key ] || fail "backup files missing"

step "graceful stop"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || fail "server exited non-zero on SIGTERM"
SERVER_PID=""
grep -q '"msg":"stopped"' serve.log || fail "no clean stop logged"
echo "smoke: all passed"

#!/usr/bin/env bash
# Smoke-tests the compiled binary as an operator would use it: copied alone into an empty folder,
# far from the build tree and its node_modules, on a new data folder.
set -euo pipefail
# Pipelines end in `grep PATTERN >/dev/null`, not `grep -q`: under pipefail, grep -q exits at its
# first match and curl (or aml), still writing, fails with a broken pipe (curl exit 23), so the step
# failed now and then although its output was right. Plain grep reads to the end.
BIN_SRC=$(realpath "${1:-dist/aml}")
# Official list files to import with the binary (the real ones beside the repo in CI).
LISTS_DIR="${SMOKE_LISTS:-$(dirname "$BIN_SRC")/../../shared/watchlists}"
if [ ! -d "$LISTS_DIR" ]; then
  echo "smoke: no official list files at $LISTS_DIR: put the shared data folder beside the repository (../shared) or set SMOKE_LISTS" >&2
  exit 2
fi
LISTS_DIR=$(realpath "$LISTS_DIR")
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
echo "$OUT" | grep '"webhookSigningSecret": "whsec_' >/dev/null || fail "no webhook secret printed"
[ -n "$KEY" ] || fail "no api key printed"
step "tenant list/show"; ./aml --data-dir data tenant list >/dev/null; ./aml --data-dir data tenant show smoke >/dev/null
step "bad input exits non-zero"
if ./aml --data-dir data tenant create --name x --slug "Bad Slug" --contact-email nope --plan p --lists FOO 2>/dev/null; then
  fail "invalid tenant accepted"
fi

step "serve"
./aml --data-dir data serve --demo --port "$PORT" > serve.log 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || fail "healthz"
curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null || fail "readyz"
USAGE=$(curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/usage")
echo "$USAGE" | grep '"limit":100' >/dev/null || fail "usage: $USAGE"
curl -sf "http://127.0.0.1:$PORT/swagger-ui" | grep swagger-ui >/dev/null || fail "swagger ui"
curl -sf -o /dev/null "http://127.0.0.1:$PORT/swagger-ui/assets/swagger-ui-bundle.js" || fail "swagger assets"
curl -sf "http://127.0.0.1:$PORT/openapi.json" | grep '"/v1/usage"' >/dev/null || fail "openapi"

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
curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/usage" | grep '"unlimited":true' >/dev/null || fail "quota not seen"
step "audit"
./aml --data-dir data audit verify smoke | grep "intact *true" >/dev/null || fail "audit chain not intact"
curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/audit?format=csv" | sed -n 1p | grep '^id,sequence' >/dev/null || fail "audit csv"
step "backup"
./aml --data-dir data backup backup-out >/dev/null
[ -s backup-out/aml.db ] && [ -s backup-out/master.key ] || fail "backup files missing"

step "screen over HTTP against the demo list"
HIT=$(curl -sf -H "X-Api-Key: $KEY" -H "Content-Type: application/json" "http://127.0.0.1:$PORT/v1/screenings/check" \
  -d '{"fullName":"Boris Quillfeather","userReference":"smoke-1"}')
echo "$HIT" | grep '"decision":"Match"' >/dev/null || fail "demo screen: $HIT"
step "lists status / screen / profile"
./aml --data-dir data lists status | grep "FICTIONAL" >/dev/null || fail "lists status does not flag the demo list"
./aml --data-dir data screen --name "Boris Quillfeather" | grep '"decision":"Match"' >/dev/null || fail "aml screen"
./aml --data-dir data profile show smoke >/dev/null
./aml --data-dir data profile set smoke --set threshold=0.9 >/dev/null
./aml --data-dir data --json profile show smoke | grep '"threshold": 0.9' >/dev/null || fail "profile set"
step "webhook verify"
BODY='{"event":"screening.completed"}'; TS=$(date +%s)
SIG=$(printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac whsec_smoke -hex | sed 's/^.*= //')
printf '%s' "$BODY" > body.json
./aml webhook verify --secret whsec_smoke --timestamp "$TS" --signature "sha256=$SIG" --body-file body.json >/dev/null || fail "valid signature refused"
if ./aml webhook verify --secret whsec_other --timestamp "$TS" --signature "sha256=$SIG" --body-file body.json >/dev/null 2>&1; then
  fail "wrong secret accepted"
fi
step "login fails cleanly without an identity provider"
if ./aml login --auth-url http://127.0.0.1:9 --client-id aml-admin-cli --client-secret x 2>login.err; then fail "login succeeded"; fi
[ "$(wc -l < login.err)" -eq 1 ] || fail "login error is not one line: $(cat login.err)"
step "lists import of official files (XLSX, XML, CSV set) while serving"
./aml --data-dir data lists import "$LISTS_DIR/un/consolidated.xml" "$LISTS_DIR/uk/ConList.xlsx" \
  "$LISTS_DIR/ofac/sdn.csv" "$LISTS_DIR/ofac/add.csv" "$LISTS_DIR/ofac/alt.csv" "$LISTS_DIR/ofac/sdn_comments.csv" >/dev/null
for _ in $(seq 1 50); do
  curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/lists/version" | grep '"isDemo":false' >/dev/null && break; sleep 0.2
done
VERSION=$(curl -sf -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/lists/version")
for source in OFAC UK UN; do echo "$VERSION" | grep "\"source\":\"$source\"" >/dev/null || fail "$source not served: $VERSION"; done

step "lists import of a PEP file of 64 MiB or more (parsed on the worker thread)"
# The real FtM sample 52 times over, ids prefixed per copy: 21,788 distinct persons in about 67 MB,
# past the size from which a PEP file on disk is streamed on a worker, one of the executable's entry points.
SA="$LISTS_DIR/wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json"
for k in $(seq 1 52); do sed "s/\"Q/\"c$k-Q/g; s/\"q/\"c$k-q/g" "$SA"; done > peps.ftm.json
[ "$(stat -c %s peps.ftm.json)" -ge $((64 * 1024 * 1024)) ] || fail "the FtM file is under 64 MiB"
./aml --data-dir data lists import peps.ftm.json > peps.out || fail "PEP import failed: $(cat peps.out)"
grep -Eq "WIKIDATA +imported +ftm-json .* 21788 " peps.out || fail "PEP import did not store 21,788 persons: $(cat peps.out)"

step "graceful stop"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || fail "server exited non-zero on SIGTERM"
SERVER_PID=""
grep -q '"msg":"stopped"' serve.log || fail "no clean stop logged"
grep -q 'WAL checkpoints run on a worker thread' serve.log || fail "the checkpoint worker did not start in the executable"
if grep -q 'WAL checkpoint worker stopped' serve.log; then fail "the checkpoint worker failed: $(grep 'WAL checkpoint' serve.log)"; fi
# Elysia's handler analysis (Sucrose) cannot read whitespace-minified code and says so on stderr.
if grep -q 'Sucrose' serve.log; then fail "Elysia could not analyse a handler in the executable: $(grep -A2 Sucrose serve.log)"; fi
echo "smoke: all passed"

# Two commands on a fresh machine: `make run` and `make test`. Each installs what is missing first.
# Bun comes from the npm registry (devDependency), so Node and npm are all a machine needs.
# npm install (not npm ci): npm 11 omits other platforms' optional packages (biome, bun) from the
# lockfile and then refuses npm ci; npm install still follows the committed lockfile.
BUN := node_modules/.bin/bun
STAMP := node_modules/.install-stamp

.PHONY: install run test build check typecheck lint bench bench-ab eval smoke clean

install: $(STAMP)

$(STAMP): package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	@$(BUN) --version >/dev/null || (echo "bun did not install (npm install scripts disabled?)" && exit 1)
	@touch $(STAMP)

run: install
	$(BUN) run src/main.ts serve --demo

# Real-server and real-data tests start processes and parse official list files: 60 s a test, not
# Bun's 5 s default. On the command line because Bun 1.4 ignores a timeout in bunfig.toml's [test].
test: install
	$(BUN) test --timeout 60000

build: install
	$(BUN) run scripts/build.ts

typecheck: install
	node_modules/.bin/tsc --noEmit -p tsconfig.json

lint: install
	node_modules/.bin/biome check

check: typecheck lint test

bench: install
	$(BUN) run bench/run.ts

# Two builds of the server compared in alternating windows: make bench-ab A=main B=HEAD (refs or source trees).
bench-ab: install
	@test -n "$(A)" -a -n "$(B)" || (echo "usage: make bench-ab A=<ref or tree> B=<ref or tree> [AB_RATE=1700|closed AB_SECONDS=10 AB_ROUNDS=8]" && exit 2)
	$(BUN) run bench/ab.ts "$(A)" "$(B)"

eval: install
	$(BUN) run test/eval/run.ts

smoke: build
	bash scripts/smoke-binary.sh dist/aml

clean:
	rm -rf dist

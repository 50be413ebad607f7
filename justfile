# Basalt + Backline tasks. Run with `just <task>`, or without installing just:
# `npx --yes rust-just <task>`.

set shell := ["bash", "-euo", "pipefail", "-c"]

# List the tasks.
default:
    @just --list

# Build basalt (and the frontend when present), then run everything locally.
dev *ARGS: build
    ./bin/basalt dev {{ARGS}}

# Build the basalt binary into bin/, and the frontend into frontend/dist when present.
build:
    go build -o bin/basalt ./cmd/basalt
    if [ -f frontend/package.json ]; then \
        cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund || npm install --no-audit --no-fund; } && npm run build; \
    fi

# Every stage runs even when an earlier one fails, so one run shows every failure.
# Run every test: Go (against real PostgreSQL), compat (supabase-js), frontend, benchmark smoke runs.
test:
    #!/usr/bin/env bash
    set -uo pipefail
    failed=()
    for stage in test-go test-compat test-frontend test-e2e bench-smoke; do
        echo "== $stage"
        "{{just_executable()}}" --justfile "{{justfile()}}" "$stage" || failed+=("$stage")
    done
    if [ ${#failed[@]} -gt 0 ]; then echo "failed stages: ${failed[*]}"; exit 1; fi
    echo "all stages passed"

# Go tests; PostgreSQL server binaries are required, not optional.
test-go:
    PGTEST_REQUIRED=1 go test -json -p 2 -count=1 -timeout 15m ./... | go run .ci/testsum.go

# The supabase-js suite against a freshly started `basalt dev`.
test-compat:
    go build -o bin/basalt ./cmd/basalt
    cd compat && npm ci --no-audit --no-fund --loglevel=error
    BASALT_BIN="$PWD/bin/basalt" node compat/run.mjs

# The frontend's packages. `npm ci` when the lock file allows it; else
# `npm install`, which keeps the locked versions: the registry may lack some
# other platforms' optional binaries that a complete lock file would list.
frontend-deps:
    cd frontend && { npm ci --no-audit --no-fund --loglevel=error || { \
        echo "frontend: npm ci refused package-lock.json; installing with npm install instead"; \
        npm install --no-audit --no-fund --loglevel=error; }; }

# Frontend unit tests, when the frontend exists.
test-frontend:
    if [ -f frontend/package.json ]; then \
        "{{just_executable()}}" --justfile "{{justfile()}}" frontend-deps && cd frontend && CI=true npm test; \
    else \
        echo "frontend: no frontend/package.json, skipped"; \
    fi

# End-to-end user journeys in headless Chromium against a private `basalt dev`
# (the built app, the real backend). Needs Debian's chromium at /usr/bin/chromium
# (or CHROMIUM_PATH); screenshots land in frontend/e2e/screenshots/.
test-e2e:
    if [ -f frontend/package.json ]; then \
        command -v "${CHROMIUM_PATH:-/usr/bin/chromium}" >/dev/null || { echo "e2e: no Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}; install Debian's chromium package"; exit 1; }; \
        go build -o bin/basalt ./cmd/basalt; \
        [ -d frontend/node_modules ] || "{{just_executable()}}" --justfile "{{justfile()}}" frontend-deps; \
        cd frontend && npm run build && npm run e2e:basalt; \
    else \
        echo "e2e: no frontend/package.json, skipped"; \
    fi

# Every benchmark in smoke mode (a second or so each): checks they still run.
bench-smoke:
    for d in bench/*/; do \
        if [ -f "$d/main.go" ]; then echo "== $d (smoke)"; go run "./$d" -smoke; fi; \
    done

# Every benchmark at full length; see bench/README.md.
bench:
    for d in bench/*/; do \
        if [ -f "$d/main.go" ]; then echo "== $d"; go run "./$d"; fi; \
    done

# `go test -fuzz` takes one target in one package per run, so targets run one
# after the other. They are found in the packages given (default: every
# package with a `func Fuzz` in a test file) with `go test -list`, so new ones
# are included. Extra `go test` flags go in FUZZFLAGS (e.g.
# FUZZFLAGS=-parallel=1 on a shared machine). A failing input is kept under
# the package's testdata/fuzz, where plain `go test` runs it from then on.
# Fuzz every target for FUZZTIME each (default 30s): `just fuzz [PKG...]`.
fuzz *PKGS:
    #!/usr/bin/env bash
    set -uo pipefail
    fuzztime="${FUZZTIME:-30s}"
    pkgs=({{PKGS}})
    if [ ${#pkgs[@]} -eq 0 ]; then
        mapfile -t pkgs < <(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.git '^func Fuzz' . \
            | xargs -r -n1 dirname | sort -u)
    fi
    failed=()
    for pkg in "${pkgs[@]}"; do
        if ! list=$(go test -list '^Fuzz' "$pkg"); then failed+=("$pkg (go test -list)"); continue; fi
        for target in $(grep '^Fuzz' <<<"$list"); do
            echo "== $pkg $target ($fuzztime)"
            go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" ${FUZZFLAGS:-} "$pkg" || failed+=("$pkg $target")
        done
    done
    if [ ${#failed[@]} -gt 0 ]; then printf 'failed: %s\n' "${failed[@]}"; exit 1; fi
    echo "all fuzz targets passed"

# gofmt and go vet must be clean.
lint:
    test -z "$(gofmt -l .)" || { gofmt -l .; echo "run gofmt -w on the files above"; exit 1; }
    go vet ./...

# Migrations: `just migrate up`, `just migrate status`, `just migrate new NAME`.
migrate *ARGS:
    go run ./cmd/basalt migrate {{ARGS}}

# URLs and keys of the running `basalt dev`.
status *ARGS:
    go run ./cmd/basalt status {{ARGS}}

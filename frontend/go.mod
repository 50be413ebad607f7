// Not Go code: this file only marks frontend/ as a module of its own, so that
// the repository's `go test ./...`, `go vet ./...` and `go list ./...` never
// walk into frontend/node_modules (some npm packages ship .go files).
module backline/frontend-not-go

go 1.26

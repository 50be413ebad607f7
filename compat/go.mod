// Not Go code: this file only marks compat/ as a module of its own, so that
// the repository's `go test ./...`, `go vet ./...` and `go list ./...` never
// walk into compat/node_modules (some npm packages ship .go files).
module backline/compat-not-go

go 1.26

// Not Go code: this file only marks studio/web as a module of its own, so
// that the repository's `go test ./...`, `go vet ./...` and `go list ./...`
// never walk into studio/web/node_modules (some npm packages ship .go files).
module basalt/studio-web-not-go

go 1.26

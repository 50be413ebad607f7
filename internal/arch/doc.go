// Package arch keeps the import rules of the house. It has no code: its
// test reads the imports of every package in the module (test files too)
// and fails when
//
//   - one service (auth, rest, storage, functions, realtime, and the
//     database integrations' tree, integrations) imports another: services share code through internal/ and talk through
//     Postgres, so each can be read, tested and changed alone;
//   - a platform package imports the app (functions/backline): Basalt
//     knows nothing about music. The one exception is the binary's seam,
//     cmd/basalt, which names the app in one line (its root package only).
//
// docs/internals.md draws the graph these rules keep.
package arch

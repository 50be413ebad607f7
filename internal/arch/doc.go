// Package arch keeps the import rules of the house. It has no code: its
// test reads the imports of every package in the module (test files too)
// and fails when
//
//   - one service (auth, rest, storage, functions, realtime, studio, and
//     pgmodules: Cron, Queues and Webhooks) imports another: services
//     share code through internal/ and talk through Postgres, so each can
//     be read, tested and changed alone;
//   - a ground-floor package (internal/, gateway/, sql/platform) imports
//     anything above the ground floor: a service, a package built on
//     services (appkit, gentypes, backup, the binary) or the app. Tests
//     of services wired together live in integration/, beside them;
//   - a platform package imports the app (functions/backline): Basalt
//     knows nothing about music. The one exception is the binary's seam,
//     cmd/basalt, which names the app in one line (its root package only).
//
// docs/internals.md draws the graph these rules keep.
package arch

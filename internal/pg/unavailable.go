package pg

import (
	"context"
	"errors"
	"io"
	"net/url"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports whether err means the database cannot serve requests
// right now, as opposed to refusing this request: the server is down,
// restarting, shutting down or unreachable. Every service answers such errors
// with 503 and Retry-After in its own wire format instead of a 500, because
// they go away by themselves once PostgreSQL is back (the pools reconnect).
//
// It is true for
//   - a failed connection attempt (*pgconn.ConnectError): refused, reset,
//     timed out, or turned away by the server, which is how "the database
//     system is starting up" (57P03) reaches a pool that dials during
//     crash recovery;
//   - server errors that end the session for the same reasons: class 08
//     (connection exception), admin_shutdown 57P01 (fast shutdown, or the
//     postmaster died), crash_shutdown 57P02, cannot_connect_now 57P03;
//   - a connection lost during the exchange: EOF, reset, broken pipe, or a
//     connection pgx already closed (but not an HTTP client's failure).
//
// A canceled context is not an outage: the caller went away.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if ConnectFailed(err) {
		return true
	}
	if pe, ok := AsPgError(err); ok {
		return unavailableCode(pe.Code)
	}
	return connectionLost(err)
}

// ConnectFailed reports whether err is a failed attempt to open a database
// connection, so nothing of the request reached the server. PostgREST tells
// these apart from connections lost mid-exchange (PGRST000 vs PGRST001).
func ConnectFailed(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) && !errors.Is(err, context.Canceled)
}

// unavailableCode reports whether a SQLSTATE says the server is not
// accepting work, rather than that the statement failed.
func unavailableCode(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}

// connectionLost reports errors of a socket that broke under pgx. pgx
// returns read and write failures of an established connection unwrapped,
// so they are recognised by what the network layer says. An HTTP client's
// failure (a function calling a payment provider, the S3 backend) says the
// same things but is not the database's, so *url.Error is excluded.
func connectionLost(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) {
		return false
	}
	return errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

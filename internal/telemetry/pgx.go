package telemetry

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// PgxTracer is the tracer a pool installs (pgxpool.Config.ConnConfig.Tracer)
// while tracing is on: a client span per query, batch, prepare, connect and
// pool acquire, child of the span in the calling context. Nil when tracing
// is off, so pools opened then pay nothing per query. Query parameters are
// never recorded: they carry user data.
func PgxTracer() pgx.QueryTracer {
	tp := TracerProvider()
	if tp == nil {
		return nil
	}
	// Pool and query metrics are Prometheus collectors of Basalt's own
	// (PoolCollector); otelpgx's OpenTelemetry metrics are not wanted.
	return otelpgx.NewTracer(otelpgx.WithTracerProvider(tp), otelpgx.WithMeterProvider(noop.NewMeterProvider()))
}

// StartPipeline starts a client span for statements sent to PostgreSQL in
// one round trip through pgconn's pipeline, which pgx's tracer does not see
// (REST sends every request that way). The span follows the database
// conventions for a batch: db.query.text is the statements joined by "; ".
// When the context's span is not recording (tracing off, or not sampled) it
// returns ctx and a no-op at once. Call the returned function with the
// pipeline's error when it is done.
func StartPipeline[S any](ctx context.Context, pc *pgconn.PgConn, steps []S, sql func(S) string) (context.Context, func(error)) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, endNothing
	}
	tr := Tracer()
	if tr == nil {
		return ctx, endNothing
	}
	texts := make([]string, len(steps))
	op := ""
	for i, s := range steps {
		texts[i] = sql(s)
		o := otelpgx.SQLOperationName(ctx, texts[i])
		switch {
		case i == 0:
			op = o
		case o != op:
			op = ""
		}
	}
	name := "BATCH"
	if op != "" {
		name += " " + op
	}
	attrs := []attribute.KeyValue{
		semconv.DBSystemNamePostgreSQL,
		semconv.DBOperationName(name),
		semconv.DBQueryText(strings.Join(texts, "; ")),
		semconv.DBOperationBatchSize(len(steps)),
	}
	attrs = append(attrs, serverAttrs(pc)...)
	ctx, span := tr.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				span.SetAttributes(semconv.DBResponseStatusCode(pe.Code))
			}
		}
		span.End()
	}
}

func endNothing(error) {}

// serverAttrs names the server by the connection's peer: a host and port,
// or the unix socket's path.
func serverAttrs(pc *pgconn.PgConn) []attribute.KeyValue {
	if pc == nil || pc.Conn() == nil {
		return nil
	}
	addr := pc.Conn().RemoteAddr()
	if addr == nil {
		return nil
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return []attribute.KeyValue{semconv.ServerAddress(addr.String())}
	}
	n, _ := strconv.Atoi(port)
	return []attribute.KeyValue{semconv.ServerAddress(host), semconv.ServerPort(n)}
}

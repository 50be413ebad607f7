package gateway

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// routeOf is the low-cardinality route of a request for span names: the
// service's prefix, the gateway's own endpoint, or "" for unrouted paths.
func routeOf(rt *route, path string) string {
	switch {
	case rt != nil:
		return rt.prefix + "/*"
	case path == "/health" || path == "/health/ready" || path == "/health/live" || path == "/metrics":
		return path
	}
	return ""
}

// startSpan opens the request's server span, continuing a trace the caller
// sent in traceparent. With tracing off it does nothing and returns a nil
// span.
func startSpan(ctx context.Context, r *http.Request, route, service, id string) (context.Context, trace.Span) {
	tr := telemetry.Tracer()
	if tr == nil {
		return ctx, nil
	}
	ctx = telemetry.Propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
	method := normMethod(r.Method)
	if method == "OTHER" {
		method = "_OTHER"
	}
	name := method
	if route != "" {
		name += " " + route
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(method),
		semconv.URLPath(r.URL.Path),
		semconv.URLScheme(scheme),
		semconv.ClientAddress(r.Header.Get(httpx.ClientIPHeader)),
		semconv.UserAgentOriginal(r.UserAgent()),
		attribute.String("basalt.service", service),
		attribute.String("basalt.request_id", id),
	}
	if route != "" {
		attrs = append(attrs, semconv.HTTPRoute(route))
	}
	return tr.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// endSpan records the status the access log shows and ends the span; 5xx
// mark it failed (not 4xx, nor 499: the client's doing).
func endSpan(span trace.Span, status int) {
	if span == nil {
		return
	}
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	span.End()
}

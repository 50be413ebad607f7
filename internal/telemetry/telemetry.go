// Package telemetry is Basalt's observability plumbing, shared by the
// gateway, the services and the binary:
//
//   - tracing: an OpenTelemetry tracer provider that is off (nil) unless the
//     operator asks for an OTLP exporter, the pgx tracer pools install when
//     it is on, and spans for the statements REST pipelines itself;
//   - the request id carried in a context, and a slog handler that writes it
//     (and the trace id) on every log line made with that context;
//   - Prometheus collectors the gateway's registry serves: connection pool
//     statistics read at scrape time, and the realtime service's metrics.
//
// Tracing off costs nothing on the request path: Tracer returns nil, pools
// get no pgx tracer, and StartPipeline returns at once.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/basaltdev/basalt/internal/config"
)

// InstrumentationName names the tracer Basalt's own spans come from.
const InstrumentationName = "github.com/basaltdev/basalt"

// Config is the tracing configuration, read from the standard OpenTelemetry
// variables.
type Config struct {
	// Traces turns the OTLP trace exporter on.
	Traces bool
	// Endpoint is the full URL spans are POSTed to (…/v1/traces).
	Endpoint string
	// Headers are sent with every export (OTEL_EXPORTER_OTLP_HEADERS).
	Headers map[string]string
	// Timeout bounds one export, retries included
	// (OTEL_EXPORTER_OTLP_TIMEOUT; 0: 10 s).
	Timeout time.Duration
	// Gzip compresses exports (OTEL_EXPORTER_OTLP_COMPRESSION=gzip).
	Gzip bool
	// CAFile verifies the collector's certificate
	// (OTEL_EXPORTER_OTLP_CERTIFICATE); ClientCertFile and ClientKeyFile
	// are presented to it (OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE, _KEY).
	CAFile, ClientCertFile, ClientKeyFile string
}

// timeout is Timeout or the specification's default.
func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 10 * time.Second
}

// ConfigFromEnv reads the tracing settings. Traces are exported when
// OTEL_TRACES_EXPORTER=otlp, or when it is unset and an OTLP endpoint is
// given; OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none keep them off.
// Only OTLP over HTTP (protobuf) is built in.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	var c Config
	base := r.String("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	traces := r.String("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	exporter := strings.ToLower(r.String("OTEL_TRACES_EXPORTER", ""))
	switch exporter {
	case "otlp":
		c.Traces = true
	case "":
		c.Traces = base != "" || traces != ""
	case "none":
	default:
		r.Fail("OTEL_TRACES_EXPORTER=%q: want otlp or none", exporter)
	}
	if r.Bool("OTEL_SDK_DISABLED", false) {
		c.Traces = false
	}
	protocol := r.String("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", r.String("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"))
	if c.Traces && protocol != "http/protobuf" {
		r.Fail("OTEL_EXPORTER_OTLP_PROTOCOL=%q: only http/protobuf is supported (an OTLP/HTTP endpoint, usually port 4318)", protocol)
	}
	switch {
	case traces != "":
		c.Endpoint = traces
	case base != "":
		// The base endpoint gets the signal's path, as the specification says.
		c.Endpoint = strings.TrimRight(base, "/") + "/v1/traces"
	default:
		c.Endpoint = "http://localhost:4318/v1/traces"
	}
	if u, err := url.Parse(c.Endpoint); c.Traces && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		r.Fail("OTLP traces endpoint %q: want an absolute http(s) URL", c.Endpoint)
	}
	hdrs := r.String("OTEL_EXPORTER_OTLP_TRACES_HEADERS", r.String("OTEL_EXPORTER_OTLP_HEADERS", ""))
	h, err := parseHeaders(hdrs)
	if err != nil {
		r.Fail("OTEL_EXPORTER_OTLP_HEADERS: %v", err)
	}
	c.Headers = h
	// Each setting has a traces-only variant that wins over the general one.
	setting := func(name string) string {
		return r.String("OTEL_EXPORTER_OTLP_TRACES_"+name, r.String("OTEL_EXPORTER_OTLP_"+name, ""))
	}
	if ms := setting("TIMEOUT"); ms != "" {
		n, err := strconv.Atoi(ms)
		if err != nil || n < 0 {
			r.Fail("OTEL_EXPORTER_OTLP_TIMEOUT=%q: want milliseconds", ms)
		}
		c.Timeout = time.Duration(n) * time.Millisecond
	}
	switch comp := strings.ToLower(setting("COMPRESSION")); comp {
	case "gzip":
		c.Gzip = true
	case "", "none":
	default:
		r.Fail("OTEL_EXPORTER_OTLP_COMPRESSION=%q: want gzip or none", comp)
	}
	c.CAFile, c.ClientCertFile, c.ClientKeyFile = setting("CERTIFICATE"), setting("CLIENT_CERTIFICATE"), setting("CLIENT_KEY")
	if (c.ClientCertFile == "") != (c.ClientKeyFile == "") {
		r.Fail("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together")
	}
	return c, r.Err()
}

// parseHeaders reads the W3C-baggage-like list key1=value1,key2=value2 with
// URL-encoded values.
func parseHeaders(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", kv)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", kv, err)
		}
		out[k] = dv
	}
	return out, nil
}

// Setup starts exporting traces when cfg asks for it and returns the
// function that flushes and stops the exporter (a no-op when off). The
// service name defaults to "basalt" (OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override it); sampling follows
// OTEL_TRACES_SAMPLER (parent-based, always on by default).
func Setup(ctx context.Context, cfg Config, version string) (shutdown func(context.Context) error, err error) {
	if !cfg.Traces {
		return func(context.Context) error { return nil }, nil
	}
	client, err := newOTLPClient(cfg)
	if err != nil {
		return nil, err
	}
	exp, err := otlptrace.New(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("basalt"), semconv.ServiceVersion(version)),
		resource.WithFromEnv(), // later detectors win: the operator's names override the defaults
		resource.WithTelemetrySDK(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	SetTracerProvider(tp)
	// Libraries that use the globals (none of Basalt's own code does) trace
	// into the same provider.
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(Propagator)
	return func(ctx context.Context) error {
		SetTracerProvider(nil)
		return tp.Shutdown(ctx)
	}, nil
}

// Propagator reads and writes W3C trace context and baggage headers.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(
	propagation.TraceContext{}, propagation.Baggage{})

type providerBox struct{ tp trace.TracerProvider }

var current atomic.Pointer[providerBox]

// SetTracerProvider makes tp the provider Basalt's spans go to; nil turns
// tracing off. Setup calls it; tests call it with an in-memory provider.
// Pools opened while tracing is off get no pgx tracer.
func SetTracerProvider(tp trace.TracerProvider) {
	if tp == nil {
		current.Store(nil)
		return
	}
	current.Store(&providerBox{tp: tp})
}

// TracerProvider is the provider set by SetTracerProvider, or nil when
// tracing is off.
func TracerProvider() trace.TracerProvider {
	if b := current.Load(); b != nil {
		return b.tp
	}
	return nil
}

// Tracer returns Basalt's tracer, or nil when tracing is off: callers skip
// span work altogether then.
func Tracer() trace.Tracer {
	if tp := TracerProvider(); tp != nil {
		return tp.Tracer(InstrumentationName)
	}
	return nil
}

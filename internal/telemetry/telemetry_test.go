package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/basaltdev/basalt/internal/telemetry"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    telemetry.Config
		wantErr string
	}{
		{name: "off by default", env: nil,
			want: telemetry.Config{Endpoint: "http://localhost:4318/v1/traces"}},
		{name: "an endpoint turns it on, with the signal path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4318/"},
			want: telemetry.Config{Traces: true, Endpoint: "http://otel:4318/v1/traces"}},
		{name: "the traces endpoint is used as it is", env: map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c.example/in"},
			want: telemetry.Config{Traces: true, Endpoint: "https://c.example/in"}},
		{name: "otlp exporter to the default collector", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"},
			want: telemetry.Config{Traces: true, Endpoint: "http://localhost:4318/v1/traces"}},
		{name: "none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4318"},
			want: telemetry.Config{Endpoint: "http://otel:4318/v1/traces"}},
		{name: "SDK disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"},
			want: telemetry.Config{Endpoint: "http://localhost:4318/v1/traces"}},
		{name: "headers", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cr%20t, x-team = core"},
			want: telemetry.Config{Traces: true, Endpoint: "http://localhost:4318/v1/traces", Headers: map[string]string{"api-key": "s3cr t", "x-team": "core"}}},
		{name: "timeout, compression and certificates, the traces variant first", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp",
			"OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "500", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			"OTEL_EXPORTER_OTLP_CERTIFICATE": "/ca.pem", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE": "/c.pem", "OTEL_EXPORTER_OTLP_CLIENT_KEY": "/k.pem"},
			want: telemetry.Config{Traces: true, Endpoint: "http://localhost:4318/v1/traces", Timeout: 500 * time.Millisecond, Gzip: true,
				CAFile: "/ca.pem", ClientCertFile: "/c.pem", ClientKeyFile: "/k.pem"}},
		{name: "bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, wantErr: "want milliseconds"},
		{name: "unknown compression", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, wantErr: "want gzip or none"},
		{name: "client certificate without key", env: map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": "/c.pem"}, wantErr: "go together"},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: `OTEL_TRACES_EXPORTER="zipkin"`},
		{name: "grpc is not built in", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: "only http/protobuf"},
		{name: "bad endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "otel:4318"}, wantErr: "want an absolute http(s) URL"},
		{name: "bad headers", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, wantErr: "not key=value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := telemetry.ConfigFromEnv(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetupExportsOverOTLP runs an OTLP/HTTP receiver in the test: spans
// made after Setup reach it, with the configured headers and Basalt's
// service name and version, once the returned shutdown flushes them.
func TestSetupExportsOverOTLP(t *testing.T) {
	var mu sync.Mutex
	var got []*coltrace.ExportTraceServiceRequest
	var paths, auth []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req := &coltrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(b, req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		got = append(got, req)
		paths = append(paths, r.URL.Path)
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	defer recv.Close()

	cfg, err := telemetry.ConfigFromEnv(env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL, "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20abc"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	shutdown, err := telemetry.Setup(ctx, cfg, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	tr := telemetry.Tracer()
	if tr == nil {
		_ = shutdown(ctx)
		t.Fatal("tracing is off after Setup")
	}
	_, span := tr.Start(ctx, "probe")
	span.End()
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if telemetry.Tracer() != nil {
		t.Error("tracing still on after shutdown")
	}

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || paths[0] != "/v1/traces" || auth[0] != "Bearer abc" {
		t.Fatalf("receiver got %d exports on %v with Authorization %v", len(got), paths, auth)
	}
	rs := got[0].GetResourceSpans()
	if len(rs) != 1 || len(rs[0].GetScopeSpans()) != 1 || len(rs[0].GetScopeSpans()[0].GetSpans()) != 1 {
		t.Fatalf("export: %v", got[0])
	}
	if name := rs[0].GetScopeSpans()[0].GetSpans()[0].GetName(); name != "probe" {
		t.Errorf("span name %q", name)
	}
	res := map[string]string{}
	for _, kv := range rs[0].GetResource().GetAttributes() {
		res[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	if res["service.name"] != "basalt" || res["service.version"] != "v1.2.3" {
		t.Errorf("resource %v, want service basalt v1.2.3", res)
	}
}

func TestSetupOffIsNoop(t *testing.T) {
	shutdown, err := telemetry.Setup(context.Background(), telemetry.Config{}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if telemetry.Tracer() != nil {
		t.Error("Setup without traces turned tracing on")
	}
	if err := shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestLogHandler: ids come from the context; a record that names its own
// request_id keeps it, and trace ids appear only with a span.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(&buf, nil))).With("svc", "x")
	ctx := telemetry.WithRequestID(context.Background(), "abc")
	log.InfoContext(ctx, "one")
	log.InfoContext(ctx, "two", "request_id", "own")
	log.Info("three")

	tp := sdktrace.NewTracerProvider()
	telemetry.SetTracerProvider(tp)
	defer telemetry.SetTracerProvider(nil)
	sctx, span := telemetry.Tracer().Start(ctx, "s")
	log.InfoContext(sctx, "four")
	span.End()

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.Count(l, `"request_id"`) > 1 {
			t.Errorf("request_id twice: %s", l)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("lines: %v", lines)
	}
	for i, want := range []any{"abc", "own", nil, "abc"} {
		if lines[i]["request_id"] != want || lines[i]["svc"] != "x" {
			t.Errorf("line %d: %v, want request_id %v", i, lines[i], want)
		}
	}
	if lines[0]["trace_id"] != nil {
		t.Errorf("trace_id without a span: %v", lines[0])
	}
	if lines[3]["trace_id"] != span.SpanContext().TraceID().String() || lines[3]["span_id"] != span.SpanContext().SpanID().String() {
		t.Errorf("line with a span: %v", lines[3])
	}
}

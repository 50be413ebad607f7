package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// someSpans is two resources' worth of spans.
func someSpans() []*tracepb.ResourceSpans {
	return []*tracepb.ResourceSpans{
		{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: "a", TraceId: bytes.Repeat([]byte{1}, 16), SpanId: bytes.Repeat([]byte{2}, 8)}}}}},
		{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: "b"}, {Name: "c"}}}}},
	}
}

// receiver answers each export with the next status of answers (the last
// one from then on) and keeps the decoded requests.
type receiver struct {
	answers  []int
	retry    string // Retry-After on failures
	calls    atomic.Int32
	got      []*coltrace.ExportTraceServiceRequest
	encoding []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(rc.calls.Add(1)) - 1
	status := rc.answers[min(n, len(rc.answers)-1)]
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body = zr
	}
	b, _ := io.ReadAll(body)
	req := &coltrace.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(b, req); err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", 400)
		return
	}
	rc.got = append(rc.got, req)
	rc.encoding = append(rc.encoding, r.Header.Get("Content-Encoding")+"|"+r.Header.Get("X-Team"))
	if status != 200 && rc.retry != "" {
		w.Header().Set("Retry-After", rc.retry)
	}
	w.WriteHeader(status)
}

func client(t *testing.T, url string, cfg Config) *otlpClient {
	t.Helper()
	cfg.Endpoint = url
	c, err := newOTLPClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.first, c.longest, c.total = 10*time.Millisecond, 20*time.Millisecond, 2*time.Second
	return c
}

// TestOTLPRequestIsTheCollectorsMessage: what the client posts decodes as
// the collector's ExportTraceServiceRequest with every span, compressed
// when asked, with the configured headers.
func TestOTLPRequestIsTheCollectorsMessage(t *testing.T) {
	for _, gz := range []bool{false, true} {
		rc := &receiver{answers: []int{200}}
		srv := httptest.NewServer(rc)
		c := client(t, srv.URL+"/v1/traces", Config{Gzip: gz, Headers: map[string]string{"X-Team": "core"}})
		if err := c.UploadTraces(context.Background(), someSpans()); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		want := &coltrace.ExportTraceServiceRequest{ResourceSpans: someSpans()}
		if len(rc.got) != 1 || !proto.Equal(rc.got[0], want) {
			t.Fatalf("gzip %v: collector got %v, want %v", gz, rc.got, want)
		}
		if wantEnc := map[bool]string{false: "|core", true: "gzip|core"}[gz]; rc.encoding[0] != wantEnc {
			t.Errorf("encoding and header %q, want %q", rc.encoding[0], wantEnc)
		}
	}
}

// TestOTLPRetries: a busy collector is asked again until it takes the
// export; a refusal is not retried; nothing outlives the export's timeout.
func TestOTLPRetries(t *testing.T) {
	rc := &receiver{answers: []int{503, 429, 200}, retry: "0"}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	if err := client(t, srv.URL, Config{}).UploadTraces(context.Background(), someSpans()); err != nil {
		t.Fatalf("after two busy answers: %v", err)
	}
	if n := rc.calls.Load(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}

	bad := &receiver{answers: []int{400}}
	srv2 := httptest.NewServer(bad)
	defer srv2.Close()
	err := client(t, srv2.URL, Config{}).UploadTraces(context.Background(), someSpans())
	if err == nil || !strings.Contains(err.Error(), "400") || bad.calls.Load() != 1 {
		t.Errorf("refused export: err %v after %d attempts, want the 400 after 1", err, bad.calls.Load())
	}

	down := &receiver{answers: []int{503}}
	srv3 := httptest.NewServer(down)
	defer srv3.Close()
	t0 := time.Now()
	err = client(t, srv3.URL, Config{Timeout: 100 * time.Millisecond}).UploadTraces(context.Background(), someSpans())
	if err == nil || time.Since(t0) > time.Second {
		t.Errorf("collector always busy: err %v after %s, want an error within the 100 ms timeout", err, time.Since(t0))
	}
}

// TestBinaryLinksNoGRPC keeps gRPC (a tenth of the binary, resident in
// every node's memory) out of cmd/basalt: only OTLP over HTTP is built in.
func TestBinaryLinksNoGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/basaltdev/basalt/cmd/basalt").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "google.golang.org/grpc") {
			t.Fatalf("cmd/basalt depends on %s", p)
		}
	}
}

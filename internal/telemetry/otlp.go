package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// otlpClient sends spans as OTLP over HTTP (protobuf), for the SDK's OTLP
// exporter (otlptrace), which turns spans into the protobuf messages.
// OpenTelemetry's own HTTP client builds its request from the collector
// service's package, which links gRPC into the binary (a tenth of its size,
// paid in memory by every node, tracing on or off); this one writes the
// request's single field itself.
type otlpClient struct {
	cfg  Config
	http *http.Client
	// retry waits: the first, the longest, and the total an export may
	// spend retrying.
	first, longest, total time.Duration
}

// Export retries, as OpenTelemetry's exporters do: a busy or unavailable
// collector (429, 502, 503, 504) is asked again after 5 s, doubling up to
// 30 s (or what its Retry-After says), for at most a minute.
const (
	retryFirst   = 5 * time.Second
	retryMax     = 30 * time.Second
	retryElapsed = time.Minute
)

func newOTLPClient(cfg Config) (*otlpClient, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.CAFile != "" || cfg.ClientCertFile != "" {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if cfg.CAFile != "" {
			pem, err := os.ReadFile(cfg.CAFile)
			if err != nil {
				return nil, fmt.Errorf("OTLP certificate: %w", err)
			}
			tc.RootCAs = x509.NewCertPool()
			if !tc.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("OTLP certificate %s: no PEM certificate in it", cfg.CAFile)
			}
		}
		if cfg.ClientCertFile != "" {
			cert, err := tls.LoadX509KeyPair(cfg.ClientCertFile, cfg.ClientKeyFile)
			if err != nil {
				return nil, fmt.Errorf("OTLP client certificate: %w", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		tr.TLSClientConfig = tc
	}
	return &otlpClient{cfg: cfg, http: &http.Client{Transport: tr}, first: retryFirst, longest: retryMax, total: retryElapsed}, nil
}

func (c *otlpClient) Start(context.Context) error { return nil }

func (c *otlpClient) Stop(context.Context) error {
	c.http.CloseIdleConnections()
	return nil
}

// UploadTraces posts one ExportTraceServiceRequest: its only field,
// resource_spans (1), repeated.
func (c *otlpClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	var body []byte
	for _, rs := range spans {
		b, err := proto.Marshal(rs)
		if err != nil {
			return fmt.Errorf("encode spans: %w", err)
		}
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendBytes(body, b)
	}
	if c.cfg.Gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		if err := zw.Close(); err != nil {
			return err
		}
		body = buf.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout())
	defer cancel()
	start, wait := time.Now(), c.first
	for {
		retry, err := c.post(ctx, body)
		if err == nil {
			return nil
		}
		if retry < 0 || time.Since(start)+max(retry, wait) > c.total {
			return err
		}
		retry = max(retry, wait)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (then %w)", err, ctx.Err())
		case <-time.After(retry):
		}
		wait = min(2*wait, c.longest)
	}
}

// post sends the request once. A failure the collector may get over comes
// with the wait it asked for (0: none said), any other with -1.
func (c *otlpClient) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Endpoint, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.cfg.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, fmt.Errorf("export spans: %w", err)
		}
		return 0, fmt.Errorf("export spans: %w", err)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close() // the body was read as far as it matters
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return 0, nil
	}
	err = fmt.Errorf("export spans: %s: %s", resp.Status, bytes.TrimSpace(msg))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if s, e := strconv.Atoi(resp.Header.Get("Retry-After")); e == nil && s >= 0 {
			return time.Duration(s) * time.Second, err
		}
		return 0, err
	}
	return -1, err
}

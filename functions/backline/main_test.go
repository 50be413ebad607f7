package backline_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/pgtest"
)

func pgtestMain(m *testing.M) { pgtest.Main(m, pgtest.WithApp()) }

func newRequest(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func webhookRequest(t *testing.T, url, body string, header map[string]string) *http.Request {
	t.Helper()
	req := newRequest(t, "POST", url, body)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

package httpx_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/httpx"
)

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	type body struct {
		Email string `json:"email"`
	}
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
		anyErr  bool
	}{
		{name: "fields", in: `{"email":"a@b.c"}`, want: "a@b.c"},
		{name: "unknown fields ignored", in: `{"email":"a@b.c","extra":1}`, want: "a@b.c"},
		{name: "empty body leaves defaults", in: "  ", want: "default"},
		{name: "too large", in: `{"email":"` + strings.Repeat("x", 100) + `"}`, wantErr: httpx.ErrBodyTooLarge},
		{name: "malformed", in: `{"email":`, anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("POST", "/", strings.NewReader(tt.in))
			b := body{Email: "default"}
			err := httpx.DecodeJSON(r, 64, &b)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			case tt.anyErr:
				if err == nil {
					t.Fatal("malformed JSON accepted")
				}
			case err != nil:
				t.Fatal(err)
			case b.Email != tt.want:
				t.Errorf("email = %q, want %q", b.Email, tt.want)
			}
		})
	}
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.7:5555"
	if got := httpx.ClientIP(r); got != "192.0.2.7" {
		t.Errorf("without gateway header: %q, want the socket peer", got)
	}
	r.Header.Set(httpx.ClientIPHeader, "203.0.113.5")
	if got := httpx.ClientIP(r); got != "203.0.113.5" {
		t.Errorf("with gateway header: %q", got)
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	httpx.WriteJSON(w, 418, map[string]string{"message": "teapot"})
	if w.Code != 418 || w.Header().Get("Content-Type") != "application/json" || strings.TrimSpace(w.Body.String()) != `{"message":"teapot"}` {
		t.Errorf("got %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
}

package httpjson

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWrite(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, http.StatusTeapot, map[string]string{"error": "a <b> & c"})
	if rec.Code != http.StatusTeapot {
		t.Errorf("status %d, want %d", rec.Code, http.StatusTeapot)
	}
	for k, want := range map[string]string{"Content-Type": "application/json", "X-Content-Type-Options": "nosniff"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if got, want := rec.Body.String(), `{"error":"a <b> & c"}`+"\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}

// A value encoding/json cannot encode still gets its status and headers;
// the body is empty.
func TestWrite_Unencodable(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, http.StatusOK, func() {})
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || rec.Body.Len() != 0 {
		t.Errorf("status %d, headers %v, body %q", rec.Code, rec.Header(), rec.Body.String())
	}
}

// WriteBytes sends Write's headers, the body as it is and its length.
func TestWriteBytes(t *testing.T) {
	rec := httptest.NewRecorder()
	body := []byte(`{"readings":[]}` + "\n")
	WriteBytes(rec, http.StatusOK, body)
	for k, want := range map[string]string{"Content-Type": "application/json", "X-Content-Type-Options": "nosniff", "Content-Length": "16"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if rec.Code != http.StatusOK || rec.Body.String() != string(body) {
		t.Errorf("status %d, body %q", rec.Code, rec.Body.String())
	}
}

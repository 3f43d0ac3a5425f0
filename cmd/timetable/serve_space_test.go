package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestServe_MinFreeBytes: on a folder whose tables exist, with
// --min-free-bytes above what any disk has, serve starts, /readyz fails
// and a write is refused 507 with the reason, while reads are served.
func TestServe_MinFreeBytes(t *testing.T) {
	dir := t.TempDir()
	var addr string
	get := func(method, path, body string) (int, string) {
		t.Helper()
		return call(t, method, "http://"+addr+path, "", "", body)
	}
	t.Run("first start", func(t *testing.T) { // makes the tables and a kind; stops at its end
		addr = serveInProcess(t, &ServeCommand{}, "--data", dir, "--no-auth", "--addr", "127.0.0.1:0")
		if code, body := get("POST", "/api/v1/kinds", `{"name":"SENSOR","fields":["v"]}`); code != http.StatusCreated {
			t.Fatalf("define a kind: %d %s", code, body)
		}
	})
	addr = serveInProcess(t, &ServeCommand{}, "--data", dir, "--no-auth", "--addr", "127.0.0.1:0",
		"--min-free-bytes", "1152921504606846976") // 1 EiB
	if code, body := get("GET", "/readyz", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "space") {
		t.Errorf("/readyz: %d %s, want 503 naming the lack of space", code, body)
	}
	if code, body := get("POST", "/api/v1/write", "SENSOR,series=a v=1"); code != http.StatusInsufficientStorage {
		t.Errorf("write: %d %s, want 507", code, body)
	}
	if code, body := get("GET", "/api/v1/kinds", ""); code != http.StatusOK {
		t.Errorf("a read: %d %s, want 200", code, body)
	}
}

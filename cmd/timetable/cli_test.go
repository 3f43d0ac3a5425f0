package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs the binary's command line in this process and returns its
// exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("timetable %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// TestCLI_DataFolder: kinds, write, query, latest, export and import on a
// data folder; what export writes, import reads back the same.
func TestCLI_DataFolder(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	mustCLI(t, "kinds", "create", "--data", data, "--name", "SENSOR", "--fields", "temperature,humidity", "--tags", "location")
	if out := mustCLI(t, "kinds", "--data", data); !strings.Contains(out, "SENSOR") || !strings.Contains(out, "temperature,humidity") {
		t.Fatalf("kinds:\n%s", out)
	}
	base := time.Now().UTC().Truncate(time.Hour).Add(-24 * time.Hour)
	var lp strings.Builder
	for i := range 30 {
		fmt.Fprintf(&lp, "SENSOR,series=s%d,location=lab temperature=%d,humidity=%d %d\n", i%3, 20+i, 40+i, base.Add(time.Duration(i)*time.Minute).UnixNano())
	}
	lpFile := filepath.Join(dir, "in.lp")
	if err := os.WriteFile(lpFile, []byte(lp.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "write", "--data", data, "--batch", "7", lpFile)

	out := mustCLI(t, "query", "SENSOR", "s0", "--data", data, "--from", base.Format(time.RFC3339))
	if got := strings.Count(out, "\n"); got != 11 { // header and 10 readings
		t.Fatalf("query printed %d lines:\n%s", got, out)
	}
	out = mustCLI(t, "latest", "SENSOR", "s1", "s2", "--data", data, "--format", "csv")
	if !strings.Contains(out, "s1,") || !strings.Contains(out, ",48,") || !strings.Contains(out, "s2,") {
		t.Fatalf("latest:\n%s", out)
	}
	out = mustCLI(t, "query", "SENSOR", "s0", "--data", data, "--from", base.Format(time.RFC3339), "--aggregate", "1h")
	if !strings.Contains(out, "10") {
		t.Fatalf("aggregate:\n%s", out)
	}

	// Export as CSV, import into another kind, export again: the same rows.
	csvFile := filepath.Join(dir, "out.csv")
	mustCLI(t, "export", "SENSOR", "--data", data, "--format", "csv", "-o", csvFile)
	mustCLI(t, "kinds", "create", "--data", data, "--name", "COPY", "--fields", "temperature,humidity", "--tags", "location")
	mustCLI(t, "import", "--data", data, "--kind", "COPY", "--format", "csv", csvFile)
	again := mustCLI(t, "export", "COPY", "--data", data, "--format", "csv")
	first, err := os.ReadFile(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != again || strings.Count(again, "\n") != 31 {
		t.Fatalf("export, import, export differ:\n%s\n---\n%s", first, again)
	}
	// JSON lines too.
	jsonl := mustCLI(t, "export", "SENSOR", "s0", "--data", data, "--format", "jsonl")
	jsonlFile := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(jsonlFile, []byte(jsonl), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "kinds", "create", "--data", data, "--name", "COPY2", "--fields", "temperature,humidity", "--tags", "location")
	mustCLI(t, "import", "--data", data, "--kind", "COPY2", "--format", "jsonl", jsonlFile)
	if again := mustCLI(t, "export", "COPY2", "s0", "--data", data, "--format", "jsonl"); again != jsonl {
		t.Fatalf("jsonl round trip:\n%s\n---\n%s", jsonl, again)
	}

	// A bad line is refused with its number, and nothing of the batch is written.
	bad := filepath.Join(dir, "bad.lp")
	if err := os.WriteFile(bad, []byte(fmt.Sprintf("SENSOR,series=new temperature=1 %d\nSENSOR,series=new temperature=\"warm\" %d\n", base.UnixNano(), base.UnixNano())), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "write", "--data", data, bad)
	if code != 1 || !strings.Contains(errs, "line 2") {
		t.Fatalf("bad write: exit %d: %s", code, errs)
	}
	if code, _, _ := runCLI(t, "latest", "SENSOR", "new", "--data", data); code != 0 {
		t.Fatalf("latest of a series with no reading: exit %d", code)
	}

	// Tokens on a data folder need no token.
	tok := strings.TrimSpace(mustCLI(t, "token", "create", "--data", data, "--name", "ci", "--scopes", "read"))
	if !strings.HasPrefix(tok, "tt_") {
		t.Fatalf("token: %q", tok)
	}
	if out := mustCLI(t, "token", "list", "--data", data); !strings.Contains(out, "ci") {
		t.Fatalf("token list:\n%s", out)
	}
}

// TestCLI_Server: the same commands against a running server, with tokens.
func TestCLI_Server(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	mustCLI(t, "kinds", "create", "--data", dir, "--name", "SENSOR", "--fields", "temperature")
	admin := strings.TrimSpace(mustCLI(t, "token", "create", "--data", dir, "--name", "admin", "--scopes", "admin"))
	srv := startServe(t, dir)
	reader := strings.TrimSpace(mustCLI(t, "token", "create", "--server", srv.url, "--token", admin, "--name", "r", "--scopes", "read"))

	lp := filepath.Join(t.TempDir(), "in.lp")
	ts := time.Now().Add(-time.Hour).UnixNano()
	if err := os.WriteFile(lp, []byte(fmt.Sprintf("SENSOR,series=a temperature=1.5 %d\n", ts)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "write", "--server", srv.url, "--token", reader, lp)
	if code != 1 || !strings.Contains(errs, "permission_denied") {
		t.Fatalf("write with a read token: exit %d %s", code, errs)
	}
	mustCLI(t, "write", "--server", srv.url, "--token", admin, lp)
	if out := mustCLI(t, "latest", "SENSOR", "a", "--server", srv.url, "--token", reader); !strings.Contains(out, "1.5") {
		t.Fatalf("latest:\n%s", out)
	}
	// The folder is held by the server: a client on it says so.
	code, _, errs = runCLI(t, "kinds", "--data", dir)
	if code != 1 || !strings.Contains(errs, "another timetable process") {
		t.Fatalf("kinds on a held folder: exit %d %s", code, errs)
	}
}

func TestCLI_HelpOnEveryCommand(t *testing.T) {
	for _, c := range commands {
		var stdout, stderr bytes.Buffer
		run(context.Background(), []string{"help", c.name}, &stdout, &stderr)
		if out := stdout.String(); !strings.Contains(out, "Usage") || (!strings.Contains(out, "Example") && !strings.Contains(out, "example")) {
			t.Errorf("timetable help %s lacks usage or an example:\n%s", c.name, out)
		}
	}
}

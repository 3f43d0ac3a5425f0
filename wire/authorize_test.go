package wire_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/timetable-db/timetable/wire"
)

// TestHandler_Authorize: the Authorize hook sees the target and the
// inflated body before the operation runs, and its error is the answer,
// the operation not run.
func TestHandler_Authorize(t *testing.T) {
	api := &stub{}
	var mu sync.Mutex
	var seen []string
	h := wire.New(api, &wire.Options{Authorize: func(_ context.Context, target string, body []byte) error {
		mu.Lock()
		seen = append(seen, target+" "+string(body))
		mu.Unlock()
		if strings.Contains(string(body), "secret") {
			return &wire.Error{Code: "AccessDeniedException", Message: "no", Status: http.StatusBadRequest}
		}
		return nil
	}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	if a := post(t, srv.URL, "DynamoDB_20120810.DescribeTable", `{"TableName":"open"}`, true); a.status != 200 {
		t.Fatalf("allowed: %d %s", a.status, a.body)
	}
	api.set(nil, nil)
	a := post(t, srv.URL, "DynamoDB_20120810.DescribeTable", `{"TableName":"secret"}`, true)
	if a.status != 400 || !strings.HasSuffix(a.typ, "#AccessDeniedException") || api.input() != nil {
		t.Fatalf("refused: %d %s %s, ran: %v", a.status, a.typ, a.body, api.input())
	}
	// A gzip body is seen inflated.
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	_, _ = zw.Write([]byte(`{"TableName":"secret"}`))
	_ = zw.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, &zb)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Authorization", testAuth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || api.input() != nil {
		t.Fatalf("gzip refused: %d, ran: %v", resp.StatusCode, api.input())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0] != `DynamoDB_20120810.DescribeTable {"TableName":"open"}` || seen[2] != seen[1] {
		t.Fatalf("the hook saw %q", seen)
	}
}

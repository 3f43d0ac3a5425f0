package wire_test

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/wire"
)

// putRequest returns a PutItem request whose body comes from body, with
// the given Content-Length (-1: none, as a chunked upload).
func putRequest(body io.Reader, length int64) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/", body)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
	req.Header.Set("Authorization", testAuth)
	req.ContentLength = length
	return req
}

// TestHandler_InFlightBytesBounded checks that the bodies held at once are
// bounded: while one request holds the whole budget, another is answered
// ThrottlingException without its body being read; once the first is
// done, the budget is back.
func TestHandler_InFlightBytesBounded(t *testing.T) {
	const limit = 1 << 20
	h := wire.New(&stub{}, &wire.Options{MaxBodyBytes: limit, MaxInFlightBytes: limit + 1})
	item := `{"TableName":"t","Item":{"k":{"S":"` + strings.Repeat("x", limit/2) + `"}}}`

	pr, pw := io.Pipe()
	first := make(chan int)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, putRequest(pr, int64(len(item))))
		first <- w.Code
	}()
	// Once the handler has read the first bytes, it holds the body's length.
	if _, err := io.WriteString(pw, item[:10]); err != nil {
		t.Fatal(err)
	}

	second := &countingReader{r: strings.NewReader(item)}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, putRequest(second, int64(len(item))))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "ThrottlingException") {
		t.Fatalf("second request while the first holds the budget: %d %s", w.Code, w.Body)
	}
	if second.n != 0 {
		t.Errorf("the refused request's body was read: %d bytes", second.n)
	}

	if _, err := io.WriteString(pw, item[10:]); err != nil {
		t.Fatal(err)
	}
	_ = pw.Close()
	if code := <-first; code != http.StatusOK {
		t.Fatalf("first request: %d", code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, putRequest(strings.NewReader(item), int64(len(item))))
	if w.Code != http.StatusOK {
		t.Fatalf("a request after the first finished: %d %s", w.Code, w.Body)
	}
}

// TestHandler_SharedBudget: with Options.Budget, a request's body buffer
// is held in that budget while it is served and given back after; a
// request the budget refuses is answered ThrottlingException, its body
// unread.
func TestHandler_SharedBudget(t *testing.T) {
	b := testenv.NewBudget(math.MaxInt64)
	h := wire.New(&stub{}, &wire.Options{Budget: b})
	item := `{"TableName":"t","Item":{"k":{"S":"` + strings.Repeat("x", 100_000) + `"}}}`
	w := httptest.NewRecorder()
	h.ServeHTTP(w, putRequest(strings.NewReader(item), int64(len(item))))
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if held, peak := b.State(); held != 0 || peak <= int64(len(item)) {
		t.Errorf("held %d after, peak %d for a body of %d", held, peak, len(item))
	}
	b.SetSize(0)
	body := &countingReader{r: strings.NewReader(item)}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, putRequest(body, int64(len(item))))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "ThrottlingException") || body.n != 0 {
		t.Errorf("with the budget spent: %d %s, %d bytes read", w.Code, w.Body, body.n)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestHandler_ChunkedBodyOverLimit checks that a body without a length
// that runs past the limit is refused having read little more than the
// limit, so a 50 MB upload cannot make the handler buffer 50 MB.
func TestHandler_ChunkedBodyOverLimit(t *testing.T) {
	const limit = 1 << 20
	h := wire.New(&stub{}, &wire.Options{MaxBodyBytes: limit})
	body := &countingReader{r: io.LimitReader(zeros{}, 50<<20)}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, putRequest(body, -1))
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d %s", w.Code, w.Body)
	}
	if body.n > limit+64<<10 {
		t.Errorf("read %d bytes of a body over the %d-byte limit", body.n, limit)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestHandler_SlowBodyDropped checks that a body sent too slowly does not
// keep its connection: the handler's body deadline closes it.
func TestHandler_SlowBodyDropped(t *testing.T) {
	h := wire.New(&stub{}, &wire.Options{BodyTimeout: 200 * time.Millisecond})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nAuthorization: %s\r\nContent-Length: 1000\r\n\r\n{\"Ta", testAuth)
	// The rest never comes. The server must give up and close the
	// connection; 30 s is not a measure, only a bound on a hang.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.Copy(io.Discard, bufio.NewReader(conn))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection of a stalled body is still open after 30 s")
	}
}

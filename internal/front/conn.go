package front

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// headBufSize is the read buffer of a connection, and so the largest head
// the fast path takes; a longer one goes to net/http.
const headBufSize = 4 << 10

// maxDiscard is the most unread body bytes drained after an answer to keep
// the connection; past it the connection is closed, as net/http does.
const maxDiscard = 256 << 10

// maxPooled is the largest answer buffer put back in the pool.
const maxPooled = 64 << 10

// buffers holds the answer buffers between requests, so an idle
// connection holds none.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func getBuffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

func putBuffer(b []byte) {
	if cap(b) <= maxPooled {
		buffers.Put(&b)
	}
}

// Connection states: a connection waits for a request while idle; Shutdown
// closes idle connections only.
const (
	stateIdle int32 = iota
	stateActive
	stateClosed
)

// conn is one accepted connection while the fast path serves it.
type conn struct {
	s      *Server
	nc     net.Conn
	br     *bufio.Reader
	state  atomic.Int32
	remote string
	ctx    context.Context
	head   head
	url    url.URL
	body   body
	w      responseWriter
}

var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, headBufSize) }}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{s: s, nc: nc, remote: nc.RemoteAddr().String()}
	c.head.header = make(http.Header, 16)
	c.w.header = make(http.Header, 8)
	c.w.c = c
	return c
}

// serve reads requests and answers those of the fast path until the
// connection ends or is handed to net/http.
func (c *conn) serve() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.ctx = ctx
	c.br = readers.Get().(*bufio.Reader)
	c.br.Reset(c.nc)
	handedOff := false
	defer func() {
		c.br.Reset(nil)
		readers.Put(c.br)
		if !handedOff {
			c.state.Store(stateClosed)
			_ = c.nc.Close()
		}
		c.s.untrack(c)
	}()
	for first := true; ; first = false {
		if !c.await(first) {
			return
		}
		raw, ok := c.readHead()
		if raw == nil {
			if ok {
				handedOff = c.handOff()
			}
			return
		}
		if !parseHead(raw, c.s.MaxBodyBytes, &c.head) {
			handedOff = c.handOff()
			return
		}
		_, _ = c.br.Discard(len(raw))
		if !c.serveRequest() {
			return
		}
	}
}

// await waits for the first byte of the next request (the header timeout
// for the first request, the idle timeout between requests) and marks the
// connection active; false when the connection ended or the server is
// shutting down.
func (c *conn) await(first bool) bool {
	c.state.Store(stateIdle)
	if c.s.closing.Load() {
		return false
	}
	if c.br.Buffered() == 0 {
		wait := c.s.IdleTimeout
		if first {
			wait = c.s.HeaderTimeout
		}
		_ = c.nc.SetReadDeadline(time.Now().Add(wait))
		if _, err := c.br.Peek(1); err != nil {
			return false
		}
	}
	return c.state.CompareAndSwap(stateIdle, stateActive)
}

// closeIfIdle closes the connection if it is waiting for a request.
func (c *conn) closeIfIdle() {
	if c.state.CompareAndSwap(stateIdle, stateClosed) {
		_ = c.nc.Close()
	}
}

// readHead reads until the blank line that ends a request head and
// returns the head, still buffered. It returns nil and true when the
// request is for net/http: its first bytes are not the fast path's
// request line, or its head does not fit the buffer; nil and false when
// the connection failed or the head timed out.
func (c *conn) readHead() (raw []byte, handOff bool) {
	for deadline := false; ; {
		buf, _ := c.br.Peek(c.br.Buffered())
		if n := min(len(buf), len(requestLine)); !bytes.Equal(buf[:n], requestLine[:n]) {
			return nil, true
		}
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			return buf[:i+4], false
		}
		if len(buf) == c.br.Size() {
			return nil, true
		}
		// The head timeout matters only when the head is not all here:
		// setting a deadline costs a timer update.
		if !deadline {
			_ = c.nc.SetReadDeadline(time.Now().Add(c.s.HeaderTimeout))
			deadline = true
		}
		if _, err := c.br.Peek(len(buf) + 1); err != nil {
			return nil, false
		}
	}
}

// handOff gives the connection, with the bytes already read, to the
// fallback server, and reports whether it took it.
func (c *conn) handOff() bool {
	pending, _ := c.br.Peek(c.br.Buffered())
	_ = c.nc.SetReadDeadline(time.Time{})
	c.state.Store(stateClosed) // no longer ours to close
	c.s.handedOff.Add(1)
	return c.s.handoff.give(&handoffConn{Conn: c.nc, pending: bytes.Clone(pending)})
}

// serveRequest answers the request whose head is in c.head and reports
// whether the connection may serve another.
func (c *conn) serveRequest() (keep bool) {
	if int64(c.br.Buffered()) < c.head.contentLength {
		// Reading the body will wait for the client: bound it.
		_ = c.nc.SetReadDeadline(time.Now().Add(c.s.ReadTimeout))
	}
	c.body = body{br: c.br, n: c.head.contentLength}
	c.url = url.URL{Path: "/"}
	r := (&http.Request{
		Method:        http.MethodPost,
		URL:           &c.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        c.head.header,
		Body:          &c.body,
		ContentLength: c.head.contentLength,
		Host:          c.head.host,
		RemoteAddr:    c.remote,
		RequestURI:    "/",
	}).WithContext(c.ctx)
	c.w.reset()
	c.s.fast.Add(1)
	if !c.call(r) {
		return false
	}
	keep = c.drain() && !c.s.closing.Load()
	if err := c.w.finish(!keep); err != nil {
		return false
	}
	return keep && !c.w.closeAfter
}

// call runs the handler, and reports false if it panicked (the
// connection is then closed without an answer, as net/http does).
func (c *conn) call(r *http.Request) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ok = false
			if p != http.ErrAbortHandler {
				c.s.Logger.Error("front: handler panic", "remote", c.remote, "panic", p)
			}
		}
	}()
	c.s.Handler.ServeHTTP(&c.w, r)
	return true
}

// drain reads what the handler left of the body, when that is little,
// and reports whether the connection is still in step with its requests.
func (c *conn) drain() bool {
	if c.body.err != nil {
		return false
	}
	if c.body.n == 0 {
		return true
	}
	if c.body.n > maxDiscard {
		return false
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(c.s.ReadTimeout))
	_, err := io.Copy(io.Discard, &c.body)
	return err == nil && c.body.n == 0
}

// body is a request body of known length read from the connection.
type body struct {
	br  *bufio.Reader
	n   int64 // bytes left
	err error // the connection's error, if reading failed
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	k, err := b.br.Read(p)
	b.n -= int64(k)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		b.err = err
		return k, err
	}
	return k, nil
}

func (b *body) Close() error { return nil }

// handoffConn is a connection given to net/http: it reads the bytes the
// fast path had buffered before the rest.
type handoffConn struct {
	net.Conn
	pending []byte
}

// CloseWrite half-closes the connection when it can, as net/http does
// before closing after an error answer, so the client reads the answer
// before the close.
func (h *handoffConn) CloseWrite() error {
	if cw, ok := h.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (h *handoffConn) Read(p []byte) (int, error) {
	if len(h.pending) > 0 {
		n := copy(p, h.pending)
		h.pending = h.pending[n:]
		return n, nil
	}
	return h.Conn.Read(p)
}

// responseWriter collects an answer and writes it, head and body, in one
// write when the handler returns.
type responseWriter struct {
	c          *conn
	header     http.Header
	status     int
	body       []byte // from the pool while a request is served
	closeAfter bool
}

func (w *responseWriter) reset() {
	clear(w.header)
	w.status = 0
	w.body = getBuffer()
	w.closeAfter = false
}

func (w *responseWriter) Header() http.Header { return w.header }

// WriteHeader records the status; informational (1xx) statuses are not
// sent, and a second call is ignored, as net/http ignores it.
func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic("front: invalid WriteHeader code " + strconv.Itoa(code))
	}
	if w.status != 0 || code < 200 {
		return
	}
	w.status = code
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

// SetReadDeadline and SetWriteDeadline serve http.ResponseController.
func (w *responseWriter) SetReadDeadline(t time.Time) error  { return w.c.nc.SetReadDeadline(t) }
func (w *responseWriter) SetWriteDeadline(t time.Time) error { return w.c.nc.SetWriteDeadline(t) }

// finish writes the answer: the status line, the handler's fields (with
// Content-Length set to the body's length, and Content-Type, Date and
// Connection as net/http sets them), and the body.
func (w *responseWriter) finish(closing bool) error {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if v := w.header.Get("Connection"); v != "" && asciiEqualFold(v, "close") {
		w.closeAfter = true
	}
	closing = closing || w.closeAfter
	b := getBuffer()
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(w.status), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(w.status)...)
	b = append(b, "\r\n"...)
	for k, vs := range w.header {
		switch k {
		case "Content-Length", "Connection", "Transfer-Encoding":
			continue
		}
		for _, v := range vs {
			b = appendField(b, k, v)
		}
	}
	if _, ok := w.header["Content-Type"]; !ok && len(w.body) > 0 {
		b = appendField(b, "Content-Type", http.DetectContentType(w.body))
	}
	if _, ok := w.header["Date"]; !ok {
		b = append(b, "Date: "...)
		b = append(b, httpDate()...)
		b = append(b, "\r\n"...)
	}
	if closing {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(w.body)), 10)
	b = append(b, "\r\n\r\n"...)
	_ = w.c.nc.SetWriteDeadline(time.Now().Add(w.c.s.WriteTimeout))
	var err error
	if len(w.body) <= 16<<10 {
		b = append(b, w.body...)
		_, err = w.c.nc.Write(b)
	} else {
		bufs := net.Buffers{b, w.body}
		_, err = bufs.WriteTo(w.c.nc)
	}
	putBuffer(b)
	putBuffer(w.body)
	w.body = nil
	return err
}

// appendField appends "name: value\r\n", with any CR or LF in the value
// turned into a space, as net/http writes fields.
func appendField(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	start := len(b)
	b = append(b, value...)
	if strings.ContainsAny(value, "\r\n") {
		for i := start; i < len(b); i++ {
			if b[i] == '\r' || b[i] == '\n' {
				b[i] = ' '
			}
		}
	}
	return append(b, "\r\n"...)
}

// dateCache holds the Date field's value for the current second.
type dateCache struct {
	sec   int64
	value string
}

var lastDate atomic.Pointer[dateCache]

// httpDate returns the current time in HTTP's date format, formatted at
// most once a second.
func httpDate() string {
	now := time.Now()
	sec := now.Unix()
	if d := lastDate.Load(); d != nil && d.sec == sec {
		return d.value
	}
	d := &dateCache{sec: sec, value: now.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.value
}

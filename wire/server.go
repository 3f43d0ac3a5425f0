package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Server serves a Handler on a listener like an http.Server, with a fast
// path for the requests DynamoDB's clients send: a POST over HTTP/1.1 with
// a Content-Length and the usual headers is parsed, answered and written
// here, without net/http's per-request machinery (its request and header
// objects, the background read it starts on every connection while a
// handler runs, its buffered writer). The answer is byte for byte the one
// ServeHTTP gives, headers included.
//
// Any connection whose request is not of that shape (another method such as
// the health check's GET, HTTP/1.0, a chunked or compressed body, an
// Expect or Upgrade header, a missing Host, a malformed or very large
// header block) is handed over, with the bytes already read, to Fallback,
// which serves it, and the rest of that connection, through net/http.
type Server struct {
	// Handler answers the requests. Required.
	Handler *Handler

	// Fallback serves the connections the fast path hands over; its
	// Handler should be Handler (it is set to it when nil). Its timeouts,
	// error log and limits apply to those connections. Default: an
	// http.Server with ReadHeaderTimeout 30 s and IdleTimeout 5 min.
	Fallback *http.Server

	// IdleTimeout bounds how long a connection may wait for its next
	// request, and how long a request's body may take to arrive. Default 5
	// minutes.
	IdleTimeout time.Duration

	// ReadHeaderTimeout bounds how long a request's line and headers may
	// take to arrive once its first byte has. Default 30 seconds.
	ReadHeaderTimeout time.Duration

	once    sync.Once
	mu      sync.Mutex
	ln      net.Listener
	conns   map[*fastConn]struct{}
	handoff *handoffListener
	fbDone  chan struct{}
	closing atomic.Bool
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
}

// maxHeaderBlock bounds the request line and headers the fast path parses;
// a larger block goes to the fallback, which applies its own limit.
const maxHeaderBlock = 16 << 10

// maxDiscard is the size of the largest unread request body skipped to
// keep a connection, net/http's maxPostHandlerReadBytes.
const maxDiscard = 256 << 10

func (s *Server) init() {
	s.once.Do(func() {
		if s.Fallback == nil {
			s.Fallback = &http.Server{ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 5 * time.Minute}
		}
		if s.Fallback.Handler == nil {
			s.Fallback.Handler = s.Handler
		}
		if s.IdleTimeout <= 0 {
			s.IdleTimeout = 5 * time.Minute
		}
		if s.ReadHeaderTimeout <= 0 {
			s.ReadHeaderTimeout = 30 * time.Second
		}
		s.conns = map[*fastConn]struct{}{}
		s.ctx, s.cancel = context.WithCancel(context.Background())
		s.fbDone = make(chan struct{})
	})
}

// Serve accepts connections on ln and serves them until Shutdown or Close,
// when it returns http.ErrServerClosed; it returns other errors of ln at
// once. It closes ln.
func (s *Server) Serve(ln net.Listener) error {
	s.init()
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.ln = ln
	s.handoff = &handoffListener{addr: ln.Addr(), conns: make(chan net.Conn), done: make(chan struct{})}
	s.mu.Unlock()
	go func() {
		defer close(s.fbDone)
		_ = s.Fallback.Serve(s.handoff)
	}()
	defer ln.Close()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		fc := &fastConn{s: s, c: c}
		s.mu.Lock()
		if s.closing.Load() {
			s.mu.Unlock()
			c.Close()
			return http.ErrServerClosed
		}
		s.conns[fc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go fc.serve()
	}
}

// Shutdown stops accepting connections, closes the idle ones, lets the
// requests in flight finish and closes their connections after them, and
// shuts the fallback down; it returns when all is done or ctx is, with
// ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.init()
	s.stopAccepting()
	s.mu.Lock()
	for fc := range s.conns {
		fc.closeIfIdle()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	fbErr := s.Fallback.Shutdown(ctx)
	select {
	case <-done:
		s.cancel()
		return fbErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close closes the listener and every connection at once.
func (s *Server) Close() error {
	s.init()
	s.stopAccepting()
	s.cancel()
	s.mu.Lock()
	for fc := range s.conns {
		fc.c.Close()
	}
	s.mu.Unlock()
	return s.Fallback.Close()
}

func (s *Server) stopAccepting() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Swap(true) {
		return
	}
	if s.ln != nil {
		s.ln.Close()
	}
	if s.handoff != nil {
		s.handoff.Close()
	}
}

func (s *Server) forget(fc *fastConn) {
	s.mu.Lock()
	delete(s.conns, fc)
	s.mu.Unlock()
	s.wg.Done()
}

// fastConn is one connection served by the fast path.
type fastConn struct {
	s  *Server
	c  net.Conn
	br *bufio.Reader

	head   []byte // the header of the answer being written
	unread bool   // closing with a request body unread

	mu   sync.Mutex
	idle bool // waiting for the first byte of a request
}

// closeIfIdle makes a connection waiting for a request give up now; a busy
// one closes after its answer, as Server.closing is set.
func (fc *fastConn) closeIfIdle() {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.idle {
		_ = fc.c.SetReadDeadline(time.Unix(1, 0))
	}
}

func (fc *fastConn) setIdle(idle bool) {
	fc.mu.Lock()
	fc.idle = idle
	fc.mu.Unlock()
}

var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, maxHeaderBlock) }}

// request is what the fast path reads of a request's header.
type request struct {
	target        string
	auth          bool
	contentLength int64
	close         bool // Connection: close
}

func (fc *fastConn) serve() {
	defer fc.s.forget(fc)
	fc.br = readers.Get().(*bufio.Reader)
	fc.br.Reset(fc.c)
	handedOver := false
	defer func() {
		if !handedOver {
			if cw, ok := fc.c.(interface{ CloseWrite() error }); ok && fc.unread {
				// As net/http does: let the client read the answer
				// before the unread body makes the close a reset.
				_ = cw.CloseWrite()
				time.Sleep(500 * time.Millisecond)
			}
			fc.c.Close()
			fc.br.Reset(nil)
			readers.Put(fc.br)
		}
	}()
	out := getBuf()
	defer putBuf(out)
	for {
		if fc.s.closing.Load() {
			return
		}
		fc.setIdle(true)
		if fc.s.closing.Load() {
			return
		}
		_ = fc.c.SetReadDeadline(time.Now().Add(fc.s.IdleTimeout))
		_, err := fc.br.Peek(1)
		fc.setIdle(false)
		if err != nil {
			return
		}
		// A Shutdown may have expired the deadline between the Peek and
		// setIdle: this request is served, within a fresh deadline.
		_ = fc.c.SetReadDeadline(time.Now().Add(fc.s.ReadHeaderTimeout))
		req, n, err := parseHeader(fc.br)
		if err == errHandOver {
			handedOver = fc.handOver()
			return
		}
		if err != nil {
			return
		}
		_, _ = fc.br.Discard(n)
		if int64(fc.br.Buffered()) < req.contentLength {
			// The body is still coming: it gets as long as an idle wait.
			_ = fc.c.SetReadDeadline(time.Now().Add(fc.s.IdleTimeout))
		}
		h := fc.s.Handler
		var status int
		buf := (*out)[:0]
		if req.contentLength > h.maxBody {
			buf, status = appendError(buf, h.errTooLarge())
			// As net/http does: a small unread body is skipped to keep the
			// connection; after a larger one it is closed.
			if req.contentLength <= maxDiscard {
				if _, err := fc.br.Discard(int(req.contentLength)); err != nil {
					return
				}
			} else {
				req.close, fc.unread = true, true
			}
		} else {
			in := getBuf()
			body := *in
			if int64(cap(body)) < req.contentLength {
				body = make([]byte, req.contentLength)
			}
			body = body[:req.contentLength]
			if _, err := io.ReadFull(fc.br, body); err != nil {
				putBuf(in)
				return
			}
			buf, status = h.answer(fc.s.ctx, req.target, req.auth, body, buf)
			*in = body[:0]
			putBuf(in)
		}
		fc.head = appendHead(fc.head[:0], status, buf, req.close)
		bufs := net.Buffers{fc.head, buf}
		_, err = bufs.WriteTo(fc.c)
		*out = buf[:0]
		if err != nil || req.close {
			return
		}
	}
}

// handOver passes the connection, with what is buffered of it, to the
// fallback server. It reports whether the fallback took it.
func (fc *fastConn) handOver() bool {
	pc := &prefixedConn{Conn: fc.c, br: fc.br}
	_ = fc.c.SetReadDeadline(time.Time{})
	return fc.s.handoff.give(pc)
}

// errHandOver means a request the fast path leaves to the fallback.
var errHandOver = errors.New("wire: request for net/http")

// parseHeader parses the request line and headers in br (reading until
// they are all buffered) without consuming them. It returns the request and
// the length of the header block; errHandOver if the fast path does not
// serve it, or the error reading it.
func parseHeader(br *bufio.Reader) (request, int, error) {
	var req request
	// Wait for the whole header block.
	var block []byte
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			block = buf[:i+4]
			break
		}
		if br.Buffered() >= maxHeaderBlock {
			return req, 0, errHandOver
		}
		// Read more: Peek one byte past what is buffered.
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			return req, 0, err
		}
	}
	n := len(block)
	line, rest, _ := bytes.Cut(block, []byte("\r\n"))
	method, line, ok1 := bytes.Cut(line, []byte(" "))
	uri, proto, ok2 := bytes.Cut(line, []byte(" "))
	if !ok1 || !ok2 || string(method) != "POST" || string(proto) != "HTTP/1.1" || len(uri) == 0 || uri[0] != '/' {
		return req, 0, errHandOver
	}
	hasHost, hasLength, seenAuth := false, false, false
	for len(rest) > 2 {
		var hl []byte
		hl, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(hl, []byte(":"))
		if !ok || len(name) == 0 || !validName(name) || bytes.IndexByte(value, '\n') >= 0 || bytes.IndexByte(value, '\r') >= 0 {
			return req, 0, errHandOver
		}
		value = bytes.Trim(value, " \t")
		switch len(name) {
		case 4:
			if equalFold(name, "host") {
				if hasHost {
					return req, 0, errHandOver
				}
				hasHost = true
			}
		case 6:
			if equalFold(name, "expect") {
				return req, 0, errHandOver
			}
		case 7:
			if equalFold(name, "upgrade") {
				return req, 0, errHandOver
			}
		case 10:
			if equalFold(name, "connection") {
				switch {
				case equalFold(value, "close"):
					req.close = true
				case equalFold(value, "keep-alive"):
				default:
					return req, 0, errHandOver
				}
			}
		case 12:
			if equalFold(name, "x-amz-target") {
				if req.target != "" {
					return req, 0, errHandOver
				}
				req.target = string(value)
			}
		case 13:
			if equalFold(name, "authorization") && !seenAuth {
				// net/http's Header.Get reads the first one.
				req.auth, seenAuth = len(value) > 0, true
			}
		case 14:
			if equalFold(name, "content-length") {
				if hasLength || len(value) == 0 || len(value) > 18 {
					return req, 0, errHandOver
				}
				v, err := strconv.ParseInt(string(value), 10, 64)
				if err != nil || v < 0 || value[0] == '+' {
					return req, 0, errHandOver
				}
				req.contentLength, hasLength = v, true
			}
		case 16:
			if equalFold(name, "content-encoding") {
				return req, 0, errHandOver
			}
		case 17:
			if equalFold(name, "transfer-encoding") {
				return req, 0, errHandOver
			}
		}
	}
	if !hasHost || !hasLength {
		return req, 0, errHandOver
	}
	return req, n, nil
}

// validName reports whether a header name is an HTTP token.
func validName(name []byte) bool {
	for _, c := range name {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), c) >= 0 {
			return false
		}
	}
	return true
}

// equalFold compares b with lower, an ASCII lower-case string, ignoring
// ASCII case.
func equalFold[T []byte | string](b []byte, lower T) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// appendHead appends the status line and headers of an answer with body:
// those ServeHTTP's answers have through net/http.
func appendHead(b []byte, status int, body []byte, close bool) []byte {
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(status)...)
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\nContent-Type: application/x-amz-json-1.0\r\nDate: "...)
	b = appendDate(b)
	b = append(b, "\r\nX-Amz-Crc32: "...)
	b = strconv.AppendUint(b, uint64(crc32.ChecksumIEEE(body)), 10)
	b = append(b, "\r\nX-Amzn-Requestid: "...)
	b = appendRequestID(b)
	if close {
		b = append(b, "\r\nConnection: close"...)
	}
	return append(b, "\r\n\r\n"...)
}

// The Date header changes once a second: it is formatted once a second.
var dateCache atomic.Pointer[cachedDate]

type cachedDate struct {
	sec  int64
	text string
}

func appendDate(b []byte) []byte {
	now := time.Now()
	d := dateCache.Load()
	if d == nil || d.sec != now.Unix() {
		d = &cachedDate{sec: now.Unix(), text: now.UTC().Format(http.TimeFormat)}
		dateCache.Store(d)
	}
	return append(b, d.text...)
}

// handoffListener is the listener of the fallback server: it accepts the
// connections the fast path gives it.
type handoffListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// give hands c to the fallback; false if it is closed.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// prefixedConn is a connection whose first bytes were read into br.
type prefixedConn struct {
	net.Conn
	br *bufio.Reader
}

func (c *prefixedConn) Read(p []byte) (int, error) {
	if c.br != nil {
		if c.br.Buffered() > 0 {
			return c.br.Read(p)
		}
		c.br.Reset(nil)
		readers.Put(c.br)
		c.br = nil
	}
	return c.Conn.Read(p)
}

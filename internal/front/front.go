// Package front accepts the HTTP/1.1 connections of timetable serve. It
// answers the plain DynamoDB requests that make up nearly all of a DynamoDB
// client's traffic itself, and hands every other connection to a net/http
// server, which then serves it for the rest of its life.
//
// A request takes the fast path when it is exactly what the AWS SDKs send:
// "POST / HTTP/1.1", an X-Amz-Target field, a Content-Length within the
// limit, no Transfer-Encoding, Expect or Upgrade, and a head of at most
// 4 KiB that net/http would read the same way. The fast path builds an
// *http.Request for it and calls the same http.Handler net/http serves, with
// a ResponseWriter that writes the answer in one system call; what it
// saves is net/http's per-request work (parsing every field through
// textproto, a goroutine per request to watch for the client leaving, a
// cloned header map, a chunked writer), about as much CPU as the handler's
// own work for a small DynamoDB request.
//
// Any other request (a browser's page, a health check, a request net/http
// would refuse) is not parsed further: its connection, with the bytes
// already read, goes to the net/http server, so it gets exactly net/http's
// behaviour and errors.
package front

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server serves a listener with a fast path in front of Fallback.
type Server struct {
	// Handler answers the requests of the fast path: the same handler
	// Fallback serves.
	Handler http.Handler

	// Fallback serves every connection the fast path does not take. Its
	// Handler is called for those requests; its timeouts apply to them.
	Fallback *http.Server

	// MaxBodyBytes is the largest Content-Length the fast path takes; a
	// larger request goes to Fallback (and its handler's limit). Default
	// 16 MiB.
	MaxBodyBytes int64

	// HeaderTimeout bounds the time to read a request head once its first
	// byte has arrived; IdleTimeout the wait for the next request on a
	// connection; ReadTimeout the time from the head to the end of the
	// body (the handler may set its own deadline); WriteTimeout the time to
	// write an answer. Defaults 10 s, 5 min, 5 min, 1 min.
	HeaderTimeout, IdleTimeout, ReadTimeout, WriteTimeout time.Duration

	// Logger receives handler panics. Default: discard.
	Logger *slog.Logger

	fast, handedOff atomic.Uint64 // see Stats

	mu      sync.Mutex
	ln      net.Listener
	handoff *handoffListener
	conns   map[*conn]struct{}
	closing atomic.Bool
	active  sync.WaitGroup // connections being served on the fast path
}

// Stats counts what the server did since it started.
type Stats struct {
	// FastRequests is the number of requests answered on the fast path.
	FastRequests uint64
	// HandedOff is the number of connections handed to Fallback.
	HandedOff uint64
}

// Stats returns the server's counts so far.
func (s *Server) Stats() Stats {
	return Stats{FastRequests: s.fast.Load(), HandedOff: s.handedOff.Load()}
}

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = http.ErrServerClosed

func (s *Server) defaults() {
	if s.MaxBodyBytes <= 0 {
		s.MaxBodyBytes = 16 << 20
	}
	if s.HeaderTimeout <= 0 {
		s.HeaderTimeout = 10 * time.Second
	}
	if s.IdleTimeout <= 0 {
		s.IdleTimeout = 5 * time.Minute
	}
	if s.ReadTimeout <= 0 {
		s.ReadTimeout = 5 * time.Minute
	}
	if s.WriteTimeout <= 0 {
		s.WriteTimeout = time.Minute
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
}

// Serve accepts connections on ln until Shutdown or an accept error, and
// runs Fallback on the connections it hands over. It returns
// ErrServerClosed after Shutdown, or the listener's error.
func (s *Server) Serve(ln net.Listener) error {
	s.defaults()
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.ln = ln
	s.handoff = newHandoffListener(ln.Addr())
	s.conns = make(map[*conn]struct{})
	handoff := s.handoff
	s.mu.Unlock()
	// Fallback.Serve returns when Shutdown or Close closes handoff.
	go func() { _ = s.Fallback.Serve(handoff) }()

	var delay time.Duration // after a temporary accept error, as net/http
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			_ = handoff.Close()
			return err
		}
		delay = 0
		c := newConn(s, nc)
		if !s.track(c) {
			_ = nc.Close()
			return ErrServerClosed
		}
		go c.serve()
	}
}

// track registers a new connection; false after Shutdown began.
func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	s.active.Add(1)
	return true
}

// untrack forgets a connection that was closed or handed over.
func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.active.Done()
}

// Shutdown stops accepting, closes the fast path's idle connections, waits
// for its requests in progress to be answered, and shuts Fallback down,
// all within ctx; past ctx it closes every connection and returns ctx's
// error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing.Store(true)
	ln := s.ln
	for c := range s.conns {
		c.closeIfIdle()
	}
	s.mu.Unlock()
	if ln == nil {
		return s.Fallback.Shutdown(ctx)
	}
	_ = ln.Close()

	done := make(chan struct{})
	go func() { s.active.Wait(); close(done) }()
	fbErr := s.Fallback.Shutdown(ctx)
	select {
	case <-done:
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			_ = c.nc.Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
	return fbErr
}

// Close closes the listener and every connection at once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing.Store(true)
	ln := s.ln
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	return s.Fallback.Close()
}

// handoffListener is the listener Fallback serves: Accept returns the
// connections the fast path hands over.
type handoffListener struct {
	addr   net.Addr
	conns  chan net.Conn
	done   chan struct{}
	closed sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// give hands c to Fallback; false (and c closed) once Fallback stopped.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		_ = c.Close()
		return false
	}
}

func (l *handoffListener) Close() error {
	l.closed.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

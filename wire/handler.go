package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/timetable-db/timetable"
)

// DefaultMaxBodyBytes is DynamoDB's limit on the size of a request: 16 MB.
const DefaultMaxBodyBytes = 16 << 20

// targetPrefix starts the X-Amz-Target header of every DynamoDB operation.
const targetPrefix = "DynamoDB_20120810."

// Options configure a Handler. A nil *Options is valid and means the
// defaults.
type Options struct {
	// MaxBodyBytes bounds the size of a request body; a larger request is
	// answered 413 without being read. Default DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// MaxInFlightBytes bounds the request bodies held in memory at once,
	// across requests; a request that would pass it is answered
	// ThrottlingException (which the SDKs retry) before its body is read
	// further. Default 4 times MaxBodyBytes. Ignored when Budget is set.
	MaxInFlightBytes int64

	// Budget, if set, is the bound on the bytes held in memory that the
	// handler shares with the other faces of a server: every buffer a
	// request's body is read into is acquired from it first, and released
	// when the request is answered. A request whose Acquire fails is
	// answered ThrottlingException. It must allow more than MaxBodyBytes.
	Budget Budget

	// BodyTimeout bounds the time to read a request body, from its first
	// byte to its last; a body sent slower is dropped with its connection.
	// Default one minute.
	BodyTimeout time.Duration

	// Logger receives a record for each request answered with a server
	// error (500), with the operation and the cause. Default: discard.
	Logger *slog.Logger

	// Authorize, if set, is asked before each operation runs, with the
	// request's context, its X-Amz-Target and its body as read (inflated);
	// an error (a *Error such as AccessDeniedException) is the answer
	// instead. The body is the handler's: not to be kept.
	Authorize func(ctx context.Context, target string, body []byte) error
	// CORSOrigins are the origins whose pages may call the endpoint from a
	// browser ("*" for any, as DynamoDB allows); see OriginAllowed.
	// Default none: a preflight from any origin is answered 403 and no
	// answer carries Access-Control-Allow-Origin, as DynamoDB Local does.
	CORSOrigins []string
}

// Budget bounds the bytes that requests hold in memory at once. Its
// methods are safe for concurrent use.
type Budget interface {
	// Acquire holds n bytes more, or fails (without holding any) when
	// they cannot be had soon enough or ctx is done.
	Acquire(ctx context.Context, n int64) error
	// Release gives back n bytes held.
	Release(n int64)
}

// tryBudget is the default Budget: Acquire fails at once when the bytes
// are not free.
type tryBudget struct{ sem *semaphore.Weighted }

func (b tryBudget) Acquire(_ context.Context, n int64) error {
	if !b.sem.TryAcquire(n) {
		return errBusy
	}
	return nil
}

func (b tryBudget) Release(n int64) { b.sem.Release(n) }

// Handler is an http.Handler that speaks DynamoDB's JSON protocol
// (awsJson1_0) over a timetable.API, so the AWS SDKs and the AWS CLI can use
// any backend as if it were DynamoDB. It is safe for concurrent use.
//
// A request is a POST whose X-Amz-Target header is
// "DynamoDB_20120810.<Operation>" and whose body is the operation's input
// as JSON. The answer is the output as JSON, or DynamoDB's error JSON
//
//	{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"..."}
//
// with status 400 (client faults) or 500 (server faults; errors that are not
// a smithy.APIError are reported as InternalServerError without their text).
// Every answer carries x-amzn-RequestId and x-amz-crc32, the CRC32 (IEEE) of
// the body, which the SDKs check.
//
// As DynamoDB Local does, any signature is accepted, but a request must be
// signed (carry an Authorization header); package auth's Store.SigV4, in
// front of a Handler, verifies signatures. The path is ignored. A GET
// without X-Amz-Target is a health check answered 200.
type Handler struct {
	ops         map[string]*operation
	streamOps   map[string]*operation // DynamoDB Streams (streams.go); nil without
	maxBody     int64
	inFlight    Budget
	bodyTimeout time.Duration
	log         *slog.Logger
	authorize   func(ctx context.Context, target string, body []byte) error
	corsOrigins []string
}

// New returns a Handler serving api. Besides the methods of timetable.API it
// serves every method of api's concrete type shaped like an SDK client
// operation, and DynamoDB Streams when api implements timetable.StreamsAPI
// (streams.go); other operations are answered UnknownOperationException.
func New(api timetable.API, opts *Options) *Handler {
	if opts == nil {
		opts = &Options{}
	}
	h := &Handler{
		ops:         operations(api),
		streamOps:   streamsOperations(api),
		maxBody:     opts.MaxBodyBytes,
		log:         opts.Logger,
		authorize:   opts.Authorize,
		corsOrigins: slices.Clone(opts.CORSOrigins),
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	h.inFlight = opts.Budget
	if h.inFlight == nil {
		budget := opts.MaxInFlightBytes
		if budget <= 0 {
			budget = 4 * h.maxBody
		}
		h.inFlight = tryBudget{semaphore.NewWeighted(max(budget, h.maxBody+1))}
	}
	h.bodyTimeout = opts.BodyTimeout
	if h.bodyTimeout <= 0 {
		h.bodyTimeout = time.Minute
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 1 << 20

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) <= maxPooled {
		*b = (*b)[:0]
		bufPool.Put(b)
	}
}

// ServeHTTP answers one DynamoDB request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isPreflight(r) {
		h.answerPreflight(w, r)
		return
	}
	h.allowOrigin(w, r)
	target := r.Header.Get("X-Amz-Target")
	if target == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "healthy: timetable\n")
		return
	}
	if r.ContentLength > h.maxBody {
		h.tooLarge(w)
		return
	}
	if r.Header.Get("Authorization") == "" {
		h.fail(w, errMissingAuth)
		return
	}
	op, name := h.lookup(target)
	if op == nil || r.Method != http.MethodPost {
		h.fail(w, errUnknownOperation)
		return
	}

	in := getBuf()
	defer putBuf(in)
	// Not every ResponseWriter has deadlines (a test recorder does not).
	// The deadline is lifted once the whole body is in: past it, the
	// server's watch for a closed connection would cancel a long
	// operation. A body that failed keeps it, so the connection closes.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout))
	held := &heldBytes{ctx: r.Context(), budget: h.inFlight}
	defer held.release()
	src, err := bodyReader(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	size := r.ContentLength
	if src != r.Body {
		size = -1 // the inflated length is not known
	}
	body, err := readBody(src, *in, size, h.maxBody, held)
	*in = body[:0]
	if err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		switch {
		case errors.Is(err, errBodyTooLarge):
			h.tooLarge(w)
			return
		case errors.Is(err, errBusy):
			h.fail(w, errThrottled)
			return
		case errors.Is(err, errInflate):
			h.fail(w, errInflate)
			return
		}
		// The client went away or sent a broken body: nothing to answer.
		h.fail(w, serializationError("Cannot read request body"))
		return
	}

	ctx := r.Context()
	if h.authorize != nil {
		if err := h.authorize(ctx, target, body); err != nil {
			h.fail(w, err)
			return
		}
	}
	out := getBuf()
	defer putBuf(out)
	e := encoder{buf: *out}
	if op.needsHost {
		ctx = context.WithValue(ctx, hostKey{}, r.Host)
	}
	if err := h.serve(ctx, op, body, &e); err != nil {
		var status int
		e.buf, status = appendError(e.buf[:0], err)
		if status >= 500 {
			h.log.Error("wire: operation failed", "operation", name, "err", err)
		}
		h.answer(w, r, status, e.buf)
	} else {
		h.answer(w, r, http.StatusOK, e.buf)
	}
	*out = e.buf[:0]
}

// serve runs op, turning a panic in the API or the codec into an error so a
// bad request cannot take the process down.
func (h *Handler) serve(ctx context.Context, op *operation, body []byte, e *encoder) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			err = fmt.Errorf("panic in %s: %v", op.name, p)
		}
	}()
	return op.serve(ctx, body, e)
}

var (
	errBodyTooLarge = errors.New("wire: request body too large")
	errBusy         = errors.New("wire: too many request bytes in flight")
)

// heldBytes is the share of the handler's in-flight budget one request
// holds for its body's buffer.
type heldBytes struct {
	ctx    context.Context
	budget Budget
	n      int64
}

// grow holds n bytes in all, or fails with an error wrapping errBusy.
func (h *heldBytes) grow(n int64) error {
	if n <= h.n {
		return nil
	}
	if err := h.budget.Acquire(h.ctx, n-h.n); err != nil {
		if !errors.Is(err, errBusy) {
			err = fmt.Errorf("%w: %w", errBusy, err)
		}
		return err
	}
	h.n = n
	return nil
}

func (h *heldBytes) release() {
	if h.n > 0 {
		h.budget.Release(h.n)
		h.n = 0
	}
}

// readBody reads the whole body into buf (reusing its capacity), failing
// with errBodyTooLarge past limit bytes. Every capacity buf grows to is
// held in held first (errBusy when the budget is spent); a body without a
// length grows buf by doubling up to limit+1 bytes, never beyond.
func readBody(body io.Reader, buf []byte, size, limit int64, held *heldBytes) ([]byte, error) {
	if size > 0 && int64(cap(buf)) <= size {
		if err := held.grow(size + 1); err != nil {
			return buf, err
		}
		buf = make([]byte, 0, size+1) // +1: room to see EOF without growing
	}
	if err := held.grow(min(int64(cap(buf)), limit+1)); err != nil {
		return buf, err
	}
	for {
		if len(buf) == cap(buf) {
			next := min(max(2*int64(cap(buf)), 4<<10), limit+1)
			if err := held.grow(next); err != nil {
				return buf, err
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func (h *Handler) fail(w http.ResponseWriter, err error) { WriteError(w, err) }

// answer writes an operation's answer, gzipped when the client accepts it
// and it is large enough; x-amz-crc32 is then the checksum of the bytes
// sent, as DynamoDB's is.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	if len(body) >= minGzip && acceptsGzip(r) {
		var zb bytes.Buffer
		if compress(&zb, body) {
			w.Header().Set("Content-Encoding", "gzip")
			writeAnswer(w, status, zb.Bytes())
			return
		}
	}
	writeAnswer(w, status, body)
}

func (h *Handler) tooLarge(w http.ResponseWriter) { h.fail(w, TooLarge(h.maxBody)) }

var contentType = []string{"application/x-amz-json-1.0"}

// writeAnswer writes body with DynamoDB's headers: its length, its CRC32
// and a request id.
func writeAnswer(w http.ResponseWriter, status int, body []byte) {
	// One allocation for the three header values and one for their slices.
	var b [64]byte
	v := strconv.AppendInt(b[:0], int64(len(body)), 10)
	n1 := len(v)
	v = strconv.AppendUint(v, uint64(crc32.ChecksumIEEE(body)), 10)
	n2 := len(v)
	v = appendRequestID(v)
	all := string(v)
	vals := [3]string{all[:n1], all[n1:n2], all[n2:]}
	hd := w.Header()
	hd["Content-Type"] = contentType
	hd["Content-Length"] = vals[0:1:1]
	hd["X-Amz-Crc32"] = vals[1:2:2]
	hd["X-Amzn-Requestid"] = vals[2:3:3]
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

const hexDigits = "0123456789abcdef"

// appendRequestID appends a random version 4 UUID, the form of DynamoDB
// Local's request ids.
func appendRequestID(b []byte) []byte {
	hi, lo := rand.Uint64(), rand.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	for i := range 32 {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		var nib uint64
		if i < 16 {
			nib = hi >> (60 - 4*i) & 0xf
		} else {
			nib = lo >> (60 - 4*(i-16)) & 0xf
		}
		b = append(b, hexDigits[nib])
	}
	return b
}

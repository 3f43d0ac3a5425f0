package server

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

// body returns the request's body as stream does, for a caller that
// keeps what it reads: every byte read is held in the request's share of
// the in-flight budget first (past the bodyBase it holds from its
// start), and a read the budget cannot cover fails with its 503 or 413.
func (s *Server) body(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	body, err := s.stream(w, r)
	if err != nil {
		return nil, err
	}
	return &heldReader{r: body, ctx: r.Context(), h: holdOf(r.Context()), free: bodyBase}, nil
}

// heldReader holds the bytes it hands out in the request's hold.
type heldReader struct {
	r    io.Reader
	ctx  context.Context
	h    *hold
	free int64 // bytes held and not yet handed out
}

func (h *heldReader) Read(p []byte) (int, error) {
	if int64(len(p)) > h.free {
		more := max(int64(len(p))-h.free, bodyBase)
		if err := h.h.grow(h.ctx, more); err != nil {
			return 0, err
		}
		h.free += more
	}
	n, err := h.r.Read(p)
	h.free -= int64(n)
	return n, err
}

// stream returns the request's body, bounded: at most MaxBodyBytes as
// sent and, when it is gzip (Content-Encoding: gzip), at most
// MaxInflatedBytes once inflated, checked as it inflates. Reading past a
// bound fails with a 413 apiError naming it; a body that is not valid
// gzip with a 400. What the caller keeps of it is the caller's to hold
// in the budget.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	raw, err := s.raw(w, r)
	if err != nil {
		return nil, err
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return raw, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			if ae := asTooLarge(err); ae != nil {
				return nil, ae
			}
			return nil, invalid("the body is not gzip: %v", err)
		}
		return &gzipBody{zr: zr, rest: s.cfg.MaxInflatedBytes, limit: s.cfg.MaxInflatedBytes}, nil
	}
	return nil, errorf(http.StatusUnsupportedMediaType, codeMediaType, "Content-Encoding %q is not supported (use gzip or none)", enc)
}

// raw returns the request's body as sent, whatever its Content-Encoding,
// bounded by MaxBodyBytes (past it, reads fail with a 413 apiError).
func (s *Server) raw(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the body is %d bytes, over the limit of %d (--max-body)", r.ContentLength, s.cfg.MaxBodyBytes)
	}
	return &limitErrReader{r: http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), limit: s.cfg.MaxBodyBytes}, nil
}

// limitErrReader turns http.MaxBytesReader's error into a 413 apiError.
type limitErrReader struct {
	r     io.Reader
	limit int64
}

func (l *limitErrReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF {
		if ae := asTooLarge(err); ae != nil {
			return n, ae
		}
	}
	return n, err
}

func asTooLarge(err error) *apiError {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the body is over the limit of %d bytes (--max-body)", mbe.Limit)
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// gzipBody inflates a gzip body up to a bound.
type gzipBody struct {
	zr    *gzip.Reader
	rest  int64
	limit int64
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.rest <= 0 {
		// One byte more tells a body of exactly the limit from a larger one.
		var one [1]byte
		if n, _ := g.zr.Read(one[:]); n > 0 {
			return 0, errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the inflated body is over the limit of %d bytes (--max-inflated)", g.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > g.rest {
		p = p[:g.rest]
	}
	n, err := g.zr.Read(p)
	g.rest -= int64(n)
	if err != nil && err != io.EOF {
		if ae := asTooLarge(err); ae != nil {
			return n, ae
		}
		return n, invalid("the gzip body is corrupt: %v", err)
	}
	return n, err
}

// mediaType returns the request's media type in lower case, without
// parameters; "" when the header is missing.
func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	}
	return mt
}

// decodeJSON reads the request's body, of at most limit bytes, into v: one
// JSON value with no unknown members. An empty body leaves v as it is when
// emptyOK. what names the body in errors.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, limit int64, what string, emptyOK bool) error {
	body, err := s.body(w, r)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(io.LimitReader(body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if emptyOK && errors.Is(err, io.EOF) {
			return nil
		}
		if ae := asTooLarge(err); ae != nil {
			return ae
		}
		return invalid("%s: %v", what, err)
	}
	return nil
}

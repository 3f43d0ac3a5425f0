package server

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

// body returns the request's body, bounded: at most MaxBodyBytes as sent
// and, when it is gzip (Content-Encoding: gzip), at most MaxInflatedBytes
// once inflated. Reading past a bound fails with a 413 apiError; a body that
// is not valid gzip with a 400.
func (s *Server) body(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the body is %d bytes, over the limit of %d", r.ContentLength, s.cfg.MaxBodyBytes)
	}
	raw := http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return &limitErrReader{r: raw, limit: s.cfg.MaxBodyBytes}, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(&limitErrReader{r: raw, limit: s.cfg.MaxBodyBytes})
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
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the body is over the limit of %d bytes", mbe.Limit)
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
			return 0, errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the inflated body is over the limit of %d bytes", g.limit)
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

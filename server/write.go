package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

// writeReadings answers POST /api/v1/kinds/{kind}/readings: JSON, JSON
// lines or CSV readings of one kind.
func (s *Server) writeReadings(w http.ResponseWriter, r *http.Request) error {
	kind := r.PathValue("kind")
	if _, err := s.store.Kind(kind); err != nil {
		return err
	}
	var decode func(io.Reader, string, ingest.Lookup, ingest.Options) (*ingest.Batch, error)
	switch mt := mediaType(r); mt {
	case "application/json", "":
		decode = ingest.JSON
	case "application/x-ndjson", "application/jsonl", "application/json-lines", "application/jsonlines":
		decode = ingest.JSONLines
	case "text/csv":
		decode = ingest.CSV
	default:
		return errorf(http.StatusUnsupportedMediaType, codeMediaType,
			"Content-Type %q is not supported here: send application/json, application/x-ndjson or text/csv (line protocol goes to /api/v1/write)", mt)
	}
	body, err := s.stream(w, r)
	if err != nil {
		return err
	}
	b, err := decode(body, kind, s.lookup, s.ingestOptions(r.Context(), ingest.Millisecond))
	if err != nil {
		return s.refuse(err)
	}
	return s.writeBatch(w, r, b)
}

// lineProtocol answers the writes of InfluxDB line protocol, of any kinds
// (measurements name kinds), with the precision of the query (ns by
// default): POST /api/v1/write, InfluxDB 1.x's POST /write?db=&precision=
// and 2.x's POST /api/v2/write?org=&bucket=&precision= (the database,
// organisation and bucket are not used).
func (s *Server) lineProtocol(w http.ResponseWriter, r *http.Request) error {
	p := ingest.Nanosecond
	if q := r.URL.Query().Get("precision"); q != "" {
		var err error
		if p, err = ingest.ParsePrecision(q); err != nil {
			return invalid("precision: %v", err)
		}
	}
	body, err := s.stream(w, r)
	if err != nil {
		return err
	}
	o := s.ingestOptions(r.Context(), p)
	o.Grow = s.grow(r)
	b, err := ingest.LineProtocol(body, s.lookup, o)
	if err != nil {
		return s.refuse(err)
	}
	return s.writeBatch(w, r, b)
}

// write answers POST /api/v1/write: Prometheus remote write for a
// protobuf body (Content-Type application/x-protobuf), line protocol
// otherwise.
func (s *Server) write(w http.ResponseWriter, r *http.Request) error {
	if mediaType(r) == "application/x-protobuf" {
		return s.remoteWrite(w, r)
	}
	return s.lineProtocol(w, r)
}

// grow returns the ingest.Options.Grow of a write request of an open
// protocol, nil with Config.NoAutoKinds: it checks that the caller may
// write the kind, then has the store define or extend it under
// Config.KindLimits.
func (s *Server) grow(r *http.Request) func(series.Schema) (series.Schema, error) {
	if s.cfg.NoAutoKinds {
		return nil
	}
	return func(sc series.Schema) (series.Schema, error) {
		ctx := r.Context()
		if err := s.allow(ctx, r, auth.ScopeWrite, auth.Kind(sc.Name)); err != nil {
			return series.Schema{}, err
		}
		k, err := s.store.Grow(context.WithoutCancel(ctx), sc, &s.cfg.KindLimits)
		var le *series.LimitError
		if errors.As(err, &le) {
			return series.Schema{}, fmt.Errorf("%w (--max-%s)", err, le.Limit)
		}
		if err != nil {
			return series.Schema{}, err
		}
		return k.Schema(), nil
	}
}

// ingestOptions returns the decoders' options for a write request: its
// caps, and its readings held in the request's share of the in-flight
// budget as they are decoded (the body streams through the decoder, which
// keeps only the readings). The readings stay held until the request is
// answered, after the store took them.
func (s *Server) ingestOptions(ctx context.Context, p ingest.Precision) ingest.Options {
	h := holdOf(ctx)
	return ingest.Options{Now: s.cfg.Now(), Precision: p, MaxReadings: s.cfg.MaxReadings, MaxSeries: s.cfg.MaxSeries,
		Reserve: func(n int64) error { return h.grow(ctx, n) }}
}

// lookup is the decoders' view of the kinds.
func (s *Server) lookup(name string) (series.Schema, error) {
	k, err := s.store.Kind(name)
	if err != nil {
		return series.Schema{}, err
	}
	return k.Schema(), nil
}

// writeBatch checks that the caller may write every kind of b, writes it
// and answers 204 once the store has it in its log (with ?sync=true or
// Config.SyncWrites, once the table has it).
func (s *Server) writeBatch(w http.ResponseWriter, r *http.Request, b *ingest.Batch) error {
	if err := s.storeBatch(r, b); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// storeBatch is writeBatch without the answer. It releases b (see
// ingest.Batch.Release) when the store is done with it.
func (s *Server) storeBatch(r *http.Request, b *ingest.Batch) error {
	defer b.Release()
	ctx := r.Context()
	if s.draining.Load() {
		return errorf(http.StatusServiceUnavailable, codeUnavailable, "shutting down: writes are not taken")
	}
	if err := s.writable(); err != nil {
		return err
	}
	sync := false
	if q := r.URL.Query().Get("sync"); q != "" {
		var err error
		if sync, err = strconv.ParseBool(q); err != nil {
			return invalid("sync: %q is not a boolean", q)
		}
	}
	sync = sync || s.cfg.SyncWrites // ?sync=false does not undo SyncWrites
	batch := make([]series.KindReadings, len(b.Kinds))
	for i, kb := range b.Kinds {
		if err := s.allow(ctx, r, auth.ScopeWrite, auth.Kind(kb.Kind)); err != nil {
			s.metrics.refused.WithLabelValues("denied").Inc()
			return err
		}
		batch[i] = series.KindReadings{Kind: kb.Kind, Series: kb.Series}
	}
	// A write is not stopped halfway by the client going away, and is
	// taken whole or not at all, whatever its kinds.
	wctx := context.WithoutCancel(ctx)
	if err := s.store.WriteKinds(wctx, batch); err != nil {
		s.metrics.refused.WithLabelValues("store").Inc()
		return err
	}
	if sync {
		if err := s.store.Flush(wctx); err != nil {
			return err
		}
	}
	s.metrics.ingested.Add(float64(b.Readings))
	return nil
}

// refuse counts a write request its decoder refused, and returns err.
func (s *Server) refuse(err error) error {
	reason := "decode"
	if ae := classify(err); ae != nil {
		switch ae.status {
		case http.StatusRequestEntityTooLarge:
			reason = "limit"
		case http.StatusServiceUnavailable:
			reason = "busy"
		}
	}
	s.metrics.refused.WithLabelValues(reason).Inc()
	return err
}

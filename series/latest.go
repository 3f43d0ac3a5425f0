package series

import (
	"context"
	"errors"
	"fmt"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// Latest returns the newest reading of series id, the last reading its
// forward Range returns: of readings at its instant, the one the kind's
// DuplicateRule keeps (the last written, or with RejectDifferent the
// first). It reads the series' latest-reading item, which every write
// keeps up to date (a late reading never replaces a newer one), with one
// GetItem, and this Store's buffered readings. It returns ErrNotFound if
// the series has no reading, or none that has not expired.
func (k *Kind) Latest(ctx context.Context, id string) (Reading, error) {
	k = k.current()
	if !validID(id) {
		return Reading{}, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	// The buffer first: a flush that ends between the two reads has
	// written its readings to the table by then.
	b, inBuf := k.st.buf.latest(k, id)
	r, found, err := k.latestStored(ctx, id)
	if err != nil {
		return Reading{}, err
	}
	if inBuf && (!found || k.newer(b, r)) {
		r, found = b, true
	}
	if !found || r.t < k.rawCutoff() {
		return Reading{}, ErrNotFound
	}
	return r.reading(), nil
}

// latestStored reads the latest-reading item of series id.
func (k *Kind) latestStored(ctx context.Context, id string) (rec, bool, error) {
	item, err := k.st.tbl.Get(ctx, table.K(strAV(k.latestPK(id)), strAV(latestSK)), nil)
	if errors.Is(err, table.ErrNotFound) {
		return rec{}, false, nil
	}
	if err != nil {
		return rec{}, false, fmt.Errorf("series: cannot read the latest reading of %s: %w", k.entity(id), err)
	}
	r, err := k.decodeLatest(item)
	return r, err == nil, err
}

// newer reports whether a is the later reading of a forward read of a
// and b: later in time or, at one instant, the one the duplicate rule
// keeps (the later written, or with RejectDifferent the earlier).
func (k *Kind) newer(a, b rec) bool {
	if a.t != b.t {
		return a.t > b.t
	}
	if k.s.Duplicates == RejectDifferent {
		return a.seq < b.seq
	}
	return a.seq > b.seq
}

// LatestMany returns the newest reading of each of the series ids that
// has one, keyed by id, as Latest does, with BatchGetItem calls of 100
// keys. Keys the backend leaves unprocessed are asked again with backoff;
// if some still cannot be read, LatestMany returns the readings it has and
// an error (a *table.BatchError) that lists them: none is dropped silently.
func (k *Kind) LatestMany(ctx context.Context, ids []string) (map[string]Reading, error) {
	k = k.current()
	ks := make([]table.Key, len(ids))
	for i, id := range ids {
		if !validID(id) {
			return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
		}
		ks[i] = table.K(strAV(k.latestPK(id)), strAV(latestSK))
	}
	// The buffer first, as Latest.
	buffered := make([]rec, len(ids))
	inBuf := make([]bool, len(ids))
	for i, id := range ids {
		buffered[i], inBuf[i] = k.st.buf.latest(k, id)
	}
	items, err := k.st.tbl.BatchGet(ctx, ks, nil)
	out := make(map[string]Reading, len(ids))
	cutoff := k.rawCutoff()
	for i, item := range items {
		var r rec
		found := item != nil
		if found {
			var derr error
			if r, derr = k.decodeLatest(item); derr != nil {
				return out, derr
			}
		}
		if inBuf[i] && (!found || k.newer(buffered[i], r)) {
			r, found = buffered[i], true
		}
		if found && r.t >= cutoff {
			out[ids[i]] = r.reading()
		}
	}
	if err != nil {
		return out, fmt.Errorf("series: cannot read the latest readings of kind %s: %w", k.s.Name, err)
	}
	return out, nil
}

func (k *Kind) decodeLatest(item table.Item) (rec, error) {
	tstr, _ := getS(item, attrTime)
	t, err := keys.ParseTimestamp(tstr)
	if err != nil {
		return rec{}, fmt.Errorf("series: bad latest reading: %w", err)
	}
	qs, _ := getS(item, attrSeq)
	seq, _ := parseHex16(qs)
	vals, tags, err := getValues(item, &k.s)
	if err != nil {
		return rec{}, fmt.Errorf("series: bad latest reading: %w", err)
	}
	return rec{t: timeMs(t), seq: seq, vals: vals, tags: tags}, nil
}

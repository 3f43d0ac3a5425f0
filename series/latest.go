package series

import (
	"context"
	"errors"
	"fmt"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// Latest returns the newest reading of series id: one GetItem of the
// series' latest-reading item, which every write keeps up to date (a late
// reading never replaces a newer one). It returns ErrNotFound if the series
// has no reading, or none that has not expired. Readings in this Store's
// write buffer count too.
func (k *Kind) Latest(ctx context.Context, id string) (Reading, error) {
	if !validID(id) {
		return Reading{}, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	item, err := k.st.tbl.Get(ctx, table.K(strAV(k.latestPK(id)), strAV(latestSK)), nil)
	if err != nil && !errors.Is(err, table.ErrNotFound) {
		return Reading{}, fmt.Errorf("series: cannot read the latest reading of %s: %w", k.entity(id), err)
	}
	var r rec
	found := err == nil
	if found {
		if r, err = k.decodeLatest(item); err != nil {
			return Reading{}, err
		}
	}
	if b, ok := k.st.buf.latest(k, id); ok && (!found || cmpRec(b, r) > 0) {
		r, found = b, true
	}
	if !found || r.t < k.rawCutoff() {
		return Reading{}, ErrNotFound
	}
	return r.reading(), nil
}

// LatestMany returns the newest reading of each of the series ids that
// has one, keyed by id, with BatchGetItem calls of 100 keys. Keys the
// backend leaves unprocessed are asked again with backoff; if some still
// cannot be read, LatestMany returns the readings it has and an error
// (a *table.BatchError) that lists them: none is dropped silently.
func (k *Kind) LatestMany(ctx context.Context, ids []string) (map[string]Reading, error) {
	ks := make([]table.Key, len(ids))
	for i, id := range ids {
		if !validID(id) {
			return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
		}
		ks[i] = table.K(strAV(k.latestPK(id)), strAV(latestSK))
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
		if b, ok := k.st.buf.latest(k, ids[i]); ok && (!found || cmpRec(b, r) > 0) {
			r, found = b, true
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

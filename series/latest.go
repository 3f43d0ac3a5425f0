package series

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	if inBuf && (!found || k.newer(pendingRank(b), r)) {
		r, found = pendingRank(b), true
	}
	if !found || r.t < k.rawCutoff() {
		return Reading{}, ErrNotFound
	}
	return r.reading(), nil
}

// latestStored reads the latest-reading item of series id.
func (k *Kind) latestStored(ctx context.Context, id string) (ranked, bool, error) {
	item, err := k.st.tbl.Get(ctx, table.K(strAV(k.latestPK(id)), strAV(latestSK)), nil)
	if errors.Is(err, table.ErrNotFound) {
		return ranked{}, false, nil
	}
	if err != nil {
		return ranked{}, false, fmt.Errorf("series: cannot read the latest reading of %s: %w", k.entity(id), err)
	}
	r, err := k.decodeLatest(item)
	return r, err == nil, err
}

// ranked is a reading with its rank: its position after its time, the
// order in which readers (Range, Iter, the duplicate rule) take readings
// of one instant. A reading's rank is its sequence number at index 0,
// except in the Chunks layout, where it is its flush's number for its
// shard and its index among the flush's readings of the shard (see
// chunkItems); compaction and Delete keep it. A buffered reading ranks
// by its own number, as Range merges it (pendingRank).
//
// The latest-reading item is ordered by rank, not by the reading's own
// number: in the Chunks layout the two orders differ for readings of one
// instant written through two Stores, and Latest must return the reading
// Range keeps last. The item stores its rank in attrSeq as rankString
// writes it, which compares as ranks do. An item written before ranks
// were stored holds its reading's own number: it ranks as that number at
// index 0. For every layout but Chunks that is its rank; in Chunks it is
// at or after its rank (a flush's number is its smallest), so a reading
// a later flush of any Store wrote replaces it as before, and only a
// reading that a flush of another Store numbered in between ranks below
// it until a reading of a newer instant arrives.
type ranked struct {
	rec
	p apos
}

// pendingRank is the rank of a buffered reading, and of a reading of any
// layout but Chunks: its own sequence number.
func pendingRank(r rec) ranked { return ranked{r, apos{seq: r.seq}} }

// newer reports whether a is the later reading of a forward read of a
// and b: later in time or, at one instant, the one the duplicate rule
// keeps (the later ranked, or with RejectDifferent the earlier).
func (k *Kind) newer(a, b ranked) bool {
	if a.t != b.t {
		return a.t > b.t
	}
	if k.s.Duplicates == RejectDifferent {
		return before(a.t, a.p, b.t, b.p)
	}
	return before(b.t, b.p, a.t, a.p)
}

// rankLen is the length of the longest rankString.
const rankLen = 16 + len(keys.Sep) + 8

// appendRank appends the string form of rank p to b: 16 hex digits of
// its sequence number and, if its index is not 0, the separator and 8
// hex digits of the index. The forms of two ranks compare as the ranks
// do: equal numbers make one a prefix of the other when an index is 0.
func appendRank(b []byte, p apos) []byte {
	b = appendHex16(b, p.seq)
	if p.idx == 0 {
		return b
	}
	b = append(b, keys.Sep...)
	const digits = "0123456789abcdef"
	for i := 28; i >= 0; i -= 4 {
		b = append(b, digits[p.idx>>i&15])
	}
	return b
}

// parseRank parses the string form of a rank (appendRank).
func parseRank(s string) (apos, bool) {
	seqS, idxS, hasIdx := strings.Cut(s, keys.Sep)
	seq, ok := parseHex16(seqS)
	if !ok {
		return apos{}, false
	}
	if !hasIdx {
		return apos{seq: seq}, true
	}
	if len(idxS) != 8 {
		return apos{}, false
	}
	idx, err := strconv.ParseUint(idxS, 16, 32)
	if err != nil || idx == 0 {
		return apos{}, false
	}
	return apos{seq, uint32(idx)}, true
}

// latestOrd is the order key of the latest-reading item of a reading at
// ms of rank p: its timestamp, the separator and its rank's string form.
func latestOrd(ms int64, p apos) string {
	var b [keys.TimestampLen + len(keys.Sep) + rankLen]byte
	return string(appendRank(append(appendTS(b[:0], ms), keys.Sep...), p))
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
	buffered := make([]ranked, len(ids))
	inBuf := make([]bool, len(ids))
	for i, id := range ids {
		var b rec
		b, inBuf[i] = k.st.buf.latest(k, id)
		buffered[i] = pendingRank(b)
	}
	items, err := k.st.tbl.BatchGet(ctx, ks, nil)
	out := make(map[string]Reading, len(ids))
	cutoff := k.rawCutoff()
	for i, item := range items {
		var r ranked
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

// decodeLatest decodes a latest-reading item: its reading, whose seq is
// its rank's, and its rank.
func (k *Kind) decodeLatest(item table.Item) (ranked, error) {
	tstr, _ := getS(item, attrTime)
	t, err := keys.ParseTimestamp(tstr)
	if err != nil {
		return ranked{}, fmt.Errorf("series: bad latest reading: %w", err)
	}
	qs, _ := getS(item, attrSeq)
	p, ok := parseRank(qs)
	if !ok {
		return ranked{}, fmt.Errorf("series: bad latest reading: rank %q", qs)
	}
	vals, tags, err := getValues(item, &k.s)
	if err != nil {
		return ranked{}, fmt.Errorf("series: bad latest reading: %w", err)
	}
	return ranked{rec{t: timeMs(t), seq: p.seq, vals: vals, tags: tags}, p}, nil
}

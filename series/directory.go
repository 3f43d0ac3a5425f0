package series

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// The series directory of a kind lists its series: an item per series,
// pk ~SERIES#SENSOR, sk the series id, no other attribute, put by the
// flush that first writes readings of the series in a Store's lifetime
// (Kind.Series reads it), with the series' label index items (see
// labelindex.go).
//
// What it costs: one write unit per series a Store writes to after it
// opens (a put of an item already there is idempotent and changes
// nothing), and nothing for the readings that follow, as the Store keeps
// the ids it has put in memory (up to maxDirSeen per kind, then it starts
// again: a put costs less than the memory of a large set). All the series
// of a kind share one partition, which takes some 1,000 writes a second
// on DynamoDB: enough to add that many new series a second, far beyond
// what a kind sees once its series exist, and a page of Series reads up
// to 1 MB (some 30,000 ids of 20 bytes) for half a read unit per 4 KB.
//
// Series written before the directory existed (by an earlier version)
// have no entry until a Store writes a reading to them again. Nothing
// removes an entry: DeleteSeries leaves the series listed (see
// labelindex.go for why).
const dirPrefix = "~SERIES#"

// maxDirSeen bounds the ids a kind remembers as put in its directory, and
// the label values and names it remembers as put in its label index.
const maxDirSeen = 1 << 20

// seriesDir is what a Store knows of a kind's directory and label index:
// the ids, label values and names whose items it has put, and the series
// it has buffered whose items it has not put yet. Kinds that replace one
// another (Store.Change) share it.
type seriesDir struct {
	mu     sync.Mutex
	seen   map[string]struct{}
	values map[Label]struct{}
	names  map[string]struct{}
	// pending is the series with readings buffered in the Store that
	// are not in seen: the table may not list them yet.
	pending map[string]struct{}
	// ready is set once the kind's label index is known to be complete
	// (see labelindex.go); it is never unset.
	ready atomic.Bool
}

func (d *seriesDir) has(id string) bool {
	d.mu.Lock()
	_, ok := d.seen[id]
	d.mu.Unlock()
	return ok
}

// pend notes that series id has readings buffered, if its items are not
// known to be put.
func (d *seriesDir) pend(id string) {
	d.mu.Lock()
	if _, ok := d.seen[id]; !ok {
		if d.pending == nil {
			d.pending = map[string]struct{}{}
		}
		d.pending[id] = struct{}{}
	}
	d.mu.Unlock()
}

// pendingIDs returns the ids of pending, in no order.
func (d *seriesDir) pendingIDs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.pending))
	for id := range d.pending {
		out = append(out, id)
	}
	return out
}

// add notes that the directory and label index items of ids are put.
func (d *seriesDir) add(ids []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil || len(d.seen)+len(ids) > maxDirSeen {
		d.seen = make(map[string]struct{}, len(ids))
	}
	for _, id := range ids {
		d.seen[id] = struct{}{}
		delete(d.pending, id)
		for _, l := range indexLabels(id) {
			if d.values == nil || len(d.values) >= maxDirSeen {
				d.values = map[Label]struct{}{}
			}
			d.values[l] = struct{}{}
			if d.names == nil || len(d.names) >= maxDirSeen {
				d.names = map[string]struct{}{}
			}
			d.names[l.Name] = struct{}{}
		}
	}
}

// hasLabel reports whether the value item of l, and the name item of its
// name, are known to be put.
func (d *seriesDir) hasLabel(l Label) (value, name bool) {
	d.mu.Lock()
	_, value = d.values[l]
	_, name = d.names[l.Name]
	d.mu.Unlock()
	return value, name
}

func (k *Kind) dirPK() string { return dirPrefix + k.s.Name }

// dirPuts returns the directory and label index items of the series of
// entries that the Store has not put yet, and their ids (to note once
// written). Its work is linear in the number of entries and the labels
// of their new series: a series, label value or name met twice (kinds
// that replace one another share a directory) is found in a set.
func dirPuts(entries []entry) (ws []table.WriteRequest, added map[*seriesDir][]string) {
	type dirID struct {
		d  *seriesDir
		id string
	}
	var met map[dirID]struct{}
	var ix indexPuts
	for i := range entries {
		e := &entries[i]
		if len(e.recs) == 0 || e.k.dir.has(e.id) {
			continue
		}
		if added == nil {
			added = map[*seriesDir][]string{}
			met = map[dirID]struct{}{}
		}
		key := dirID{e.k.dir, e.id}
		if _, ok := met[key]; ok {
			continue
		}
		met[key] = struct{}{}
		added[e.k.dir] = append(added[e.k.dir], e.id)
		ws = append(ws, table.PutRequest(table.Item{attrPK: strAV(e.k.dirPK()), attrSK: strAV(e.id)}))
		ws = ix.add(ws, e.k, e.id)
	}
	return ws, added
}

// defaultSeriesLimit is the most ids Series returns when its limit is 0.
const defaultSeriesLimit = 1000

// Series returns the ids of the kind's series that start with prefix, in
// id order (of their UTF-8 bytes), after the position cursor ("" for the
// first page, or the next of an earlier call), at most limit (0: 1,000).
// next is the cursor of the following page, "" when there is none. The
// ids are those of the kind's directory (see directory.go: series written
// before this Store version have no entry until written again) and the
// series with readings buffered in this Store. A negative limit or a
// prefix that is not UTF-8 is ErrInvalidQuery, a cursor Series did not
// make ErrBadCursor.
func (k *Kind) Series(ctx context.Context, prefix string, limit int, cursor string) (ids []string, next string, err error) {
	k = k.current()
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) == 0 {
			return nil, "", fmt.Errorf("%w: series cursor %q", ErrBadCursor, cursor)
		}
		after = string(b)
	}
	ids, more, err := k.listKeys(ctx, k.dirPK(), IndexRange{Prefix: prefix, After: after, Limit: limit}, k.dir.pendingIDs(), "the series")
	if err != nil {
		return nil, "", err
	}
	if more {
		next = base64.RawURLEncoding.EncodeToString([]byte(ids[len(ids)-1]))
	}
	return ids, next, nil
}

// skOf returns the string sort key of an item.
func skOf(it table.Item) (string, error) {
	if s, ok := it[attrSK].(*types.AttributeValueMemberS); ok {
		return s.Value, nil
	}
	return "", fmt.Errorf("series: directory item without a string sort key")
}

package series

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// The series directory of a kind lists its series: an item per series,
// pk ~SERIES#SENSOR, sk the series id, no other attribute, put by the
// flush that first writes readings of the series in a Store's lifetime
// (Kind.Series reads it).
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
// have no entry until a Store writes a reading to them again.
const dirPrefix = "~SERIES#"

// maxDirSeen bounds the ids a kind remembers as put in its directory.
const maxDirSeen = 1 << 20

// seriesDir is the ids of a kind whose directory item a Store has put.
type seriesDir struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

func (d *seriesDir) has(id string) bool {
	d.mu.Lock()
	_, ok := d.seen[id]
	d.mu.Unlock()
	return ok
}

func (d *seriesDir) add(ids []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil || len(d.seen)+len(ids) > maxDirSeen {
		d.seen = make(map[string]struct{}, len(ids))
	}
	for _, id := range ids {
		d.seen[id] = struct{}{}
	}
}

func (k *Kind) dirPK() string { return dirPrefix + k.s.Name }

// dirPuts returns the directory items of the series of entries that the
// Store has not put yet, and their ids (to note once written). Its work
// is linear in the number of entries: a series met twice (kinds that
// replace one another share a directory) is found in a set.
func dirPuts(entries []entry) (ws []table.WriteRequest, added map[*seriesDir][]string) {
	type dirID struct {
		d  *seriesDir
		id string
	}
	var met map[dirID]struct{}
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
// series with readings buffered in this Store. A negative limit is
// ErrInvalidQuery, a cursor Series did not make ErrBadCursor.
func (k *Kind) Series(ctx context.Context, prefix string, limit int, cursor string) (ids []string, next string, err error) {
	k = k.current()
	if limit < 0 {
		return nil, "", fmt.Errorf("%w: negative limit %d", ErrInvalidQuery, limit)
	}
	if limit == 0 {
		limit = defaultSeriesLimit
	}
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) == 0 {
			return nil, "", fmt.Errorf("%w: series cursor %q", ErrBadCursor, cursor)
		}
		after = string(b)
	}
	// Buffered series first, which need no read.
	var buffered []string
	for _, id := range k.st.buf.seriesOf(k) {
		if strings.HasPrefix(id, prefix) && id > after {
			buffered = append(buffered, id)
		}
	}
	slices.Sort(buffered)
	q := &table.Query{Hash: k.dirPK(), Limit: limit + 1, Projection: []string{attrSK}}
	switch {
	case after != "" && after >= prefix:
		q.Range = table.Gt(after)
	case prefix != "":
		q.Range = table.Gte(prefix)
	}
	var stored []string
	it := k.st.tbl.QueryIter(ctx, q)
	for it.Next() {
		id, err := skOf(it.Item())
		if err != nil {
			it.Close()
			return nil, "", err
		}
		if !strings.HasPrefix(id, prefix) {
			break
		}
		stored = append(stored, id)
	}
	if err := it.Err(); err != nil {
		return nil, "", fmt.Errorf("series: cannot read the series of kind %s: %w", k.s.Name, k.st.tableErr(err))
	}
	it.Close()
	// Every id up to the last stored one is in all (the table's and the
	// buffer's); past it, the table may hold more. Either the table had
	// no more, or at least limit+1 ids are known.
	all := slices.Compact(slices.Sorted(slices.Values(append(stored, buffered...))))
	if len(all) > limit {
		all = all[:limit]
		next = base64.RawURLEncoding.EncodeToString([]byte(all[limit-1]))
	}
	return all, next, nil
}

// skOf returns the string sort key of an item.
func skOf(it table.Item) (string, error) {
	if s, ok := it[attrSK].(*types.AttributeValueMemberS); ok {
		return s.Value, nil
	}
	return "", fmt.Errorf("series: directory item without a string sort key")
}

package series

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// The sequence mark: one item of the table,
//
//	pk ~SEQ   sk ~SEQ   _q <hex16>
//
// holding a number above every sequence number of a reading written to
// the table. A flush writes it, when its readings' numbers reach it, before
// any of their items, and Open reads it (one GetItem) and starts numbering
// from it, so that a Store opened after another one, even within the same
// millisecond of the clock, gives numbers above those of the readings its
// predecessors wrote, whatever their random salts: readings of one instant
// keep their write order across restarts (KeepAll returns them in that
// order, LastWins keeps the last written). The readings in the
// write-ahead log are above it too: the replay sees their numbers.
//
// The mark is put seqMarkAhead ahead of the numbers that reach it, so that
// a Store writes it at most about once a second of its clock, whatever its
// rate of flushes and WriteSyncs; a Store opened within that time of its
// predecessor's last write numbers from the mark, up to that much ahead of
// its clock, until its clock catches up. Stores sharing a table only raise
// the mark (a conditional put).
const (
	seqMarkPK = "~SEQ"
	// seqMarkAhead is how far ahead of a flush's numbers the mark is put:
	// a second of the clock.
	seqMarkAhead = 1000 << seqClockShift
)

// seqMarkCondNames are the names of the condition of the mark's put.
var seqMarkCondNames = map[string]string{"#q": attrSeq}

// loadSeqMark reads the table's sequence mark and makes the next numbers
// at least as large. A missing table, or mark, changes nothing.
func (s *Store) loadSeqMark(ctx context.Context) error {
	item, err := s.tbl.Get(ctx, table.K(strAV(seqMarkPK), strAV(seqMarkPK)), &table.GetOptions{Consistent: true})
	if errors.Is(err, table.ErrNotFound) || table.IsTableMissing(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("series: cannot read the sequence mark: %w", err)
	}
	q, _ := getS(item, attrSeq)
	mark, ok := parseHex16(q)
	if !ok || mark == 0 {
		return fmt.Errorf("series: bad sequence mark %q", q)
	}
	s.seenSeq(mark - 1)
	s.seqMark.Store(mark)
	return nil
}

// markSeqs makes sure that the table's sequence mark is above the
// sequence numbers of entries, before their items are written: if one
// reaches the mark this Store wrote (or read), it puts a new one,
// seqMarkAhead above the largest, unless the stored one is larger.
func (s *Store) markSeqs(ctx context.Context, entries []entry) error {
	var top uint64
	for i := range entries {
		for j := range entries[i].recs {
			top = max(top, entries[i].recs[j].seq)
		}
	}
	if top < s.seqMark.Load() {
		return nil
	}
	mark := top + seqMarkAhead
	q := strAV(hex16(mark))
	item := table.Item{attrPK: strAV(seqMarkPK), attrSK: strAV(seqMarkPK), attrSeq: q}
	cond := table.Expr("attribute_not_exists(#q) OR #q < :q", seqMarkCondNames, map[string]types.AttributeValue{":q": q})
	if _, err := s.tbl.Put(ctx, item, &table.PutOptions{If: cond}); err != nil && !table.IsConditionFailed(err) {
		return fmt.Errorf("series: cannot write the sequence mark: %w", err)
	}
	for {
		old := s.seqMark.Load()
		if old >= mark || s.seqMark.CompareAndSwap(old, mark) {
			return nil
		}
	}
}

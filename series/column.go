package series

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/timetable-db/timetable/table"
)

// Column is one field of readings of one series, in time order: the
// reading at Times[i] (Unix milliseconds) has the value Values[i], NaN
// when the reading lacks the field.
type Column struct {
	Times  []int64
	Values []float64
}

// Len returns the number of readings of c.
func (c *Column) Len() int { return len(c.Times) }

// ReadColumn appends to c field (an index of the kind's Fields) of the
// readings of series id in [from, to) (bounds as Query's): the readings
// Range returns for that range, buffered ones included, the duplicate rule
// applied, in the same order. It decodes that field only (no other field,
// no tag), straight into c's slices: the read path of a query over many
// series.
func (k *Kind) ReadColumn(ctx context.Context, id string, field int, from, to time.Time, c *Column) error {
	k = k.current()
	if field < 0 || field >= len(k.s.Fields) {
		return fmt.Errorf("%w: kind %s has no field %d", ErrInvalidQuery, k.s.Name, field)
	}
	it := k.columnIter(ctx, k.projection(field), id, field, from, to)
	defer it.Close()
	return it.appendColumn(c)
}

// ReadColumns reads what ReadColumn reads of each series ids[i] (field
// of its readings in [from, to)) and calls fn(i, c, err) with it, c owned
// by fn, in the order of ids, each as soon as it is read. The first
// backend page of every series' read is read at once (see
// table.Table.QueryPages: on the embedded engine, one storage iterator
// for all), and handed to the series' own reader, which reads the rest as
// ReadColumn does (more pages, a day's merged chunks looked up, a group
// read again when its pages were read too far apart): the answers are
// ReadColumn's. It is the read path of a query over many series of a
// kind.
func (k *Kind) ReadColumns(ctx context.Context, ids []string, field int, from, to time.Time, fn func(i int, c Column, err error)) {
	k = k.current()
	if field < 0 || field >= len(k.s.Fields) {
		err := fmt.Errorf("%w: kind %s has no field %d", ErrInvalidQuery, k.s.Name, field)
		for i := range ids {
			fn(i, Column{}, err)
		}
		return
	}
	p := k.projection(field)
	its := make([]*Iter, len(ids))
	var (
		qs []*table.Query
		gs []*groupReader
	)
	for i, id := range ids {
		it := k.columnIter(ctx, p, id, field, from, to)
		its[i] = it
		if it.done {
			continue
		}
		for _, s := range it.streams {
			if s.g != nil && s.g.unread() {
				q := s.g.fetchQuery()
				qs = append(qs, &q)
				gs = append(gs, s.g)
			}
		}
	}
	if len(qs) > 1 {
		pages, errs := k.st.tbl.QueryPages(ctx, qs)
		for j, g := range gs {
			// On error the series' read reads its page itself, and
			// meets the error there if it lasts.
			if errs[j] == nil {
				g.setPage(pages[j])
			}
		}
	}
	for i, it := range its {
		var c Column
		err := it.appendColumn(&c)
		it.Close()
		fn(i, c, err)
	}
}

// columnIter returns the iteration of ReadColumn over p, the projection
// of k to field.
func (k *Kind) columnIter(ctx context.Context, p *Kind, id string, field int, from, to time.Time) *Iter {
	var pending []rec
	if validID(id) {
		pending = k.st.buf.pending(k, id)
		for i := range pending {
			r := &pending[i]
			v := nan
			if field < len(r.vals) {
				v = r.vals[field]
			}
			r.vals, r.tags = []float64{v}, nil
		}
	}
	return p.iter(ctx, id, Query{From: from, To: to}, pending)
}

// projection returns the kind as a reader of field alone sees it: a kind
// of that one field and no tag, whose layout decodes only that field of
// the items it reads (every layout finds fields by name). It is for reads
// only, and made once per field.
func (k *Kind) projection(field int) *Kind {
	k.projMu.Lock()
	defer k.projMu.Unlock()
	if p := k.proj[field]; p != nil {
		return p
	}
	s := k.s
	s.Fields, s.Tags = []string{k.s.Fields[field]}, nil
	p := &Kind{st: k.st, s: s, admitting: k.admitting, dir: k.dir}
	p.lay = newLayout(p)
	if k.proj == nil {
		k.proj = map[int]*Kind{}
	}
	k.proj[field] = p
	return p
}

// appendColumn appends the readings left of an iteration over a
// projected kind (one field) to c. Runs of readings each followed in its
// batch by one of another instant are taken whole; the others go
// through Next, which groups the readings of an instant.
func (it *Iter) appendColumn(c *Column) error {
	for {
		if len(it.streams) == 1 && it.gi >= len(it.group) && it.left < 0 && it.after == nil && len(it.filters) == 0 && !it.done {
			s := it.streams[0]
			b, i, err := s.head(it.ctx)
			if err != nil {
				it.fail(err)
				return err
			}
			if b != nil && b.nf == 1 {
				ts := b.t
				n := len(ts)
				for i+1 < n && ts[i] < it.lo {
					i++
				}
				j := i
				for j+1 < n && ts[j] < it.hi && ts[j+1] != ts[j] {
					j++
				}
				// [i, j): in the range, each followed by a reading of
				// another instant.
				if j > i {
					c.grow(it, j-i)
					c.Times = append(c.Times, ts[i:j]...)
					c.Values = append(c.Values, b.vals[i*b.nf:j*b.nf]...)
				}
				s.i = j
			}
		}
		if !it.Next() {
			return it.Err()
		}
		c.grow(it, 1)
		c.Times = append(c.Times, it.cur.t[it.ci])
		c.Values = append(c.Values, it.cur.vals[it.ci*it.cur.nf])
	}
}

// grow makes room for n more readings of it in c: when it is full, for
// those decoded and those read but not decoded yet (at least doubling
// it), as Range does.
func (c *Column) grow(it *Iter, n int) {
	if len(c.Times)+n <= cap(c.Times) && len(c.Values)+n <= cap(c.Values) {
		return
	}
	more := max(it.decoded()+it.later(), len(c.Times), n)
	c.Times = slices.Grow(c.Times, more)
	c.Values = slices.Grow(c.Values, more)
}

// decoded returns the number of readings decoded and not yet given
// within the range, from the streams' heads on.
func (it *Iter) decoded() int {
	n := 0
	for _, s := range it.streams {
		if s.b != nil && s.i < s.b.len() {
			n += it.inRange(s.b, s.i)
		}
		for _, b := range s.queue {
			n += it.inRange(b, 0)
		}
	}
	return n
}

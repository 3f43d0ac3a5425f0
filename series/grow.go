package series

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/timetable-db/timetable/table"
)

// Limits caps what Store.Grow may create. The zero value caps nothing.
type Limits struct {
	// MaxKinds caps the kinds a Store knows (those of Open, those stored
	// and read since, those defined): Grow defines no kind past it. Each
	// Store counts the kinds it knows, which it reads again from the table
	// when it meets a name it does not know (Store.Kind), so Stores
	// defining kinds at once may pass it by as many kinds as they are.
	MaxKinds int
	// MaxFields and MaxTags cap the fields and the tags of one kind: Grow
	// adds none past them. They hold across Stores, as Grow merges with
	// the stored schema under a conditional write.
	MaxFields int
	MaxTags   int
}

// ErrLimit is the cause of a Grow refused by a cap of Limits (errors.Is);
// the error is a *LimitError naming the cap.
var ErrLimit = errors.New("series: limit reached")

// LimitError is a Grow refused by a cap of Limits.
type LimitError struct {
	Kind  string // the kind to define or grow
	Limit string // "kinds", "fields" or "tags"
	Max   int    // the cap
	Want  int    // what the Grow would have made
}

// Error returns "kind cpu: 1001 fields, more than the limit of 1000 fields per kind"
// (or "kind cpu: more than the limit of 10000 kinds").
func (e *LimitError) Error() string {
	if e.Limit == "kinds" {
		return fmt.Sprintf("kind %s: cannot define it: the store has the limit of %d kinds", e.Kind, e.Max)
	}
	return fmt.Sprintf("kind %s: %d %s, more than the limit of %d %s per kind", e.Kind, e.Want, e.Limit, e.Max, e.Limit)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// growTries bounds the conditional writes of one Grow that lose to other
// Stores' changes of the same kind.
const growTries = 16

// Grow makes sure the kind named sc.Name exists and has the fields
// sc.Fields, the tags sc.Tags and, when sc.Meta is not zero, the Meta
// sc.Meta, and returns it. A kind that does not exist is defined with
// sc as its schema, as Define does (without adding a metric index: a kind
// Grow defines with MetricIndex is refused). A kind that exists gets the
// fields and tags it lacks appended after its own, in sc's order, and
// sc.Meta, as Change does; everything else of sc is not used. A kind that
// has everything is returned without a write.
//
// Grow is how writes of open protocols (line protocol, Prometheus remote
// write) create what they name. It is safe for concurrent use, also by
// several Stores on one table: each write of the schema is conditional on
// the stored schema being the one grown, and on losing to another Store's
// change Grow reads the stored schema, takes it, and grows that, so no
// Store's fields or tags are lost. Past a cap of lim (nil caps nothing) it
// returns a *LimitError and changes nothing. A name sc.Fields and the
// kind's tags share (or the reverse) is ErrInvalidSchema.
func (s *Store) Grow(ctx context.Context, sc Schema, lim *Limits) (*Kind, error) {
	if lim == nil {
		lim = &Limits{}
	}
	if sc.MetricIndex {
		return nil, fmt.Errorf("%w: schema %q: Grow does not define a kind with a metric index (use Define)", ErrInvalidSchema, sc.Name)
	}
	sc.Fields, sc.Tags = appendNew(nil, sc.Fields), appendNew(nil, sc.Tags)
	if _, err := sc.normalize(); err != nil {
		return nil, err
	}
	s.defineMu.Lock()
	defer s.defineMu.Unlock()
	for range growTries {
		if s.closed.Load() {
			return nil, ErrClosed
		}
		old := s.lookup(sc.Name)
		n, cond, err := grown(old, sc, lim, len(s.kinds.Load().order))
		if err != nil {
			return nil, err
		}
		if n.Name == "" {
			return old, nil
		}
		err = s.putSchema(ctx, n, cond)
		if err == nil {
			if old == nil {
				k := newKind(s, n)
				s.kinds.Store(s.kinds.Load().with(k))
				s.indexNewKind(ctx, k)
				return k, nil
			}
			return s.replaceKind(old, n), nil
		}
		if !table.IsConditionFailed(err) {
			return nil, err
		}
		// Another Store wrote the schema meanwhile: take it, then grow it.
		stored, err := s.storedSchema(ctx, sc.Name)
		if err != nil {
			return nil, err
		}
		switch {
		case old == nil:
			s.kinds.Store(s.kinds.Load().with(newKind(s, stored)))
		case sameSchema(old.s, stored):
		default:
			if err := schemaChange(old.s, stored); err != nil {
				return nil, fmt.Errorf("kind %s was changed by another store in a way this one cannot take: %w", sc.Name, err)
			}
			s.replaceKind(old, stored)
		}
	}
	return nil, fmt.Errorf("%w: kind %s: the stored schema kept changing under %d tries to grow it", ErrSchemaChange, sc.Name, growTries)
}

// grown returns the schema kind old (nil: none) becomes to hold what sc
// names, normalised, and the condition of its write; a zero Schema when
// old holds it all. kinds is the number of kinds the Store knows.
func grown(old *Kind, sc Schema, lim *Limits, kinds int) (Schema, table.Cond, error) {
	var n Schema
	var cond table.Cond
	if old == nil {
		if lim.MaxKinds > 0 && kinds >= lim.MaxKinds {
			return Schema{}, table.Cond{}, &LimitError{Kind: sc.Name, Limit: "kinds", Max: lim.MaxKinds, Want: kinds + 1}
		}
		n = sc
		cond = table.Attr(attrPK).NotExists()
	} else {
		n = old.s
		nf, nt := appendNew(slices.Clone(n.Fields), sc.Fields), appendNew(slices.Clone(n.Tags), sc.Tags)
		meta := sc.Meta != (Meta{}) && sc.Meta != n.Meta
		if len(nf) == len(n.Fields) && len(nt) == len(n.Tags) && !meta {
			return Schema{}, table.Cond{}, nil
		}
		n.Fields, n.Tags = nf, nt
		if meta {
			n.Meta = sc.Meta
		}
		prev, err := encodeSchema(old.s)
		if err != nil {
			return Schema{}, table.Cond{}, err
		}
		// The stored schema must be the kind's, or none for a kind of
		// Open's schemas never stored (as Change).
		cond = table.Or(table.Attr(attrPK).NotExists(), table.Attr(attrSchema).Eq(prev))
	}
	if lim.MaxFields > 0 && len(n.Fields) > lim.MaxFields {
		return Schema{}, table.Cond{}, &LimitError{Kind: sc.Name, Limit: "fields", Max: lim.MaxFields, Want: len(n.Fields)}
	}
	if lim.MaxTags > 0 && len(n.Tags) > lim.MaxTags {
		return Schema{}, table.Cond{}, &LimitError{Kind: sc.Name, Limit: "tags", Max: lim.MaxTags, Want: len(n.Tags)}
	}
	n, err := n.normalize()
	if err != nil {
		return Schema{}, table.Cond{}, err
	}
	return n, cond, nil
}

// appendNew appends to dst the names of add it does not hold, once each,
// in add's order.
func appendNew(dst, add []string) []string {
	for _, a := range add {
		if !slices.Contains(dst, a) {
			dst = append(dst, a)
		}
	}
	return dst
}

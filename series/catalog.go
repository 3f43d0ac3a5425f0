package series

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// The catalog: the kinds of a Store, those of Open's schemas and those
// stored in the table by Define and Change (an item per kind in a
// partition of its own, pk ~SCHEMA, sk the kind's name, its normalised
// Schema JSON in attribute "schema").
const (
	schemaPK   = "~SCHEMA"
	attrSchema = "schema"
)

// kindSet is the kinds of a Store at one time. It is never changed: a
// Define or Change makes a new one (copy on write), so that lookups, on
// every request, take no lock.
type kindSet struct {
	byName map[string]*Kind
	order  []*Kind
}

// with returns a copy of ks with k added, or put in the place of the kind
// of its name.
func (ks *kindSet) with(k *Kind) *kindSet {
	out := &kindSet{byName: make(map[string]*Kind, len(ks.byName)+1), order: slices.Clone(ks.order)}
	for n, x := range ks.byName {
		out.byName[n] = x
	}
	if old := ks.byName[k.s.Name]; old != nil {
		out.order[slices.Index(out.order, old)] = k
	} else {
		out.order = append(out.order, k)
	}
	out.byName[k.s.Name] = k
	return out
}

// lookup returns the kind named name, or nil.
func (s *Store) lookup(name string) *Kind { return s.kinds.Load().byName[name] }

// Kind returns the kind named name. An unknown name is an error wrapping
// ErrUnknownKind (and so ErrNotFound), once the Store has read the stored
// schemas again for kinds other Stores defined (at most once a second;
// see fleet.go). A known name takes no lock.
func (s *Store) Kind(name string) (*Kind, error) {
	if k := s.kindOrRefresh(name); k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownKind, name)
}

// Kinds returns every kind of the Store: those of Open's schemas in their
// order, then those stored in the table that Open loaded, in name order,
// then those Define added since, in the order they were added. The slice
// is the caller's.
func (s *Store) Kinds() []*Kind { return slices.Clone(s.kinds.Load().order) }

// lockSchema normalises and checks sc as Open does, then takes the lock
// that orders Define and Change. On a nil error the caller holds the lock
// and must call unlock; on an error (an invalid schema, or ErrClosed) the
// lock is not held.
func (s *Store) lockSchema(sc Schema) (n Schema, unlock func(), err error) {
	n, err = sc.normalize()
	if err != nil {
		return Schema{}, nil, err
	}
	s.defineMu.Lock()
	if s.closed.Load() {
		s.defineMu.Unlock()
		return Schema{}, nil, ErrClosed
	}
	return n, s.defineMu.Unlock, nil
}

// Define adds a kind of schema sc, normalised and checked as Open does,
// and stores the schema in the table so that every later Open of the
// table has it. Defining a schema equal to a kind's (once normalised)
// changes nothing and returns that kind; a kind of that name with another
// schema is ErrKindExists (use Change). The table must exist
// (ErrTableNotFound otherwise). For a kind with MetricIndex, Define first
// adds the metric index to the table if it has none, and waits until it is
// active (or ctx ends: then nothing is defined).
func (s *Store) Define(ctx context.Context, sc Schema) (*Kind, error) {
	n, unlock, err := s.lockSchema(sc)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if k := s.lookup(n.Name); k != nil {
		if sameSchema(k.s, n) {
			return k, nil
		}
		return nil, fmt.Errorf("%w: %s", ErrKindExists, n.Name)
	}
	k := newKind(s, n)
	if err := s.ensureMetricIndex(ctx, append(s.Kinds(), k)); err != nil {
		return nil, err
	}
	err = s.putSchema(ctx, n, table.Attr(attrPK).NotExists())
	if table.IsConditionFailed(err) {
		// Another Store defined it meanwhile.
		stored, gerr := s.storedSchema(ctx, n.Name)
		if gerr != nil {
			return nil, gerr
		}
		if !sameSchema(stored, n) {
			return nil, fmt.Errorf("%w: %s (defined by another store)", ErrKindExists, n.Name)
		}
	} else if err != nil {
		return nil, err
	}
	s.kinds.Store(s.kinds.Load().with(k))
	s.indexNewKind(ctx, k)
	return k, nil
}

// Change changes the schema of the kind named sc.Name to sc (normalised
// and checked as Open does), stores it in the table, and returns the
// changed kind. A kind can take new fields and tags appended after its
// own, and any retention, rollup tiers, duplicate rule, NoCompaction,
// MetricIndex and IndexShards; any other change (the layout, shards,
// bucket period, or renaming, reordering or removing fields or tags) is
// ErrSchemaChange, naming it. An unknown kind is ErrUnknownKind; a schema
// equal to the kind's changes nothing.
//
// Readings written before the change read back with the new schema: the
// values of new fields are absent (NaN), new tags "". Readings buffered or
// in the write-ahead log are written with the new schema (their new values
// absent), also after a restart. A *Kind obtained before the change
// forwards every call to the changed kind, except an Iter opened before.
// Rollups already computed keep their tiers; a new retention applies to
// what is written from now on (items written before keep their TTL). For
// a kind that gains MetricIndex, Change first adds the metric index to
// the table if it has none, and waits until it is active (or ctx ends:
// then nothing is changed).
func (s *Store) Change(ctx context.Context, sc Schema) (*Kind, error) {
	n, unlock, err := s.lockSchema(sc)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old := s.lookup(n.Name)
	if old == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownKind, n.Name)
	}
	if sameSchema(old.s, n) {
		return old, nil
	}
	if err := schemaChange(old.s, n); err != nil {
		return nil, err
	}
	if n.MetricIndex && !old.s.MetricIndex {
		kinds := s.Kinds()
		kinds[slices.Index(kinds, old)] = newKind(s, n)
		if err := s.ensureMetricIndex(ctx, kinds); err != nil {
			return nil, err
		}
	}
	prev, err := encodeSchema(old.s)
	if err != nil {
		return nil, err
	}
	// The stored schema must be the kind's (or none, for a kind of Open's
	// schemas never stored): another Store's change is not overwritten.
	cond := table.Or(table.Attr(attrPK).NotExists(), table.Attr(attrSchema).Eq(prev))
	if err := s.putSchema(ctx, n, cond); err != nil {
		if table.IsConditionFailed(err) {
			return nil, fmt.Errorf("%w: kind %s was changed by another store meanwhile (open the store again)", ErrSchemaChange, n.Name)
		}
		return nil, err
	}
	return s.replaceKind(old, n), nil
}

// replaceKind puts a kind of schema n (an allowed change of old's) in
// old's place: the buffered readings of old become the new kind's (their
// values padded), old forwards to it, and the writes that reach the
// buffer later are moved over as they arrive (see buffer.add).
func (s *Store) replaceKind(old *Kind, n Schema) *Kind {
	k := newKind(s, n)
	k.admitting = old.admitting
	k.dir = old.dir
	b := s.buf
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.gate.Lock()
	defer b.gate.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rekey(old, k)
	s.kinds.Store(s.kinds.Load().with(k))
	old.next.Store(k)
	return k
}

// sameSchema reports whether two normalised schemas are equal.
func sameSchema(a, b Schema) bool {
	return a.Name == b.Name && slices.Equal(a.Fields, b.Fields) && slices.Equal(a.Tags, b.Tags) &&
		a.Layout == b.Layout && a.Duplicates == b.Duplicates && a.NoCompaction == b.NoCompaction &&
		a.BucketPeriod == b.BucketPeriod && slices.Equal(a.Rollups, b.Rollups) && a.NoRollups == b.NoRollups &&
		a.Retention == b.Retention && a.Shards == b.Shards && a.MetricIndex == b.MetricIndex &&
		a.IndexShards == b.IndexShards && a.Meta == b.Meta
}

// schemaChange returns an ErrSchemaChange naming what a change from old to
// nw (normalised, of one kind) changes that a kind cannot take, or nil.
func schemaChange(old, nw Schema) error {
	var what []string
	if old.Layout != nw.Layout {
		what = append(what, fmt.Sprintf("layout %s to %s", old.Layout, nw.Layout))
	}
	if old.Shards != nw.Shards {
		what = append(what, fmt.Sprintf("shards %d to %d", old.Shards, nw.Shards))
	}
	if old.BucketPeriod != nw.BucketPeriod {
		what = append(what, fmt.Sprintf("bucket period %v to %v", old.BucketPeriod, nw.BucketPeriod))
	}
	for _, l := range []struct {
		what     string
		old, new []string
	}{{"fields", old.Fields, nw.Fields}, {"tags", old.Tags, nw.Tags}} {
		if len(l.new) < len(l.old) || !slices.Equal(l.old, l.new[:len(l.old)]) {
			what = append(what, fmt.Sprintf("%s [%s] to [%s] (only new ones at the end may be added)",
				l.what, strings.Join(l.old, ", "), strings.Join(l.new, ", ")))
		}
	}
	if len(what) == 0 {
		return nil
	}
	return fmt.Errorf("%w: kind %s: %s", ErrSchemaChange, old.Name, strings.Join(what, "; "))
}

// encodeSchema returns the stored form of a normalised schema.
func encodeSchema(sc Schema) (string, error) {
	b, err := json.Marshal(sc)
	if err != nil {
		return "", fmt.Errorf("series: cannot encode schema %s: %w", sc.Name, err)
	}
	return string(b), nil
}

// decodeSchema decodes and normalises a stored schema item.
func decodeSchema(it table.Item) (Schema, error) {
	sk, _ := it[attrSK].(*types.AttributeValueMemberS)
	v, ok := it[attrSchema].(*types.AttributeValueMemberS)
	if sk == nil || !ok {
		return Schema{}, fmt.Errorf("%w: stored schema item without a string %q", ErrInvalidSchema, attrSchema)
	}
	var sc Schema
	if err := json.Unmarshal([]byte(v.Value), &sc); err != nil {
		return Schema{}, fmt.Errorf("stored schema %q: %w", sk.Value, err)
	}
	n, err := sc.normalize()
	if err != nil {
		return Schema{}, fmt.Errorf("stored schema %q: %w", sk.Value, err)
	}
	if n.Name != sk.Value {
		return Schema{}, fmt.Errorf("%w: stored schema %q is named %q", ErrInvalidSchema, sk.Value, n.Name)
	}
	return n, nil
}

// putSchema stores the normalised schema sc if cond holds.
func (s *Store) putSchema(ctx context.Context, sc Schema, cond table.Cond) error {
	v, err := encodeSchema(sc)
	if err != nil {
		return err
	}
	it := table.Item{attrPK: strAV(schemaPK), attrSK: strAV(sc.Name), attrSchema: strAV(v)}
	if _, err := s.tbl.Put(ctx, it, &table.PutOptions{If: cond}); err != nil {
		if table.IsConditionFailed(err) {
			return err
		}
		return fmt.Errorf("series: cannot store the schema of kind %s: %w", sc.Name, s.tableErr(err))
	}
	return nil
}

// storedSchema reads the stored schema of kind name.
func (s *Store) storedSchema(ctx context.Context, name string) (Schema, error) {
	it, err := s.tbl.Get(ctx, table.K(schemaPK, name), &table.GetOptions{Consistent: true})
	if err != nil {
		return Schema{}, fmt.Errorf("series: cannot read the schema of kind %s: %w", name, s.tableErr(err))
	}
	return decodeSchema(it)
}

// storedSchemas reads every stored schema, in name order. A missing table
// holds none.
func (s *Store) storedSchemas(ctx context.Context) ([]Schema, error) {
	var out []Schema
	for it, err := range s.tbl.QueryAll(ctx, &table.Query{Hash: schemaPK, Consistent: true}) {
		if err != nil {
			if table.IsTableMissing(err) {
				s.tableMissing.Store(true)
				return nil, nil
			}
			return nil, fmt.Errorf("series: cannot read the stored schemas: %w", err)
		}
		sc, err := decodeSchema(it)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// normalizeAll normalises the schemas given to Open, which must have
// distinct names.
func normalizeAll(schemas []Schema) ([]Schema, error) {
	var out []Schema
	names := map[string]bool{}
	for _, sc := range schemas {
		n, err := sc.normalize()
		if err != nil {
			return nil, err
		}
		if names[n.Name] {
			return nil, fmt.Errorf("%w: kind %q registered twice", ErrInvalidSchema, n.Name)
		}
		names[n.Name] = true
		out = append(out, n)
	}
	return out, nil
}

// openKinds makes the kinds of Open: its schemas (normalised), each checked against
// the stored schema of its name, then the other stored ones. An Open
// schema that differs from the stored one by allowed changes (see Change)
// wins, and is returned in changed to be stored; any other difference is
// ErrSchemaChange.
func (s *Store) openKinds(ctx context.Context, given []Schema) (changed []Schema, err error) {
	stored, err := s.storedSchemas(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]Schema{}
	for _, sc := range stored {
		byName[sc.Name] = sc
	}
	ks := &kindSet{byName: map[string]*Kind{}}
	for _, n := range given {
		if st, ok := byName[n.Name]; ok && !sameSchema(st, n) {
			if err := schemaChange(st, n); err != nil {
				return nil, fmt.Errorf("series: the schema given to Open does not match the stored one: %w", err)
			}
			changed = append(changed, n)
		}
		k := newKind(s, n)
		ks.byName[n.Name] = k
		ks.order = append(ks.order, k)
	}
	for _, sc := range stored {
		if ks.byName[sc.Name] == nil {
			k := newKind(s, sc)
			ks.byName[sc.Name] = k
			ks.order = append(ks.order, k)
		}
	}
	s.kinds.Store(ks)
	return changed, nil
}

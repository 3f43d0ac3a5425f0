package series

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// The label index of a kind selects its series by the labels their ids
// stand for (IDLabels) without listing them all. Its items, each kind in
// partitions of its own (one sort-key format per partition):
//
//	label names   pk ~LABELS#SENSOR            sk host                 a name some series has
//	label values  pk ~VALUES#SENSOR#host       sk a                    a value of that name some series has
//	postings      pk ~POSTINGS#SENSOR#host#a   sk host=a,job=x         a series with host=a (its id)
//	plain series  pk ~PLAIN#SENSOR             sk dev-1                a series whose id is not a label set ("_" is one)
//	index state   pk ~INDEXED                  sk SENSOR               _d true once the index is complete; _a the last id built
//
// Names and values hold no '#', as ids hold none.
//
// Writes: the flush that puts a series' directory item (directory.go)
// puts, in the same first batch of its writes, before any reading, a
// posting per label of the series (and its plain series item if its id
// is not a label set), and the value and name items of its labels that
// the Store has not put yet (it remembers them as it does
// the directory's ids). Every put is idempotent and unconditional, so
// Stores writing one new series at once write the same items, and a
// reading in the table implies the index items of its series: a flush
// that fails is retried with them, and one a crash stops is replayed from
// the write-ahead log by a Store that remembers nothing and puts them
// again. A new series of n labels costs n to 2n+1 write units once per
// Store lifetime (its postings, and its values and names new to the
// Store; one more for a plain series), a known series nothing. The postings of a value share a
// partition, as the directory's ids do: some 1,000 new series of one
// label value a second on DynamoDB.
//
// Reads: LabelNames and LabelValues read a partition of names or values
// (with a prefix or range), LabelSeries the postings of one value,
// PlainSeries the series whose ids are not label sets; each
// reads what it returns, and merges in the series this Store has buffered
// whose items it has not put (so a Store sees its own writes at once).
//
// Nothing removes index items (nor directory items): DeleteSeries leaves
// the series listed, with no readings. Removing them would be unsafe
// with several Stores: a Store that wrote the series before the delete
// remembers its items as put and would write the series again without
// them, where no selection finds it. A caller reading a deleted series
// finds no readings.
//
// Tables written by earlier versions have directory items without index
// items. The index state item tells: a kind's index is complete once it
// is set, and it is set at once for a kind whose directory is empty (a
// new kind: every series it will have is indexed by the flush that
// writes it), else by the index pass, which reads the directory page by
// page and puts the index items of every id (recording its progress in
// the state item, from which an interrupted pass resumes), then sets it.
// The pass runs in the background every Options.RollupInterval, a kind at
// a time under a lease (Store.IndexLabels runs it by hand). Until a
// kind's index is complete, LabelIndexReady says so: its callers list
// the directory instead.
const (
	labelNamesPrefix  = "~LABELS#"
	labelValuesPrefix = "~VALUES#"
	postingsPrefix    = "~POSTINGS#"
	plainPrefix       = "~PLAIN#"
	indexStatePK      = "~INDEXED"
	attrAfter         = "_a" // the index state's last id built
)

// SeriesLabel is the label a series id that is not a label set stands
// for (IDLabels).
const SeriesLabel = "series"

// HashedIDPrefix starts the id of a series whose label set is too long to
// be its id (the hex SHA-256 of the set follows): such an id stands for
// no labels.
const HashedIDPrefix = "~sha256:"

// Label is a label of a series: a name and its value.
type Label struct {
	Name, Value string
}

// IDLabels returns the labels a series id stands for, sorted by name, and
// whether the id is a label set:
//
//   - "k=v,k=v" sorted by name, each name once, no empty name or value,
//     no name "__name__", with ',', '=' and '\' escaped by a '\' in names
//     and values (as line protocol and Prometheus remote write make ids):
//     those labels, a label set;
//   - "_" (line protocol's id of an entry without tags): none, the empty
//     label set;
//   - an id starting with HashedIDPrefix: none, not a label set;
//   - any other id: SeriesLabel=<id>, not a label set.
func IDLabels(id string) (ls []Label, isSet bool) {
	switch {
	case id == "_":
		return nil, true
	case strings.HasPrefix(id, HashedIDPrefix):
		return nil, false
	}
	if ls, ok := parseLabelSet(id); ok {
		return ls, true
	}
	return []Label{{Name: SeriesLabel, Value: id}}, false
}

// indexLabels returns the labels the label index holds of series id.
func indexLabels(id string) []Label {
	ls, _ := IDLabels(id)
	return ls
}

// parseLabelSet parses "k=v,k=v" as IDLabels describes it, and reports
// whether id is one.
func parseLabelSet(id string) ([]Label, bool) {
	var ls []Label
	var cur strings.Builder
	var name string
	inValue := false
	end := func() bool {
		if !inValue || name == "" || cur.Len() == 0 || name == "__name__" {
			return false
		}
		if len(ls) > 0 && ls[len(ls)-1].Name >= name {
			return false
		}
		ls = append(ls, Label{Name: name, Value: cur.String()})
		cur.Reset()
		inValue = false
		return true
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch c {
		case '\\':
			if i+1 == len(id) {
				return nil, false
			}
			n := id[i+1]
			if n != ',' && n != '=' && n != '\\' {
				return nil, false
			}
			cur.WriteByte(n)
			i++
		case '=':
			if inValue {
				return nil, false
			}
			name = cur.String()
			cur.Reset()
			inValue = true
		case ',':
			if !end() {
				return nil, false
			}
		default:
			cur.WriteByte(c)
		}
	}
	if !end() {
		return nil, false
	}
	return ls, true
}

func (k *Kind) namesPK() string { return labelNamesPrefix + k.s.Name }

func (k *Kind) valuesPK(name string) string {
	return labelValuesPrefix + k.s.Name + keys.Sep + name
}

func (k *Kind) postingsPK(l Label) string {
	return postingsPrefix + k.s.Name + keys.Sep + l.Name + keys.Sep + l.Value
}

func (k *Kind) plainPK() string { return plainPrefix + k.s.Name }

// indexPuts gathers the label index items of a flush or an index pass,
// each value and name item once.
type indexPuts struct {
	values map[dirLabel]struct{}
	names  map[dirLabel]struct{}
}

type dirLabel struct {
	d *seriesDir
	l Label
}

// add appends to ws the label index items of series id of kind k: its
// postings, its plain series item, and the value and name items k's Store
// has not put and ws does not hold.
func (x *indexPuts) add(ws []table.WriteRequest, k *Kind, id string) []table.WriteRequest {
	ls, isSet := IDLabels(id)
	if !isSet {
		ws = append(ws, table.PutRequest(table.Item{attrPK: strAV(k.plainPK()), attrSK: strAV(id)}))
	}
	for _, l := range ls {
		ws = append(ws, table.PutRequest(table.Item{attrPK: strAV(k.postingsPK(l)), attrSK: strAV(id)}))
		value, name := k.dir.hasLabel(l)
		if !value && firstOf(&x.values, dirLabel{k.dir, l}) {
			ws = append(ws, table.PutRequest(table.Item{attrPK: strAV(k.valuesPK(l.Name)), attrSK: strAV(l.Value)}))
		}
		if !name && firstOf(&x.names, dirLabel{k.dir, Label{Name: l.Name}}) {
			ws = append(ws, table.PutRequest(table.Item{attrPK: strAV(k.namesPK()), attrSK: strAV(l.Name)}))
		}
	}
	return ws
}

// firstOf adds key to *m and reports whether it was not there.
func firstOf(m *map[dirLabel]struct{}, key dirLabel) bool {
	if *m == nil {
		*m = map[dirLabel]struct{}{}
	}
	if _, ok := (*m)[key]; ok {
		return false
	}
	(*m)[key] = struct{}{}
	return true
}

// IndexRange bounds a listing of the label index or the directory: the
// keys (label names, values or series ids) that start with Prefix, are
// at least From, below To ("": no bound) and after After, in the order
// of their UTF-8 bytes, at most Limit (0: 1,000). To page, set After to
// the last key of the previous page. A negative limit or a bound that is
// not UTF-8 is ErrInvalidQuery.
type IndexRange struct {
	Prefix, From, To, After string
	Limit                   int
}

// has reports whether key is in r's bounds.
func (r IndexRange) has(key string) bool {
	return strings.HasPrefix(key, r.Prefix) && key >= r.From && (r.To == "" || key < r.To) && key > r.After
}

// listKeys returns the sort keys of partition pk in r, merged with extra
// (the keys of series this Store has buffered, in no order), and whether
// more follow. what names the partition in errors.
func (k *Kind) listKeys(ctx context.Context, pk string, r IndexRange, extra []string, what string) ([]string, bool, error) {
	if err := r.check(); err != nil {
		return nil, false, err
	}
	limit := r.Limit
	if limit == 0 {
		limit = defaultSeriesLimit
	}
	lo := max(r.Prefix, r.From)
	q := &table.Query{Hash: pk, Limit: limit + 1, Projection: []string{attrSK}}
	switch {
	case r.After != "" && r.After >= lo:
		q.Range = table.Gt(r.After)
	case lo != "":
		q.Range = table.Gte(lo)
	}
	var stored []string
	it := k.st.tbl.QueryIter(ctx, q)
	for it.Next() {
		key, err := skOf(it.Item())
		if err != nil {
			it.Close()
			return nil, false, err
		}
		if !strings.HasPrefix(key, r.Prefix) || (r.To != "" && key >= r.To) {
			break
		}
		stored = append(stored, key)
	}
	if err := it.Err(); err != nil {
		return nil, false, fmt.Errorf("series: cannot read %s of kind %s: %w", what, k.s.Name, k.st.tableErr(err))
	}
	it.Close()
	for _, key := range extra {
		if r.has(key) {
			stored = append(stored, key)
		}
	}
	// Every key up to the last the table gave is in all (the table's and
	// extra's); past it, the table may hold more. Either the table had
	// no more, or at least limit+1 keys are known.
	all := slices.Compact(slices.Sorted(slices.Values(stored)))
	if len(all) > limit {
		return all[:limit], true, nil
	}
	return all, false, nil
}

// noKeys is the answer of a listing that can find nothing: none, or
// ErrInvalidQuery for an invalid range.
func (k *Kind) noKeys(r IndexRange) ([]string, bool, error) {
	if err := r.check(); err != nil {
		return nil, false, err
	}
	return nil, false, nil
}

// check returns ErrInvalidQuery for a negative limit or a bound that is
// not UTF-8 (keys are, and DynamoDB compares their bytes).
func (r IndexRange) check() error {
	if r.Limit < 0 {
		return fmt.Errorf("%w: negative limit %d", ErrInvalidQuery, r.Limit)
	}
	for _, b := range []string{r.Prefix, r.From, r.To, r.After} {
		if !utf8.ValidString(b) {
			return fmt.Errorf("%w: bound %q is not UTF-8", ErrInvalidQuery, b)
		}
	}
	return nil
}

// validLabelPart reports whether s can be a label name or value of the
// index: not empty, no '#'.
func validLabelPart(s string) bool { return s != "" && !strings.Contains(s, keys.Sep) }

// pendingLabels returns the labels of the series the Store has buffered
// whose index items it has not put, by id.
func (k *Kind) pendingLabels() map[string][]Label {
	ids := k.dir.pendingIDs()
	out := make(map[string][]Label, len(ids))
	for _, id := range ids {
		out[id] = indexLabels(id)
	}
	return out
}

// LabelNames returns the names of the labels of the kind's series (of
// their ids, IDLabels) in r, in order, and whether more follow: those of
// the label index and of the series with readings buffered in this
// Store. A negative limit is ErrInvalidQuery. See LabelIndexReady for a
// kind written by an earlier version.
func (k *Kind) LabelNames(ctx context.Context, r IndexRange) (names []string, more bool, err error) {
	k = k.current()
	var extra []string
	for _, ls := range k.pendingLabels() {
		for _, l := range ls {
			extra = append(extra, l.Name)
		}
	}
	return k.listKeys(ctx, k.namesPK(), r, extra, "the label names")
}

// LabelValues returns the values that label name takes in the kind's
// series (IDLabels of their ids) in r, in order, and whether more follow,
// as LabelNames does. A name that is empty or holds '#' has none.
func (k *Kind) LabelValues(ctx context.Context, name string, r IndexRange) (values []string, more bool, err error) {
	k = k.current()
	if !validLabelPart(name) {
		return k.noKeys(r)
	}
	var extra []string
	for _, ls := range k.pendingLabels() {
		for _, l := range ls {
			if l.Name == name {
				extra = append(extra, l.Value)
			}
		}
	}
	return k.listKeys(ctx, k.valuesPK(name), r, extra, "the values of label "+name)
}

// LabelSeries returns the ids of the kind's series that have label l
// (IDLabels of their ids) in r, in id order, and whether more follow, as
// LabelNames does. A name or value that is empty or holds '#' has none.
func (k *Kind) LabelSeries(ctx context.Context, l Label, r IndexRange) (ids []string, more bool, err error) {
	k = k.current()
	if !validLabelPart(l.Name) || !validLabelPart(l.Value) {
		return k.noKeys(r)
	}
	var extra []string
	for id, ls := range k.pendingLabels() {
		if slices.Contains(ls, l) {
			extra = append(extra, id)
		}
	}
	return k.listKeys(ctx, k.postingsPK(l), r, extra, "the series of label "+l.Name)
}

// PlainSeries returns the ids of the kind's series that are not label
// sets (IDLabels; "_" is one) in r, in id order, and whether more follow,
// as LabelNames does: the series that may take labels from their
// readings' tags.
func (k *Kind) PlainSeries(ctx context.Context, r IndexRange) (ids []string, more bool, err error) {
	k = k.current()
	var extra []string
	for _, id := range k.dir.pendingIDs() {
		if _, isSet := IDLabels(id); !isSet {
			extra = append(extra, id)
		}
	}
	return k.listKeys(ctx, k.plainPK(), r, extra, "the plain series")
}

// indexState is a kind's index state item.
type indexState struct {
	done  bool
	after string // the last id of the directory built, when not done
}

func (k *Kind) indexStateKey() table.Key { return table.K(indexStatePK, k.s.Name) }

// readIndexState reads the kind's index state item (the zero state if
// there is none).
func (k *Kind) readIndexState(ctx context.Context) (indexState, error) {
	it, err := k.st.tbl.Get(ctx, k.indexStateKey(), &table.GetOptions{Consistent: true})
	if errors.Is(err, table.ErrNotFound) {
		return indexState{}, nil
	}
	if err != nil {
		return indexState{}, fmt.Errorf("series: cannot read the label index state of kind %s: %w", k.s.Name, k.st.tableErr(err))
	}
	return stateOf(it), nil
}

func stateOf(it table.Item) indexState {
	var st indexState
	if b, ok := it[attrDone].(*types.AttributeValueMemberBOOL); ok {
		st.done = b.Value
	}
	st.after, _ = getS(it, attrAfter)
	return st
}

// writeIndexState puts the kind's index state item, and reports whether
// the index is complete: a complete index is noted as ready, and the
// progress of a pass is recorded only over an index not complete (so
// that a pass running late never undoes another's end).
func (k *Kind) writeIndexState(ctx context.Context, st indexState) (done bool, err error) {
	it := table.Item{attrPK: strAV(indexStatePK), attrSK: strAV(k.s.Name)}
	var opts *table.PutOptions
	if st.done {
		it[attrDone] = &types.AttributeValueMemberBOOL{Value: true}
	} else {
		it[attrAfter] = strAV(st.after)
		opts = &table.PutOptions{If: table.Attr(attrDone).NotExists()}
	}
	_, err = k.st.tbl.Put(ctx, it, opts)
	switch {
	case table.IsConditionFailed(err):
		st.done = true
	case err != nil:
		return false, fmt.Errorf("series: cannot write the label index state of kind %s: %w", k.s.Name, k.st.tableErr(err))
	}
	if st.done {
		k.dir.ready.Store(true)
	}
	return st.done, nil
}

// LabelIndexReady reports whether the kind's label index is complete:
// whether LabelNames, LabelValues and LabelSeries find every series of
// the directory. It is, from the start, for a kind whose first series
// this version wrote; for one written by an earlier version, once the
// index pass has built it (see Store.IndexLabels). Until then they find
// only the series written since, and a caller lists the directory
// (Series) instead. Once true it stays true, and costs no table call.
func (k *Kind) LabelIndexReady(ctx context.Context) (bool, error) {
	k = k.current()
	if k.dir.ready.Load() {
		return true, nil
	}
	st, err := k.readIndexState(ctx)
	if err != nil {
		return false, err
	}
	if st.done {
		k.dir.ready.Store(true)
		return true, nil
	}
	if st.after != "" {
		return false, nil
	}
	return k.indexIfEmpty(ctx)
}

// indexIfEmpty notes the kind's index complete if its directory is empty,
// and reports whether it did.
func (k *Kind) indexIfEmpty(ctx context.Context) (bool, error) {
	p, err := k.st.tbl.Query(ctx, &table.Query{Hash: k.dirPK(), Limit: 1, Consistent: true, Projection: []string{attrSK}})
	if err != nil {
		return false, fmt.Errorf("series: cannot read the series of kind %s: %w", k.s.Name, k.st.tableErr(err))
	}
	if len(p.Items) > 0 {
		return false, nil
	}
	return k.writeIndexState(ctx, indexState{done: true})
}

// indexPage is the number of directory ids an index pass indexes per
// batch of writes, and between two records of its progress.
const indexPage = 1000

// buildIndex puts the label index items of every series of the kind's
// directory, a page at a time, from the progress the state item records,
// and then notes the index complete. It is idempotent.
func (k *Kind) buildIndex(ctx context.Context) error {
	k = k.current()
	if k.dir.ready.Load() {
		return nil
	}
	st, err := k.readIndexState(ctx)
	if err != nil || st.done {
		if st.done {
			k.dir.ready.Store(true)
		}
		return err
	}
	for {
		q := &table.Query{Hash: k.dirPK(), Limit: indexPage, Consistent: true, Projection: []string{attrSK}}
		if st.after != "" {
			q.Range = table.Gt(st.after)
		}
		p, err := k.st.tbl.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("series: cannot read the series of kind %s: %w", k.s.Name, k.st.tableErr(err))
		}
		var ix indexPuts
		var ws []table.WriteRequest
		for _, it := range p.Items {
			id, err := skOf(it)
			if err != nil {
				return err
			}
			ws = ix.add(ws, k, id)
			st.after = id
		}
		if err := k.st.batchWrite(ctx, ws); err != nil {
			return fmt.Errorf("series: cannot write the label index of kind %s: %w", k.s.Name, err)
		}
		if p.Cursor == "" {
			st.done = true
		}
		if done, err := k.writeIndexState(ctx, st); err != nil || done {
			return err
		}
	}
}

// IndexLabels builds the label index of every kind whose index is not
// complete (see Kind.LabelIndexReady), at once, taking no lease; the
// background index pass does the same every Options.RollupInterval, each
// kind under its lease (sk index#KIND). Two passes building one kind at
// once write the same items.
func (s *Store) IndexLabels(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	var errs []error
	for _, k := range s.Kinds() {
		if err := k.buildIndex(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// leasedIndex is the background index pass: each kind whose index is not
// complete, under its lease.
func (s *Store) leasedIndex(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	var todo []*Kind
	var errs []error
	for _, k := range s.Kinds() {
		ready, err := k.LabelIndexReady(ctx)
		if err != nil {
			errs = append(errs, err)
		} else if !ready {
			todo = append(todo, k)
		}
	}
	if len(todo) > 0 {
		errs = append(errs, s.leasedKinds(ctx, "index", s.opts.RollupInterval, todo, func(ctx context.Context, k *Kind) error {
			return k.buildIndex(ctx)
		}))
	}
	return errors.Join(errs...)
}

// readyIndexes notes the kinds whose label index is complete, from the
// index state items, and completes that of each kind whose directory is
// empty (see LabelIndexReady), as Open and EnsureTable find them.
// Failures are logged: LabelIndexReady and the index pass try again.
func (s *Store) readyIndexes(ctx context.Context) {
	states := map[string]indexState{}
	for it, err := range s.tbl.QueryAll(ctx, &table.Query{Hash: indexStatePK, Consistent: true}) {
		if err != nil {
			s.log.Warn("series: cannot read the label index states", "err", s.tableErr(err))
			return
		}
		name, _ := getS(it, attrSK)
		states[name] = stateOf(it)
	}
	for _, k := range s.Kinds() {
		st, ok := states[k.s.Name]
		switch {
		case st.done:
			k.dir.ready.Store(true)
		case !ok:
			if _, err := k.indexIfEmpty(ctx); err != nil {
				s.log.Warn("series: cannot check the label index", "kind", k.s.Name, "err", err)
			}
		}
	}
}

// indexNewKind completes the label index of kind k, which this Store has
// just defined, if its directory is empty, so that the series its first
// flush writes are selected through the index at once. A failure is
// logged: LabelIndexReady and the index pass try again.
func (s *Store) indexNewKind(ctx context.Context, k *Kind) {
	if s.tableMissing.Load() {
		return
	}
	if _, err := k.indexIfEmpty(ctx); err != nil {
		s.log.Warn("series: cannot check the label index", "kind", k.s.Name, "err", err)
	}
}

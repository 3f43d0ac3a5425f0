package local

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/expr"
)

// maxPage is DynamoDB's limit on the data one Query or Scan page reads.
const maxPage = 1 << 20

// scan is one page of a Query or Scan: a key range of one index (or the
// table) read forwards or backwards.
type scan struct {
	m       *tableMeta
	ix      *indexMeta // nil for the table
	lower   []byte
	upper   []byte
	reverse bool
	filter  *expr.Condition
	proj    projector
	count   bool // Select COUNT
	fetch   bool // read the table item for each index entry (LSI only)
	// filterFetch evaluates the filter on the table item while returning
	// the index entry (a Scan of an index whose filter reads attributes the
	// index does not project, as DynamoDB Local does).
	filterFetch bool
	limit       int // 0: none
	consistent  bool
}

type scanResult struct {
	items        []Item
	count        int
	scanned      int
	lastKey      Item
	lastRaw      []byte  // storage key of the last item read, when lastKey is set
	indexBytes   int     // bytes read from the index (or table)
	pageBytes    int     // bytes of the items that passed the filter
	fetchedUnits float64 // units of table reads for fetched items
}

func (db *DB) runScan(s *scan) (*scanResult, error) {
	return db.runScanOn(nil, s)
}

// runScanOn is runScan on the iterator it, its bounds set to s's, or on
// an iterator of its own when it is nil.
func (db *DB) runScanOn(it *pebble.Iterator, s *scan) (*scanResult, error) {
	r := &scanResult{}
	if !s.count {
		r.items = []Item{}
	}
	// The page's items take their string and number values from shared
	// blocks: one allocation per 32 values rather than one each.
	var dec codec.Decoder
	err := db.walkOn(it, s, func(it *pebble.Iterator) (bool, error) {
		item, err := decodeItemWith(&dec, it.Value())
		if err != nil {
			return false, fmt.Errorf("local: cannot read %x: %w", it.Key(), err)
		}
		size := itemSize(item)
		r.indexBytes += size
		r.scanned++
		keyItem := item
		filterItem := item
		if s.fetch || s.filterFetch {
			bk, err := s.m.baseKeyOfEntry(s.ix, it.Key())
			if err != nil {
				return false, err
			}
			full, err := db.getRaw(bk)
			if err != nil {
				return false, err
			}
			if full != nil && s.fetch {
				size = itemSize(full)
				r.fetchedUnits += readUnits(size, s.consistent)
				item = full
			}
			if full != nil {
				filterItem = full
			}
		}
		if s.filter == nil || s.filter.Eval(filterItem) {
			r.pageBytes += size
			r.count++
			if !s.count {
				r.items = append(r.items, s.proj.apply(item))
			}
		}
		if s.pageEnds(r) {
			r.endPage(s, keyItem, it.Key())
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// walk calls visit with the iterator at each entry of s's key range, in
// s's order, until visit reports the page done or fails, or the range
// ends. It returns visit's error, else the iterator's.
func (db *DB) walk(s *scan, visit func(it *pebble.Iterator) (done bool, err error)) error {
	return db.walkOn(nil, s, visit)
}

// walkOn is walk on the iterator it, its bounds set to s's (see
// SetBounds), or on an iterator of its own when it is nil.
func (db *DB) walkOn(it *pebble.Iterator, s *scan, visit func(it *pebble.Iterator) (done bool, err error)) error {
	if it == nil {
		var err error
		if it, err = db.pdb.NewIter(&pebble.IterOptions{LowerBound: s.lower, UpperBound: s.upper}); err != nil {
			return err
		}
		defer it.Close()
	} else {
		it.SetBounds(s.lower, s.upper)
	}
	valid := it.First()
	if s.reverse {
		valid = it.Last()
	}
	for ; valid; valid = step(it, s.reverse) {
		done, err := visit(it)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	return it.Error()
}

// pageEnds reports whether the page ends with the entry just counted in
// r: at the scan's Limit of entries read, or at 1 MB of items. DynamoDB
// Local counts only the items that pass the filter toward the 1 MB page;
// DynamoDB counts every item read.
func (s *scan) pageEnds(r *scanResult) bool {
	return (s.limit > 0 && r.scanned >= s.limit) || r.pageBytes >= maxPage
}

// endPage makes the entry at storage key key, whose attributes item holds,
// the page's last: its LastEvaluatedKey.
func (r *scanResult) endPage(s *scan, item Item, key []byte) {
	r.lastKey = s.m.lastKey(s.ix, item)
	r.lastRaw = append([]byte(nil), key...)
}

func step(it *pebble.Iterator, reverse bool) bool {
	if reverse {
		return it.Prev()
	}
	return it.Next()
}

// lastKey extracts LastEvaluatedKey from an item or index entry: the table
// keys, plus the index keys for an index.
func (m *tableMeta) lastKey(ix *indexMeta, item Item) Item {
	k := Item{m.Hash: item[m.Hash]}
	if m.Range != "" {
		k[m.Range] = item[m.Range]
	}
	if ix != nil {
		for _, a := range ix.keyNames {
			k[a] = item[a]
		}
	}
	return k
}

// usage returns the capacity a scan consumed.
func (s *scan) usage(r *scanResult) *usage {
	u := &usage{table: s.m.Name, read: true}
	units := 0.0
	if r.indexBytes > 0 {
		units = readUnits(r.indexBytes, s.consistent)
	}
	if s.ix == nil {
		u.units = units
		return u
	}
	u.units = r.fetchedUnits
	if u.indexes == nil {
		u.indexes = map[string]float64{}
		u.global = map[string]bool{}
	}
	u.indexes[s.ix.Name] = units
	u.global[s.ix.Name] = s.ix.Global
	return u
}

// keyAfter returns the smallest key greater than k.
func keyAfter(k []byte) []byte {
	r := make([]byte, len(k)+1)
	copy(r, k)
	return r
}

// readSpec is what Query and Scan share: index choice, Select, projection,
// filter, limit and consistency.
type readSpec struct {
	m          *tableMeta
	ix         *indexMeta
	sel        types.Select
	proj       projector
	filter     *expr.Condition
	limit      int
	consistent bool
	fetch      bool
	// filterFetch: see scan.filterFetch.
	filterFetch bool
}

// topLeveler is implemented by compiled conditions that can list the
// top-level attributes they read. (Shim: package expr's Condition is
// intended to offer TopLevel like Projection and Update; until it does, the
// checks that need it are skipped.)
type topLeveler interface{ TopLevel() []string }

func conditionAttrs(c *expr.Condition) ([]string, bool) {
	if c == nil {
		return nil, true
	}
	if tl, ok := any(c).(topLeveler); ok {
		return tl.TopLevel(), true
	}
	return nil, false
}

// newSpec starts the spec of a Query or Scan of the table or of the index
// named, which must exist.
func newSpec(m *tableMeta, indexName *string, sel types.Select, consistent *bool) (*readSpec, error) {
	sp := &readSpec{m: m, sel: sel}
	if consistent != nil {
		sp.consistent = *consistent
	}
	if indexName != nil {
		sp.ix = m.index(*indexName)
		if sp.ix == nil {
			return nil, validationf("The table does not have the specified index: %s", *indexName)
		}
	}
	return sp, nil
}

// checkLimit validates Limit; 0 means none.
func checkLimit(limit *int32) (int, error) {
	if limit == nil {
		return 0, nil
	}
	if *limit < 1 {
		return 0, validationError("Limit must be greater than or equal to 1")
	}
	return int(*limit), nil
}

func (sp *readSpec) checkConsistent() error {
	if sp.ix != nil && sp.ix.Global && sp.consistent {
		return validationError("Consistent reads are not supported on global secondary indexes")
	}
	return nil
}

// checkSelect validates Select against the projection and the index, and
// settles what is read: the index's attributes, or (local indexes) the
// table's items.
func (sp *readSpec) checkSelect(projIsExpr bool) error {
	what := "AttributesToGet"
	if projIsExpr {
		what = "ProjectionExpression"
	}
	proj := sp.proj
	switch sp.sel {
	case "":
		if proj.set() {
			sp.sel = types.SelectSpecificAttributes
		} else if sp.ix != nil {
			sp.sel = types.SelectAllProjectedAttributes
		} else {
			sp.sel = types.SelectAllAttributes
		}
	case types.SelectSpecificAttributes:
		if !proj.set() {
			return validationError("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	case types.SelectCount:
		if proj.set() {
			return validationf("Cannot specify the %s when choosing to get only the Count", what)
		}
	case types.SelectAllAttributes:
		if proj.set() {
			return validationf("Cannot specify the %s when choosing to get ALL_ATTRIBUTES", what)
		}
	case types.SelectAllProjectedAttributes:
		if proj.set() {
			return validationf("Cannot specify the %s when choosing to get ALL_PROJECTED_ATTRIBUTES", what)
		}
		if sp.ix == nil {
			// DynamoDB Local says "Querying" for Scan too.
			return validationError("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	default:
		return validationError("Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES")
	}
	if ix := sp.ix; ix != nil && ix.Projection != "ALL" && sp.sel == types.SelectAllAttributes {
		if ix.Global {
			return validationf("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", ix.Name)
		}
		sp.fetch = true
	}
	return nil
}

// checkProjectionProjected checks that a global index projects the
// attributes of the projection; a local index fetches the others from the
// table.
func (sp *readSpec) checkProjectionProjected() error {
	ix := sp.ix
	if ix == nil || ix.Projection == "ALL" {
		return nil
	}
	if missing := notProjected(ix, sp.proj.topLevel()); len(missing) > 0 {
		if ix.Global {
			// DynamoDB Local lists them as a Java HashSet holds them, added
			// in the order of AttributesToGet or of its tree of the
			// ProjectionExpression.
			names := sp.proj.names
			if sp.proj.names == nil {
				names = sp.proj.p.TopLevelInTreeOrder()
			}
			missing = notProjected(ix, expr.HashSetOrder(names))
			return validationf("One or more parameter values were invalid: Global secondary index %s does not project [%s]", ix.Name, strings.Join(missing, ", "))
		}
		sp.fetch = true
	}
	return nil
}

// checkFilterProjected checks that an index projects the attributes the
// filter reads.
func (sp *readSpec) checkFilterProjected() error {
	ix := sp.ix
	if ix == nil || ix.Projection == "ALL" {
		return nil
	}
	if attrs, ok := conditionAttrs(sp.filter); ok {
		if missing := notProjected(ix, attrs); len(missing) > 0 {
			slices.Sort(missing) // DynamoDB Local's order (a sorted set)
			return validationf("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]", ix.Name, strings.Join(missing, ", "))
		}
	}
	return nil
}

func notProjected(ix *indexMeta, names []string) []string {
	var missing []string
	seen := map[string]bool{}
	for _, n := range names {
		if !ix.include[n] && !seen[n] {
			missing = append(missing, n)
			seen[n] = true
		}
	}
	return missing
}

func (sp *readSpec) scan(lower, upper []byte, reverse bool) *scan {
	return &scan{
		m: sp.m, ix: sp.ix, lower: lower, upper: upper, reverse: reverse, filter: sp.filter, proj: sp.proj,
		count: sp.sel == types.SelectCount, fetch: sp.fetch, filterFetch: sp.filterFetch, limit: sp.limit, consistent: sp.consistent,
	}
}

// startKey turns an ExclusiveStartKey into the storage key it designates.
func (sp *readSpec) startKey(esk Item) ([]byte, error) {
	m, ix := sp.m, sp.ix
	if err := nullAttr(esk); err != nil {
		return nil, err
	}
	// The attributes of the key: the table's, and an index's. A start
	// key of a table or a local index must have exactly as many
	// (DynamoDB Local's size check); one of a global index is only
	// checked attribute by attribute, and an attribute too many is an
	// invalid key.
	keyAttrs := map[string]bool{m.Hash: true}
	if m.Range != "" {
		keyAttrs[m.Range] = true
	}
	if ix != nil {
		for _, a := range ix.keyNames {
			keyAttrs[a] = true
		}
	}
	if (ix == nil || !ix.Global) && len(esk) != len(keyAttrs) {
		return nil, validationError("Exclusive Start Key must have same size as table's key schema")
	}
	for _, a := range []string{m.Hash, m.Range} {
		if _, ok := esk[a]; a != "" && !ok {
			return nil, validationError("The provided starting key is invalid")
		}
	}
	k, err := m.keyFromItem(esk)
	if err != nil {
		if strings.Contains(err.Error(), "Type mismatch") {
			return nil, validationError("Type mismatch for attribute to update")
		}
		return nil, err
	}
	if ix == nil {
		return k.key, nil
	}
	for _, a := range ix.keyNames {
		if _, ok := esk[a]; !ok {
			return nil, validationError("The provided starting key is invalid")
		}
	}
	if ix.multi() {
		if err := ix.checkStartKey(esk); err != nil {
			return nil, err
		}
	} else if len(esk) != len(keyAttrs) {
		return nil, validationError("The provided starting key is invalid")
	} else if err := (&tableMeta{checked: []*indexMeta{ix}}).checkIndexKeys(esk); err != nil {
		if strings.Contains(err.Error(), "Type mismatch") {
			return nil, validationError("Type mismatch for attribute to update")
		}
		return nil, validationError("The provided starting key is invalid")
	}
	ek, _, ok := m.indexEntry(ix, esk, k)
	if !ok {
		return nil, validationError("The provided starting key is invalid")
	}
	return ek, nil
}

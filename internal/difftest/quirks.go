package difftest

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file holds the comparator's exceptions: the differences between
// DynamoDB Local 3.3.0 and the engine that docs/compat.md documents as
// deliberate, normalized on the answers of the target marked DynamoDBLocal
// and on nothing else. Each rule cites its docs/compat.md row and applies
// only to the shape of request and stored data that produces the
// difference; the answer of the other target is never touched, so the
// engine doing what DynamoDB Local does there would still be a divergence.
//
// Exceptions kept elsewhere, with the same kind of comment:
//   - numbers compared by value (Config.NumbersByValue, canon.go);
//   - no capacity asked on TransactWriteItems (gen.go, transactWrite).
//   - no BatchExecuteStatement with two writes of one item (partiql.go,
//     batchStatement).

// writeState is what the rules need to know of the items a write touches:
// each key's item before the write (nil if absent). Keys are keyID of the
// logical table name and the key.
type writeState struct {
	before map[string]Item
}

// capacityAsked reports whether a request asked for consumed capacity.
func capacityAsked(rcc types.ReturnConsumedCapacity) bool {
	return rcc == types.ReturnConsumedCapacityTotal || rcc == types.ReturnConsumedCapacityIndexes
}

// writtenItem is one item of a write request: its logical table, its key
// and, for a put, the item written.
type writtenItem struct {
	table string
	key   Item
	put   Item // PutItem, PutRequest
	del   bool // DeleteItem, DeleteRequest
}

// writesOf returns the items op writes, when the capacity rules below may
// apply to its answer: a single-item write or a BatchWriteItem that asks for
// capacity. (TransactWriteItems never asks: see gen.go.)
func writesOf(s *Schema, op Op) []writtenItem {
	keyOf := func(it Item) Item {
		k := Item{}
		for _, a := range []string{"pk", "sk"} {
			if v, ok := it[a]; ok {
				k[a] = v
			}
		}
		return k
	}
	var out []writtenItem
	switch in := op.Input.(type) {
	case *dynamodb.PutItemInput:
		if capacityAsked(in.ReturnConsumedCapacity) {
			out = append(out, writtenItem{table: deref(in.TableName), key: keyOf(in.Item), put: in.Item})
		}
	case *dynamodb.UpdateItemInput:
		if capacityAsked(in.ReturnConsumedCapacity) {
			out = append(out, writtenItem{table: deref(in.TableName), key: keyOf(in.Key)})
		}
	case *dynamodb.DeleteItemInput:
		if capacityAsked(in.ReturnConsumedCapacity) {
			out = append(out, writtenItem{table: deref(in.TableName), key: keyOf(in.Key), del: true})
		}
	case *dynamodb.BatchWriteItemInput:
		if !capacityAsked(in.ReturnConsumedCapacity) {
			return nil
		}
		for _, t := range s.Tables { // in schema order: deterministic
			for _, wr := range in.RequestItems[t.Name] {
				switch {
				case wr.PutRequest != nil:
					out = append(out, writtenItem{table: t.Name, key: keyOf(wr.PutRequest.Item), put: wr.PutRequest.Item})
				case wr.DeleteRequest != nil:
					out = append(out, writtenItem{table: t.Name, key: keyOf(wr.DeleteRequest.Key), del: true})
				}
			}
		}
	}
	return out
}

// needsState reports whether a rule may need the items op writes as they
// were before it: a BatchWriteItem (deletes of missing items), or a write to
// a table whose global secondary index has a sort key (sparse index keys).
func needsState(s *Schema, op Op) bool {
	ws := writesOf(s, op)
	if len(ws) == 0 {
		return false
	}
	if op.Kind == "BatchWriteItem" {
		return true
	}
	t := s.table(ws[0].table)
	return t != nil && (t.GSI.Range != "" || t.MGSI != nil)
}

func (s *Schema) table(name string) *Table {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// readState reads, consistently, the items op is about to write on tg. It
// returns nil when op needs no state or a key cannot be read (a malformed
// key, which fails the write too): the rules then change nothing.
func readState(ctx context.Context, s *Schema, tg Target, op Op) *writeState {
	if !needsState(s, op) {
		return nil
	}
	ws := writesOf(s, op)
	st := &writeState{before: map[string]Item{}}
	if op.Kind == "BatchWriteItem" {
		if !readItems(ctx, tg, ws, st.before) {
			return nil
		}
		return st
	}
	for _, w := range ws {
		it, ok := readItem(ctx, tg, w.table, w.key)
		if !ok {
			return nil
		}
		st.before[keyID(w.table, w.key)] = it
	}
	return st
}

// readItems reads the items of ws on tg with BatchGetItem into items (nil
// for absent ones); it reports false if they cannot be read (a malformed
// or duplicate key, which fails the write too).
func readItems(ctx context.Context, tg Target, ws []writtenItem, items map[string]Item) bool {
	req := map[string]types.KeysAndAttributes{}
	for _, w := range ws {
		ka := req[tg.Prefix+w.table]
		ka.Keys = append(ka.Keys, w.key)
		ka.ConsistentRead = aws.Bool(true)
		req[tg.Prefix+w.table] = ka
		items[keyID(w.table, w.key)] = nil
	}
	for try := 0; len(req) > 0; try++ {
		if try == 10 {
			return false
		}
		out, err := tg.API.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return false
		}
		for t, its := range out.Responses {
			for _, it := range its {
				items[keyID(strings.TrimPrefix(t, tg.Prefix), it)] = it
			}
		}
		req = out.UnprocessedKeys
	}
	return true
}

// readItem returns the item with key k in logical table t on tg (nil if
// absent); ok is false if it cannot be read.
func readItem(ctx context.Context, tg Target, t string, k Item) (Item, bool) {
	out, err := tg.API.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(tg.Prefix + t), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, false
	}
	return out.Item, true
}

// normalizeLocal applies the rules to ans, DynamoDB Local's canonical
// answer to op (in is op's input as sent to tg), and returns it.
func normalizeLocal(ctx context.Context, s *Schema, tg Target, op Op, ans any, st *writeState) any {
	m, ok := ans.(map[string]any)
	if !ok {
		return ans
	}
	if m["error"] == "DuplicateItem" {
		// docs/compat.md, PartiQL: DynamoDB Local names
		// DuplicateItemException DuplicateItem.
		m["error"] = "DuplicateItemException"
	}
	if op.Kind == "ExecuteTransaction" && m["error"] == "TransactionCanceledException" {
		untypedEmptyMaps(m)
	}
	if pages, ok := m["pages"].([]any); ok {
		lsiReadCapacity(ctx, s, tg, op, pages)
		return ans
	}
	out, ok := m["out"].(map[string]any)
	if !ok {
		return ans // an error: errors carry no capacity
	}
	if in, ok := op.Input.(*dynamodb.DeleteItemInput); ok {
		unaskedDeleteCapacity(in, out)
	}
	if st == nil {
		return ans
	}
	var after map[string]Item
	if u, ok := op.Input.(*dynamodb.UpdateItemInput); ok {
		k := writesOf(s, op)[0]
		it, ok := readItem(ctx, tg, deref(u.TableName), k.key)
		if !ok {
			return ans
		}
		after = map[string]Item{keyID(k.table, k.key): it}
	}
	extraLocalUnits(s, op, out, st, after)
	return ans
}

// unaskedDeleteCapacity removes the ConsumedCapacity that DynamoDB Local
// returns from a DeleteItem that did not ask for it (ReturnConsumedCapacity
// absent or NONE). docs/compat.md row "DeleteItem without
// ReturnConsumedCapacity". DeleteItem only: PutItem and UpdateItem return no
// capacity unasked on both.
func unaskedDeleteCapacity(in *dynamodb.DeleteItemInput, out map[string]any) {
	if !capacityAsked(in.ReturnConsumedCapacity) {
		delete(out, "ConsumedCapacity")
	}
}

// extraLocalUnits takes out of a write's ConsumedCapacity the units that
// DynamoDB Local charges and the engine, as DynamoDB, does not:
//
//   - docs/compat.md row "BatchWriteItem delete of a missing item":
//     DynamoDB Local charges 2 write units for a DeleteRequest whose item
//     does not exist, the engine 1 (as DeleteItem on both). One table unit
//     per such DeleteRequest is taken out of the table's figure and total.
//   - docs/compat.md row "Sparse index whose key is incomplete before and
//     after a write": for a global secondary index with a sort key, when the
//     item before the write has exactly one of the index's two key
//     attributes and the item after has exactly the other one, so that it
//     is in the index neither before nor after, DynamoDB Local charges an
//     index write of the size of the old item's projection (a delete of an
//     entry that does not exist); the engine charges none. The unit is
//     taken out of the index's figure and the total, and only when the old
//     item is at most 1 KB (its canonical JSON, which is never smaller than
//     its DynamoDB size, has at most 1024 bytes), so that the charge is
//     exactly 1 unit; a larger one stays a divergence. The same row, for
//     an index with a multi-attribute key: when neither item has all of
//     the index's key attributes but together they have them all.
//
// Nothing is taken out of figures that are absent or smaller than the
// units to remove: the answer then stays as DynamoDB Local gave it, and
// diverges.
func extraLocalUnits(s *Schema, op Op, out map[string]any, st *writeState, after map[string]Item) {
	table := map[string]float64{} // units to take out of each table's figure
	index := map[string]map[string]float64{}
	for _, w := range writesOf(s, op) {
		id := keyID(w.table, w.key)
		old := st.before[id]
		var cur Item // the item after the write
		switch {
		case w.put != nil:
			cur = w.put
		case w.del:
		default:
			var ok bool
			if cur, ok = after[id]; !ok {
				return
			}
		}
		if op.Kind == "BatchWriteItem" && w.del && old == nil {
			table[w.table]++
		}
		t := s.table(w.table)
		if t == nil {
			continue
		}
		for _, ix := range []*Index{&t.GSI, t.MGSI} {
			if ix != nil && len(ix.KeyNames()) > 1 && swapsIncompleteKey(ix, old, cur) && len(toJSON((&canonizer{}).of(old))) <= 1024 {
				if index[w.table] == nil {
					index[w.table] = map[string]float64{}
				}
				index[w.table][ix.Name]++
			}
		}
	}
	switch c := out["ConsumedCapacity"].(type) {
	case map[string]any:
		name, _ := c["TableName"].(string)
		takeOut(c, table[name], index[name])
	case []any:
		for _, x := range c {
			if cm, ok := x.(map[string]any); ok {
				name, _ := cm["TableName"].(string)
				takeOut(cm, table[name], index[name])
			}
		}
	}
}

// swapsIncompleteKey reports whether neither old nor cur has all of ix's
// key attributes while together they have them all: for an index with two,
// old has exactly one and cur exactly the other one.
func swapsIncompleteKey(ix *Index, old, cur Item) bool {
	oldAll, curAll := true, true
	for _, a := range ix.KeyNames() {
		_, o := old[a]
		_, c := cur[a]
		if !o && !c {
			return false
		}
		oldAll, curAll = oldAll && o, curAll && c
	}
	return !oldAll && !curAll
}

// takeOut subtracts units from one canonical ConsumedCapacity: tableUnits
// from its Table figure (with ReturnConsumedCapacity INDEXES) and
// indexUnits from its GlobalSecondaryIndexes figures, both from its total.
// It changes nothing unless every figure it would lower is there and large
// enough.
func takeOut(c map[string]any, tableUnits float64, indexUnits map[string]float64) {
	total, ok := c["CapacityUnits"].(float64)
	if !ok {
		return
	}
	sum := tableUnits
	for _, u := range indexUnits {
		sum += u
	}
	if sum == 0 || total < sum {
		return
	}
	_, indexes := c["Table"]
	var tableFig map[string]any
	if indexes {
		tableFig, _ = c["Table"].(map[string]any)
		if tu, _ := tableFig["CapacityUnits"].(float64); tu < tableUnits {
			return
		}
		gsis, _ := c["GlobalSecondaryIndexes"].(map[string]any)
		for name, u := range indexUnits {
			fig, _ := gsis[name].(map[string]any)
			if iu, _ := fig["CapacityUnits"].(float64); iu < u {
				return
			}
		}
		tableFig["CapacityUnits"] = tableFig["CapacityUnits"].(float64) - tableUnits
		for name, u := range indexUnits {
			fig := gsis[name].(map[string]any)
			if left := fig["CapacityUnits"].(float64) - u; left > 0 {
				fig["CapacityUnits"] = left
			} else {
				delete(gsis, name)
			}
		}
		if len(gsis) == 0 {
			delete(c, "GlobalSecondaryIndexes")
		}
	}
	c["CapacityUnits"] = total - sum
}

// lsiReadCapacity normalizes, in the pages of a walked Query or Scan of a
// local secondary index that does not project ALL, the table reads that
// DynamoDB Local charges differently from DynamoDB (probed on DynamoDB
// Local 3.3.0; FINDINGS.md, F17 and F18):
//
//   - docs/compat.md row "LSI query with a ProjectionExpression the index
//     already satisfies": a Query whose ProjectionExpression names only
//     attributes the index projects costs DynamoDB Local a table read for
//     every item the page scanned, as if it fetched them; the engine, as
//     DynamoDB, charges the index only. The page's table figure must be
//     exactly one unit per scanned item (half a unit eventually consistent,
//     which is the charge for items of at most 4 KB): it is taken out of
//     the table figure and the total. (With TOTAL, the total must be larger
//     than what is taken out, the index read being never free.)
//   - docs/compat.md row "LSI scan with ALL_ATTRIBUTES": a Scan that reads
//     the table's items (Select ALL_ATTRIBUTES, or a ProjectionExpression
//     naming an attribute the index does not project) costs DynamoDB Local
//     no table read; the engine, as DynamoDB, charges the fetch of every
//     scanned item. Only for a scan of one page (the generator asks for
//     capacity only without Limit and segments) whose table figure is 0:
//     one unit per scanned item (half eventually consistent) is added to
//     the table figure and the total, provided every item in the index is
//     at most 4 KB, which the harness checks by scanning the table on tg
//     (consistently; canonical JSON, never smaller than DynamoDB's size,
//     of at most 4096 bytes), so that each fetch costs exactly that.
//
// Queries and scans of the table, of a global index or of an ALL local
// index, and every other figure, are left as they are.
func lsiReadCapacity(ctx context.Context, s *Schema, tg Target, op Op, pages []any) {
	var (
		table, index, sel, projection string
		names                         map[string]string
		consistent                    *bool
	)
	switch in := op.Input.(type) {
	case *dynamodb.QueryInput:
		table, index, sel, projection, names, consistent = deref(in.TableName), deref(in.IndexName),
			string(in.Select), deref(in.ProjectionExpression), in.ExpressionAttributeNames, in.ConsistentRead
	case *dynamodb.ScanInput:
		if in.Limit != nil || in.TotalSegments != nil || len(pages) != 1 {
			return
		}
		table, index, sel, projection, names, consistent = deref(in.TableName), deref(in.IndexName),
			string(in.Select), deref(in.ProjectionExpression), in.ExpressionAttributeNames, in.ConsistentRead
	default:
		return
	}
	t := s.table(table)
	if t == nil || t.LSI == nil || index != t.LSI.Name || t.LSI.Proj == types.ProjectionTypeAll {
		return
	}
	unit := 0.5
	if aws.ToBool(consistent) {
		unit = 1
	}
	unprojected := false
	for _, a := range topLevelNames(projection, names) {
		if !t.LSI.projects(a) {
			unprojected = true
		}
	}
	if _, query := op.Input.(*dynamodb.QueryInput); query {
		if projection == "" || unprojected || (sel != "" && sel != string(types.SelectSpecificAttributes)) {
			return
		}
		for _, p := range pages {
			pm, _ := p.(map[string]any)
			scanned, _ := pm["ScannedCount"].(int32)
			c, _ := pm["ConsumedCapacity"].(map[string]any)
			adjustTableReads(c, -float64(scanned)*unit)
		}
		return
	}
	if sel != string(types.SelectAllAttributes) && !unprojected {
		return
	}
	pm, _ := pages[0].(map[string]any)
	scanned, _ := pm["ScannedCount"].(int32)
	c, _ := pm["ConsumedCapacity"].(map[string]any)
	if more, _ := pm["more"].(bool); more || c == nil || scanned == 0 || !smallIndexItems(ctx, tg, t, int(scanned)) {
		return
	}
	adjustTableReads(c, float64(scanned)*unit)
}

// adjustTableReads adds delta (negative: takes it out) to the table figure
// of a canonical ConsumedCapacity c and to its total. Taking out, the table
// figure (with INDEXES) must be exactly -delta and the total larger than
// -delta; adding, the table figure must be 0. Otherwise c stays as it is.
func adjustTableReads(c map[string]any, delta float64) {
	total, ok := c["CapacityUnits"].(float64)
	if !ok || delta == 0 {
		return
	}
	tableFig, indexes := c["Table"].(map[string]any)
	var tu float64
	if indexes {
		if tu, ok = tableFig["CapacityUnits"].(float64); !ok {
			return
		}
	}
	switch {
	case delta < 0 && (total <= -delta || indexes && tu != -delta):
		return
	case delta > 0 && tu != 0:
		return
	}
	if indexes {
		tableFig["CapacityUnits"] = tu + delta
	}
	c["CapacityUnits"] = total + delta
}

// smallIndexItems reports whether local index of t on tg holds exactly n
// items, each of at most 4 KB: it scans the table consistently for the
// items that have the index's sort key.
func smallIndexItems(ctx context.Context, tg Target, t *Table, n int) bool {
	in := &dynamodb.ScanInput{TableName: aws.String(tg.Prefix + t.Name), ConsistentRead: aws.Bool(true)}
	count := 0
	for page := 0; ; page++ {
		if page == maxPages {
			return false
		}
		out, err := tg.API.Scan(ctx, in)
		if err != nil {
			return false
		}
		for _, it := range out.Items {
			if _, ok := it[t.LSI.Range]; !ok {
				continue
			}
			count++
			if len(toJSON((&canonizer{}).of(it))) > 4096 {
				return false
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return count == n
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// projects reports whether the index holds attribute a: the table's keys,
// its own keys, and what its projection includes.
func (ix *Index) projects(a string) bool {
	switch {
	case a == "pk" || a == "sk" || slices.Contains(ix.KeyNames(), a) || ix.Proj == types.ProjectionTypeAll:
		return true
	case ix.Proj == types.ProjectionTypeInclude:
		return slices.Contains(ix.NonKey, a)
	}
	return false
}

// topLevelNames returns the top-level attribute of each path of a
// projection expression, placeholders resolved through names (a
// placeholder without a name is returned as written).
func topLevelNames(projection string, names map[string]string) []string {
	if strings.TrimSpace(projection) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(projection, ",") {
		p = strings.TrimSpace(p)
		if i := strings.IndexAny(p, ".["); i >= 0 {
			p = p[:i]
		}
		if n, ok := names[p]; ok {
			p = n
		}
		out = append(out, p)
	}
	return out
}

// untypedEmptyMaps restores the empty maps of the items in the
// CancellationReasons of a canceled ExecuteTransaction, which DynamoDB Local
// writes without their type ({} for {"M": {}}; the SDK decodes no value):
// docs/compat.md, PartiQL. Only a value with no type becomes {"M": {}}; a
// NULL is {"NULL": true}, never untyped, so nothing else is touched.
func untypedEmptyMaps(m map[string]any) {
	var fix func(v any) any
	fix = func(v any) any {
		if v == nil {
			return map[string]any{"M": map[string]any{}}
		}
		x, _ := v.(map[string]any)
		if l, ok := x["L"].([]any); ok {
			for i := range l {
				l[i] = fix(l[i])
			}
		}
		if mm, ok := x["M"].(map[string]any); ok {
			for k := range mm {
				mm[k] = fix(mm[k])
			}
		}
		return v
	}
	reasons, _ := m["CancellationReasons"].([]any)
	for _, r := range reasons {
		r, _ := r.(map[string]any)
		if it, ok := r["Item"].(map[string]any); ok {
			for k := range it {
				it[k] = fix(it[k])
			}
		}
	}
}

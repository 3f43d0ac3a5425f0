package difftest

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// Target is one implementation under comparison.
type Target struct {
	Name string
	API  timetable.API
	// Prefix is prepended to every table name (and ClientRequestToken) the
	// target sees and removed from its answers, so two targets can share a
	// server. It must be unique on that server and at most 12 characters.
	Prefix string
	// DynamoDBLocal marks DynamoDB Local 3.3.0: the differences from it that
	// docs/compat.md documents are normalized in this target's answers, and
	// only in them (see quirks.go). The harness may read, consistently,
	// the items a write is about to change on this target, to tell which
	// rule applies.
	DynamoDBLocal bool
	// Streams, when both targets have it, is the target's DynamoDB Streams
	// endpoint: the tables get streams and their records are compared
	// (streams.go).
	Streams timetable.StreamsAPI
}

// Config says what to run.
type Config struct {
	Seed uint64
	Ops  int      // operations to generate; 0 means 5000
	Skip []string // operation kinds not to generate

	// MaxDivergences stops the run after that many divergences; 0 means 1.
	// Divergences after the first may be consequences of it.
	MaxDivergences int

	// NumbersByValue compares numbers in answers by value, not spelling.
	// TestDifferential sets it unless -difftest.numbersbyvalue=false:
	// docs/compat.md rows "Spelling of numbers nested in L or M, and of NS
	// built by ADD" and "Arithmetic results". DynamoDB Local returns some
	// numbers as they were written ("1.0", "1e2") or in Java's BigDecimal
	// form ("1E+2"), depending on the operation and on nesting, where the
	// engine, as DynamoDB, returns the canonical spelling; see FINDINGS.md,
	// F1. Requests are the same either way.
	NumbersByValue bool

	// OutcomeMessages counts error outcomes by message too, not only by
	// code (for tuning the generator).
	OutcomeMessages bool

	// Logf, if not nil, receives progress and statistics.
	Logf func(format string, args ...any)
}

// Result is the outcome of a run.
type Result struct {
	Ops         int           // operations compared
	Requests    int           // requests sent to each target
	Divergences []*Divergence // in order
	// Outcomes counts, per operation kind, the answers of the first target:
	// "ok" or the error code ("Query ok", "PutItem ConditionalCheckFailedException").
	Outcomes map[string]int
}

// Summary returns the outcome counts, one per line, sorted.
func (r *Result) Summary() string {
	var lines []string
	for k, n := range r.Outcomes {
		lines = append(lines, fmt.Sprintf("%6d %s", n, k))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][7:] < lines[j][7:] })
	return strings.Join(lines, "\n")
}

// maxPages bounds a page walk: a target that never stops returning
// LastEvaluatedKey is a divergence, not a hang.
const maxPages = 500

type runner struct {
	cfg      Config
	schema   *Schema
	a, b     Target
	res      *Result
	requests [2]int
}

// Run creates the generated tables on both targets, runs the operations on
// both, compares every answer, checks the final contents of every table and
// index, and deletes the tables. The error is for failures of the harness
// (a target unreachable, a table that cannot be created); divergences are
// in the Result.
func Run(ctx context.Context, cfg Config, a, b Target) (*Result, error) {
	if cfg.Ops == 0 {
		cfg.Ops = 5000
	}
	if cfg.MaxDivergences == 0 {
		cfg.MaxDivergences = 1
	}
	r := &runner{cfg: cfg, a: a, b: b, res: &Result{Outcomes: map[string]int{}}}
	defer func() { r.res.Requests = r.requests[0] }()
	g := NewGenerator(cfg.Seed, cfg.Skip...)
	r.schema = g.Schema

	defer r.dropTables(g.Schema)
	if err := r.createTables(ctx, g.Schema); err != nil {
		return r.res, err
	}
	if r.done() {
		return r.res, nil
	}
	for i := range cfg.Ops {
		op := g.Next()
		if err := r.compare(ctx, i, op); err != nil {
			return r.res, err
		}
		r.res.Ops++
		if r.done() {
			return r.res, nil
		}
		if r.cfg.Logf != nil && (i+1)%1000 == 0 {
			r.cfg.Logf("difftest: %d operations, %d requests", i+1, r.requests[0])
		}
	}
	final := FinalChecks(g.Schema, cfg.Skip)
	for i, op := range final {
		if err := r.compare(ctx, cfg.Ops+i, op); err != nil {
			return r.res, err
		}
		if r.done() {
			return r.res, nil
		}
	}
	return r.res, r.compareStreams(ctx, g.Schema, cfg.Ops+len(final))
}

func (r *runner) done() bool { return len(r.res.Divergences) >= r.cfg.MaxDivergences }

// FinalChecks returns the operations that compare the final contents: a
// consistent GetItem of every key of the key space, then (unless scans are
// skipped) a scan of every table and index.
func FinalChecks(s *Schema, skip []string) []Op {
	var ops []Op
	for _, t := range s.Tables {
		sks := skSVals
		if t.SortType == types.ScalarAttributeTypeN {
			sks = skNVals
		}
		for _, pk := range pkVals {
			for _, sk := range sks {
				var skv types.AttributeValue = sv(sk)
				if t.SortType == types.ScalarAttributeTypeN {
					skv = nv(sk)
				}
				ops = append(ops, Op{Kind: "GetItem", Input: &dynamodb.GetItemInput{
					TableName: aws.String(t.Name), Key: Item{"pk": sv(pk), "sk": skv}, ConsistentRead: aws.Bool(true)}})
			}
		}
	}
	for _, k := range skip {
		if k == "Scan" {
			return ops
		}
	}
	for _, t := range s.Tables {
		ops = append(ops, Op{Kind: "Scan", Walk: true, Input: &dynamodb.ScanInput{
			TableName: aws.String(t.Name), ConsistentRead: aws.Bool(true)}})
		for _, ix := range t.Indexes() {
			ops = append(ops, Op{Kind: "Scan", Walk: true, Input: &dynamodb.ScanInput{
				TableName: aws.String(t.Name), IndexName: aws.String(ix.Name)}})
		}
	}
	return ops
}

func (r *runner) createTables(ctx context.Context, s *Schema) error {
	for i, t := range s.Tables {
		in := r.withStream(t.CreateInput(), i)
		var answers [2]any
		for i, tg := range []Target{r.a, r.b} {
			out, err := tg.API.CreateTable(ctx, rename(in, tg.Prefix).(*dynamodb.CreateTableInput))
			if err != nil {
				return fmt.Errorf("difftest: %s: cannot create table %s: %w", tg.Name, t.Name, err)
			}
			answers[i] = describe(&canonizer{prefix: tg.Prefix, unordered: true}, out.TableDescription)
		}
		r.check(-1, "CreateTable", func() string { return Render(in) }, answers)
	}
	return nil
}

// describe keeps the parts of a table description that do not depend on
// the implementation (no times, ARNs, sizes or counts).
func describe(c *canonizer, d *types.TableDescription) any {
	if d == nil {
		return nil
	}
	defs := append([]types.AttributeDefinition(nil), d.AttributeDefinitions...)
	sort.Slice(defs, func(i, j int) bool { return aws.ToString(defs[i].AttributeName) < aws.ToString(defs[j].AttributeName) })
	m := map[string]any{
		"TableName": c.of(d.TableName), "KeySchema": c.of(d.KeySchema), "AttributeDefinitions": c.of(defs),
		"TableStatus": c.of(d.TableStatus),
	}
	var gsis, lsis []any
	for _, x := range d.GlobalSecondaryIndexes {
		gsis = append(gsis, map[string]any{"IndexName": c.of(x.IndexName), "KeySchema": c.of(x.KeySchema),
			"Projection": c.of(x.Projection), "IndexStatus": c.of(x.IndexStatus)})
	}
	for _, x := range d.LocalSecondaryIndexes {
		lsis = append(lsis, map[string]any{"IndexName": c.of(x.IndexName), "KeySchema": c.of(x.KeySchema),
			"Projection": c.of(x.Projection)})
	}
	sortByJSON(gsis)
	sortByJSON(lsis)
	m["GlobalSecondaryIndexes"], m["LocalSecondaryIndexes"] = gsis, lsis
	if d.BillingModeSummary != nil {
		m["BillingMode"] = c.of(d.BillingModeSummary.BillingMode)
	}
	return m
}

func (r *runner) dropTables(s *Schema) {
	// Not the caller's context: the tables go even when the run was canceled.
	ctx := context.Background()
	for _, t := range s.Tables {
		for _, tg := range []Target{r.a, r.b} {
			_, _ = tg.API.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(tg.Prefix + t.Name)})
		}
	}
}

// check records a divergence if the answers differ.
// req renders the request, only when they differ.
func (r *runner) check(i int, kind string, req func() string, answers [2]any) {
	path, atA, atB := compare(answers[0], answers[1])
	if path == "" {
		return
	}
	r.res.Divergences = append(r.res.Divergences, &Divergence{
		Index: i, Kind: kind, Request: req(), Path: path, AtA: atA, AtB: atB,
		A: toJSON(answers[0]), B: toJSON(answers[1]), AName: r.a.Name, BName: r.b.Name,
	})
}

// compare runs op on both targets and records a divergence if the answers
// differ, or if a target modified the request it was given.
func (r *runner) compare(ctx context.Context, i int, op Op) error {
	req := func() string { return Render(op.Input) }
	var answers [2]any
	for k, tg := range []Target{r.a, r.b} {
		in := rename(op.Input, tg.Prefix)
		sent := rename(op.Input, tg.Prefix) // to tell whether tg modified in
		var st *writeState
		if tg.DynamoDBLocal {
			st = readState(ctx, r.schema, tg, op)
		}
		ans, n, err := execute(ctx, tg, op, in, r.cfg.NumbersByValue)
		r.requests[k] += n
		if err != nil {
			return fmt.Errorf("difftest: operation %d (%s) on %s: %w\nrequest: %s", i, op.Kind, tg.Name, err, req())
		}
		if tg.DynamoDBLocal {
			ans = normalizeLocal(ctx, r.schema, tg, op, ans, st)
		}
		// The SDK's client fills in a missing idempotency token.
		switch tw := in.(type) {
		case *dynamodb.TransactWriteItemsInput:
			if op.Input.(*dynamodb.TransactWriteItemsInput).ClientRequestToken == nil {
				tw.ClientRequestToken = nil
			}
		case *dynamodb.ExecuteTransactionInput:
			if op.Input.(*dynamodb.ExecuteTransactionInput).ClientRequestToken == nil {
				tw.ClientRequestToken = nil
			}
		}
		if !reflect.DeepEqual(in, sent) {
			ans = map[string]any{"modified its request": Render(in)}
		}
		answers[k] = ans
	}
	if m, ok := answers[0].(map[string]any); ok {
		outcome := "ok"
		if e, ok := m["error"].(string); ok {
			outcome = e
			if r.cfg.OutcomeMessages {
				msg, _ := m["message"].(string)
				outcome += ": " + msg
			}
		}
		r.res.Outcomes[op.Kind+" "+outcome]++
	}
	if op.Kind == "BatchExecuteStatement" {
		switch {
		case r.a.DynamoDBLocal:
			batchErrorItems(answers[0], answers[1])
		case r.b.DynamoDBLocal:
			batchErrorItems(answers[1], answers[0])
		}
	}
	r.check(i, op.Kind, req, answers)
	return nil
}

// batchErrorItems aligns the Items of the statement errors of local,
// DynamoDB Local's canonical answer to a BatchExecuteStatement, with
// other's where other holds an empty map: DynamoDB Local writes a nested
// empty map there without its type ({}), which the SDK decodes as no value,
// or, inside a list, as the element before it (FINDINGS.md F24).
func batchErrorItems(local, other any) {
	l, _ := local.(map[string]any)
	o, _ := other.(map[string]any)
	lout, _ := l["out"].(map[string]any)
	oout, _ := o["out"].(map[string]any)
	lr, _ := lout["Responses"].([]any)
	or, _ := oout["Responses"].([]any)
	for i := range min(len(lr), len(or)) {
		lri, _ := lr[i].(map[string]any)
		ori, _ := or[i].(map[string]any)
		le, _ := lri["Error"].(map[string]any)
		oe, _ := ori["Error"].(map[string]any)
		if le != nil && oe != nil && le["Item"] != nil && oe["Item"] != nil {
			le["Item"] = alignEmptyMaps(le["Item"], oe["Item"])
		}
	}
}

// execute sends op (whose input, renamed for tg, is in) to tg and returns the
// canonical answer and the number of requests sent. The error is a harness
// failure.
func execute(ctx context.Context, tg Target, op Op, in any, numbers bool) (any, int, error) {
	c := &canonizer{prefix: tg.Prefix, unordered: true, numbers: numbers}
	answer := func(out any, err error) (any, int, error) {
		if err != nil {
			m, ok := c.errorOf(err)
			if !ok {
				return nil, 1, err
			}
			return m, 1, nil
		}
		return map[string]any{"out": c.of(out)}, 1, nil
	}
	api := tg.API
	switch in := in.(type) {
	case *dynamodb.PutItemInput:
		return answer(api.PutItem(ctx, in))
	case *dynamodb.UpdateItemInput:
		return answer(api.UpdateItem(ctx, in))
	case *dynamodb.DeleteItemInput:
		return answer(api.DeleteItem(ctx, in))
	case *dynamodb.GetItemInput:
		return answer(api.GetItem(ctx, in))
	case *dynamodb.BatchWriteItemInput:
		return answer(api.BatchWriteItem(ctx, in))
	case *dynamodb.BatchGetItemInput:
		return answer(api.BatchGetItem(ctx, in))
	case *dynamodb.TransactWriteItemsInput:
		return answer(api.TransactWriteItems(ctx, in))
	case *dynamodb.TransactGetItemsInput:
		return answer(api.TransactGetItems(ctx, in))
	case *dynamodb.QueryInput:
		if !op.Walk {
			return answer(api.Query(ctx, in))
		}
		if op.IndexKeys != nil {
			return indexQueryWalk(ctx, c, api, in, op.IndexKeys)
		}
		return queryWalk(ctx, c, api, in)
	case *dynamodb.ScanInput:
		return scanWalk(ctx, c, api, in, op)
	case *dynamodb.ExecuteStatementInput:
		return statementWalk(ctx, c, api, in, op.AnyOrder)
	case *dynamodb.BatchExecuteStatementInput:
		p, ok := api.(timetable.PartiQLAPI)
		if !ok {
			return nil, 0, fmt.Errorf("%T has no PartiQL", api)
		}
		return answer(p.BatchExecuteStatement(ctx, in))
	case *dynamodb.ExecuteTransactionInput:
		p, ok := api.(timetable.PartiQLAPI)
		if !ok {
			return nil, 0, fmt.Errorf("%T has no PartiQL", api)
		}
		return answer(p.ExecuteTransaction(ctx, in))
	}
	return nil, 0, fmt.Errorf("unknown input %T", in)
}

// queryWalk follows LastEvaluatedKey and returns every page, in order.
func queryWalk(ctx context.Context, c *canonizer, api timetable.API, in *dynamodb.QueryInput) (any, int, error) {
	page := *in
	var pages []any
	for n := 1; ; n++ {
		out, err := api.Query(ctx, &page)
		if err != nil {
			return c.failed(map[string]any{"pages": pages}, n, err)
		}
		pages = append(pages, c.of(out))
		if len(out.LastEvaluatedKey) == 0 {
			return map[string]any{"pages": pages}, n, nil
		}
		if n == maxPages {
			return tooManyPages(map[string]any{"pages": pages}, n)
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// indexQueryWalk walks a query on a secondary index to the end and returns
// its items as one sequence in which each run of items with equal index
// keys is sorted (their order is unspecified), the totals, and for each
// page its ScannedCount, capacity and the index key attributes of its
// LastEvaluatedKey; not its Count or items, which depend on how a run of
// equal keys was split between pages.
func indexQueryWalk(ctx context.Context, c *canonizer, api timetable.API, in *dynamodb.QueryInput, keys []string) (any, int, error) {
	page := *in
	w := &walk{c: c}
	var pages []any
	result := func() map[string]any {
		sortTies(w.items, keys)
		return map[string]any{"Items": w.items, "Count": w.count, "ScannedCount": w.scanned, "pages": pages}
	}
	for n := 1; ; n++ {
		out, err := api.Query(ctx, &page)
		if err != nil {
			return c.failed(result(), n, err)
		}
		w.add(out.Items, out.Count, out.ScannedCount)
		lek := Item{}
		for _, k := range keys {
			if v, ok := out.LastEvaluatedKey[k]; ok {
				lek[k] = v
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			lek = nil
		}
		pages = append(pages, map[string]any{"ScannedCount": out.ScannedCount,
			"LastEvaluatedKey": c.of(lek), "ConsumedCapacity": c.of(out.ConsumedCapacity)})
		if len(out.LastEvaluatedKey) == 0 {
			return result(), n, nil
		}
		if n == maxPages {
			return tooManyPages(result(), n)
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// sortTies sorts each run of items with equal values of the key attributes;
// if some item lacks one of them (a projection left it out), it sorts all.
func sortTies(items []any, keys []string) {
	keyOf := func(it any) (string, bool) {
		m, _ := it.(map[string]any)
		var sb strings.Builder
		for _, k := range keys {
			v, ok := m[k]
			if !ok {
				return "", false
			}
			sb.WriteString(toJSON(v))
		}
		return sb.String(), true
	}
	for _, it := range items {
		if _, ok := keyOf(it); !ok {
			sortByJSON(items)
			return
		}
	}
	for i := 0; i < len(items); {
		k, _ := keyOf(items[i])
		j := i + 1
		for j < len(items) {
			if kj, _ := keyOf(items[j]); kj != k {
				break
			}
			j++
		}
		sortByJSON(items[i:j])
		i = j
	}
}

// scanWalk scans to the end (every segment with op.AllSegments) and returns
// the items as a sorted multiset with the totals; for a scan without
// segments (or of the one segment of one), also each page's ScannedCount,
// capacity and whether it has a LastEvaluatedKey, which do not depend on
// the order. Which items a page holds, and so its Count, does; and so does
// which items one segment of several holds, of which only the error, if
// any, is compared.
func scanWalk(ctx context.Context, c *canonizer, api timetable.API, in *dynamodb.ScanInput, op Op) (any, int, error) {
	segments := []*int32{in.Segment}
	if op.AllSegments && in.TotalSegments != nil {
		segments = nil
		for s := range *in.TotalSegments {
			segments = append(segments, aws.Int32(s))
		}
	}
	w := &walk{c: c}
	var pages []any
	requests := 0
	result := func() map[string]any {
		if !op.AllSegments && aws.ToInt32(in.TotalSegments) > 1 {
			// Which items a segment holds follows from the hash of their
			// partition key, which is not the same on both (docs/compat.md,
			// "Scan order"): one segment of several is compared only for
			// being an error or not.
			return map[string]any{"one segment of several": true}
		}
		sortByJSON(w.items)
		m := map[string]any{"Items": w.items, "Count": w.count, "ScannedCount": w.scanned}
		if !op.AllSegments {
			m["pages"] = pages
		}
		return m
	}
	for _, seg := range segments {
		page := *in
		page.Segment = seg
		for n := 1; ; n++ {
			requests++
			out, err := api.Scan(ctx, &page)
			if err != nil {
				return c.failed(result(), requests, err)
			}
			w.add(out.Items, out.Count, out.ScannedCount)
			pages = append(pages, map[string]any{"ScannedCount": out.ScannedCount,
				"more": len(out.LastEvaluatedKey) > 0, "ConsumedCapacity": c.of(out.ConsumedCapacity)})
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			if n == maxPages {
				return tooManyPages(result(), requests)
			}
			page.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	return result(), requests, nil
}

// walk gathers the items and counts of a Query or Scan read page by page.
type walk struct {
	c              *canonizer
	items          []any
	count, scanned int32
}

// add takes in the items and counts of one page.
func (w *walk) add(items []Item, count, scanned int32) {
	for _, it := range items {
		w.items = append(w.items, w.c.of(it))
	}
	w.count += count
	w.scanned += scanned
}

// failed ends a walk at err after requests requests: an API error is an
// answer, res with the error's code and message; any other error is
// returned.
func (c *canonizer) failed(res map[string]any, requests int, err error) (any, int, error) {
	m, ok := c.errorOf(err)
	if !ok {
		return nil, requests, err
	}
	res["error"], res["message"] = m["error"], m["message"]
	return res, requests, nil
}

// tooManyPages ends a walk that reached maxPages: res with an error.
func tooManyPages(res map[string]any, requests int) (any, int, error) {
	res["error"] = "difftest: too many pages"
	return res, requests, nil
}

// rename returns a deep copy of an SDK input with prefix prepended to every
// table name (TableName fields and the keys of RequestItems) and to
// ClientRequestToken.
func rename(in any, prefix string) any {
	return deepCopy(reflect.ValueOf(in), "", prefix).Interface()
}

func deepCopy(v reflect.Value, field, prefix string) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(deepCopy(v.Elem(), field, prefix))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deepCopy(v.Elem(), field, prefix))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				out.Field(i).Set(deepCopy(v.Field(i), f.Name, prefix))
			}
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := it.Key()
			if field == "RequestItems" {
				k = reflect.ValueOf(prefix + k.String()).Convert(k.Type())
			}
			out.SetMapIndex(k, deepCopy(it.Value(), "", prefix))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i), "", prefix))
		}
		return out
	case reflect.String:
		if field == "TableName" || field == "ClientRequestToken" {
			return reflect.ValueOf(prefix + v.String()).Convert(v.Type())
		}
		if field == "Statement" {
			return reflect.ValueOf(renameStatement(v.String(), prefix)).Convert(v.Type())
		}
		return v
	default:
		return v
	}
}

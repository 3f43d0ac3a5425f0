package difftest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// quirkSchema has one table whose GSI has a sort key (g, gn) and an LSI.
func quirkSchema() *Schema {
	return &Schema{Tables: []*Table{{Name: "tab0", SortType: "N",
		GSI: Index{Name: "gsi", Hash: "g", HashType: "S", Range: "gn", RangeType: "N", Proj: types.ProjectionTypeKeysOnly},
		LSI: &Index{Name: "lsi", Hash: "pk", HashType: "S", Range: "lk", RangeType: "S", Proj: types.ProjectionTypeKeysOnly}}}}
}

// capOut is the canonical answer of a single-item write with capacity.
func capOut(c types.ConsumedCapacity) any {
	return canonOut("", &dynamodb.PutItemOutput{ConsumedCapacity: &c})
}

func indexes(total, table float64, gsi, lsi float64) types.ConsumedCapacity {
	c := types.ConsumedCapacity{TableName: aws.String("tab0"), CapacityUnits: aws.Float64(total),
		Table: &types.Capacity{CapacityUnits: aws.Float64(table)}}
	if gsi > 0 {
		c.GlobalSecondaryIndexes = map[string]types.Capacity{"gsi": {CapacityUnits: aws.Float64(gsi)}}
	}
	if lsi > 0 {
		c.LocalSecondaryIndexes = map[string]types.Capacity{"lsi": {CapacityUnits: aws.Float64(lsi)}}
	}
	return c
}

func totalCap(total float64) types.ConsumedCapacity {
	return types.ConsumedCapacity{TableName: aws.String("tab0"), CapacityUnits: aws.Float64(total)}
}

func TestNormalizeLocal_SparseIndexKeySwap(t *testing.T) {
	s := quirkSchema()
	k := Item{"pk": sv("a"), "sk": nv("1")}
	with := func(kv ...any) Item {
		it := Item{"pk": sv("a"), "sk": nv("1")}
		for i := 0; i < len(kv); i += 2 {
			it[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return it
	}
	put := func(it Item, rcc types.ReturnConsumedCapacity) Op {
		return Op{Kind: "PutItem", Input: &dynamodb.PutItemInput{TableName: aws.String("tab0"), Item: it, ReturnConsumedCapacity: rcc}}
	}
	big := sv(string(make([]byte, 1100)))
	tests := []struct {
		name      string
		old       Item
		op        Op
		local     types.ConsumedCapacity
		wantEqual types.ConsumedCapacity // what the normalized answer must equal
	}{
		{"HashToRange", with("g", sv("x")), put(with("gn", nv("1")), "INDEXES"), indexes(2, 1, 1, 0), indexes(1, 1, 0, 0)},
		{"RangeToHash", with("gn", nv("1")), put(with("g", sv("x")), "INDEXES"), indexes(2, 1, 1, 0), indexes(1, 1, 0, 0)},
		{"Total", with("g", sv("x")), put(with("gn", nv("1")), "TOTAL"), totalCap(2), totalCap(1)},
		{"KeepsLSI", with("g", sv("x"), "lk", sv("a")), put(with("gn", nv("1"), "lk", sv("b")), "INDEXES"), indexes(4, 1, 1, 2), indexes(3, 1, 0, 2)},
		// Not the shape: nothing changes.
		{"SameAttribute", with("g", sv("x")), put(with("g", sv("y")), "INDEXES"), indexes(2, 1, 1, 0), indexes(2, 1, 1, 0)},
		{"Enters", with("g", sv("x")), put(with("g", sv("x"), "gn", nv("1")), "INDEXES"), indexes(2, 1, 1, 0), indexes(2, 1, 1, 0)},
		{"Leaves", with("g", sv("x"), "gn", nv("1")), put(with("gn", nv("1")), "INDEXES"), indexes(2, 1, 1, 0), indexes(2, 1, 1, 0)},
		{"NoOldItem", nil, put(with("gn", nv("1")), "INDEXES"), indexes(2, 1, 1, 0), indexes(2, 1, 1, 0)},
		// The shape, but an old item over 1 KB: its charge is not known
		// to be 1 unit.
		{"LargeOldItem", with("g", sv("x"), "b", big), put(with("gn", nv("1")), "INDEXES"), indexes(4, 2, 2, 0), indexes(4, 2, 2, 0)},
		// The shape, but no index figure to take from.
		{"NoIndexFigure", with("g", sv("x")), put(with("gn", nv("1")), "INDEXES"), indexes(1, 1, 0, 0), indexes(1, 1, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &writeState{before: map[string]Item{keyID("tab0", k): tt.old}}
			got := normalizeLocal(context.Background(), s, Target{}, tt.op, capOut(tt.local), st)
			if p := Compare(got, capOut(tt.wantEqual)); p != "" {
				t.Errorf("normalized %s, want %s", toJSON(got), toJSON(capOut(tt.wantEqual)))
			}
		})
	}
}

func TestNormalizeLocal_BatchDeleteOfMissingItem(t *testing.T) {
	s := quirkSchema()
	k1, k2, k3 := Item{"pk": sv("a"), "sk": nv("1")}, Item{"pk": sv("a"), "sk": nv("2")}, Item{"pk": sv("a"), "sk": nv("3")}
	op := Op{Kind: "BatchWriteItem", Input: &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{"tab0": {
			{DeleteRequest: &types.DeleteRequest{Key: k1}}, // missing
			{DeleteRequest: &types.DeleteRequest{Key: k2}}, // missing
			{DeleteRequest: &types.DeleteRequest{Key: k3}}, // exists
		}},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}}
	st := &writeState{before: map[string]Item{keyID("tab0", k1): nil, keyID("tab0", k2): nil, keyID("tab0", k3): {"pk": sv("a"), "sk": nv("3")}}}
	out := func(c types.ConsumedCapacity) any {
		return canonOut("", &dynamodb.BatchWriteItemOutput{ConsumedCapacity: []types.ConsumedCapacity{c}})
	}
	got := normalizeLocal(context.Background(), s, Target{}, op, out(indexes(5, 5, 0, 0)), st)
	if p := Compare(got, out(indexes(3, 3, 0, 0))); p != "" {
		t.Errorf("normalized %s, want 3 units", toJSON(got))
	}
	// A single DeleteItem of a missing item costs 1 unit on both: the rule
	// is for BatchWriteItem only.
	del := Op{Kind: "DeleteItem", Input: &dynamodb.DeleteItemInput{TableName: aws.String("tab0"), Key: k1,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}}
	got = normalizeLocal(context.Background(), s, Target{}, del, capOut(indexes(2, 2, 0, 0)), st)
	if p := Compare(got, capOut(indexes(2, 2, 0, 0))); p != "" {
		t.Errorf("DeleteItem normalized to %s", toJSON(got))
	}
}

func TestNormalizeLocal_UnaskedDeleteCapacity(t *testing.T) {
	s := quirkSchema()
	k := Item{"pk": sv("a"), "sk": nv("1")}
	for _, rcc := range []types.ReturnConsumedCapacity{"", types.ReturnConsumedCapacityNone, types.ReturnConsumedCapacityTotal} {
		del := Op{Kind: "DeleteItem", Input: &dynamodb.DeleteItemInput{TableName: aws.String("tab0"), Key: k, ReturnConsumedCapacity: rcc}}
		ans := canonOut("", &dynamodb.DeleteItemOutput{ConsumedCapacity: &types.ConsumedCapacity{TableName: aws.String("tab0"), CapacityUnits: aws.Float64(1)}})
		got := normalizeLocal(context.Background(), s, Target{}, del, ans, nil)
		_, kept := got.(map[string]any)["out"].(map[string]any)["ConsumedCapacity"]
		if kept != capacityAsked(rcc) {
			t.Errorf("ReturnConsumedCapacity %q: capacity kept = %v", rcc, kept)
		}
	}
	// PutItem: DynamoDB Local returns no capacity unasked, so one that does
	// is a divergence.
	put := Op{Kind: "PutItem", Input: &dynamodb.PutItemInput{TableName: aws.String("tab0"), Item: k}}
	ans := canonOut("", &dynamodb.PutItemOutput{ConsumedCapacity: &types.ConsumedCapacity{TableName: aws.String("tab0"), CapacityUnits: aws.Float64(1)}})
	got := normalizeLocal(context.Background(), s, Target{}, put, ans, nil)
	if _, kept := got.(map[string]any)["out"].(map[string]any)["ConsumedCapacity"]; !kept {
		t.Error("PutItem's unasked capacity removed")
	}
}

// TestRun_QuirksOnlyOnDynamoDBLocal checks that the rules apply to the
// target marked DynamoDBLocal and not to the other: an engine that charged
// like DynamoDB Local would diverge.
func TestRun_QuirksOnlyOnDynamoDBLocal(t *testing.T) {
	s := quirkSchema()
	k := Item{"pk": sv("a"), "sk": nv("1")}
	del := Op{Kind: "DeleteItem", Input: &dynamodb.DeleteItemInput{TableName: aws.String("tab0"), Key: k}}
	db := engine(t)
	unasked := &unaskedCapacity{API: db}
	r := &runner{schema: s, res: &Result{Outcomes: map[string]int{}},
		a: Target{Name: "engine", API: db, Prefix: "a_"},
		b: Target{Name: "like-dynamodb-local", API: unasked, Prefix: "b_"}}
	ctx := context.Background()
	defer r.dropTables(s)
	if err := r.createTables(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := r.compare(ctx, 0, del); err != nil {
		t.Fatal(err)
	}
	if len(r.res.Divergences) != 1 || r.res.Divergences[0].Path != ".out.ConsumedCapacity" {
		t.Fatalf("divergences %v, want the unasked capacity", r.res.Divergences)
	}
	r.b.DynamoDBLocal = true
	r.res.Divergences = nil
	if err := r.compare(ctx, 1, del); err != nil {
		t.Fatal(err)
	}
	if len(r.res.Divergences) != 0 {
		t.Fatalf("divergences %v with the rule on", r.res.Divergences[0])
	}
}

// unaskedCapacity returns ConsumedCapacity from every DeleteItem, as
// DynamoDB Local does.
type unaskedCapacity struct {
	timetable.API
}

func (u *unaskedCapacity) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := u.API.DeleteItem(ctx, in, optFns...)
	if err == nil && out.ConsumedCapacity == nil {
		out.ConsumedCapacity = &types.ConsumedCapacity{TableName: in.TableName, CapacityUnits: aws.Float64(1)}
	}
	return out, err
}

// walked returns the canonical answer of a walked Query or Scan of one page
// with the given ScannedCount and capacity.
func walked(scanned int32, c types.ConsumedCapacity) any {
	cz := &canonizer{unordered: true}
	return map[string]any{"pages": []any{map[string]any{"ScannedCount": scanned, "more": false, "ConsumedCapacity": cz.of(&c)}}}
}

func TestNormalizeLocal_LSIQueryProjection(t *testing.T) {
	s := quirkSchema()
	s.Tables[0].LSI.Proj, s.Tables[0].LSI.NonKey = types.ProjectionTypeInclude, []string{"a"}
	query := func(index, proj string, consistent bool, mod ...func(*dynamodb.QueryInput)) Op {
		in := &dynamodb.QueryInput{TableName: aws.String("tab0"), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("pk = :p"), ConsistentRead: aws.Bool(consistent),
			ExpressionAttributeNames: map[string]string{"#n0": "lk"}, ReturnConsumedCapacity: "INDEXES"}
		if proj != "" {
			in.ProjectionExpression = aws.String(proj)
		}
		for _, f := range mod {
			f(in)
		}
		return Op{Kind: "Query", Input: in, Walk: true}
	}
	total := func(in *dynamodb.QueryInput) { in.ReturnConsumedCapacity = "TOTAL" }
	tests := []struct {
		name        string
		op          Op
		scanned     int32
		local, want types.ConsumedCapacity
	}{
		{"Eventual", query("lsi", "pk, #n0", false), 3, indexes(2, 1.5, 0, 0.5), indexes(0.5, 0, 0, 0.5)},
		{"Consistent", query("lsi", "a, sk", true), 3, indexes(4, 3, 0, 1), indexes(1, 0, 0, 1)},
		{"NestedPath", query("lsi", "a.x[1], lk", true), 2, indexes(3, 2, 0, 1), indexes(1, 0, 0, 1)},
		{"Specific", query("lsi", "a", false, func(in *dynamodb.QueryInput) { in.Select = "SPECIFIC_ATTRIBUTES" }), 1, indexes(1, 0.5, 0, 0.5), indexes(0.5, 0, 0, 0.5)},
		{"Total", query("lsi", "pk", false, total), 3, totalCap(2), totalCap(0.5)},
		// Not the shape: nothing changes.
		{"Unprojected", query("lsi", "pk, b", false), 3, indexes(2, 1.5, 0, 0.5), indexes(2, 1.5, 0, 0.5)},
		{"NoProjection", query("lsi", "", false), 3, indexes(2, 1.5, 0, 0.5), indexes(2, 1.5, 0, 0.5)},
		{"GSI", query("gsi", "pk", false), 3, indexes(2, 1.5, 0.5, 0), indexes(2, 1.5, 0.5, 0)},
		// The shape, but not one unit per scanned item (an item over 4 KB).
		{"LargeItem", query("lsi", "pk", true), 2, indexes(5, 4, 0, 1), indexes(5, 4, 0, 1)},
		{"TotalTooSmall", query("lsi", "pk", false, total), 3, totalCap(1.5), totalCap(1.5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalizeLocal(context.Background(), s, Target{}, tt.op, walked(tt.scanned, tt.local), nil)
			if p := Compare(got, walked(tt.scanned, tt.want)); p != "" {
				t.Errorf("normalized %s, want %s", toJSON(got), toJSON(walked(tt.scanned, tt.want)))
			}
		})
	}
	all := quirkSchema()
	all.Tables[0].LSI.Proj = types.ProjectionTypeAll
	got := normalizeLocal(context.Background(), all, Target{}, query("lsi", "pk", false), walked(3, indexes(2, 1.5, 0, 0.5)), nil)
	if p := Compare(got, walked(3, indexes(2, 1.5, 0, 0.5))); p != "" {
		t.Errorf("an index that projects ALL: normalized to %s", toJSON(got))
	}
}

func TestNormalizeLocal_LSIScanFetch(t *testing.T) {
	s := quirkSchema() // lsi KEYS_ONLY
	db := engine(t)
	r := &runner{schema: s, res: &Result{Outcomes: map[string]int{}}, a: Target{Name: "engine", API: db, Prefix: "a_"}, b: Target{API: db, Prefix: "b_"}}
	ctx := context.Background()
	defer r.dropTables(s)
	if err := r.createTables(ctx, s); err != nil {
		t.Fatal(err)
	}
	put := func(it Item) {
		t.Helper()
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("a_tab0"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	put(Item{"pk": sv("a"), "sk": nv("1"), "lk": sv("x"), "b": sv("y")})
	put(Item{"pk": sv("a"), "sk": nv("2"), "lk": sv("y")})
	put(Item{"pk": sv("b"), "sk": nv("1"), "b": sv("not in the index")})
	scan := func(mod func(*dynamodb.ScanInput)) Op {
		in := &dynamodb.ScanInput{TableName: aws.String("tab0"), IndexName: aws.String("lsi"), ReturnConsumedCapacity: "INDEXES"}
		mod(in)
		return Op{Kind: "Scan", Input: in, Walk: true}
	}
	tg := r.a
	tests := []struct {
		name        string
		op          Op
		local, want types.ConsumedCapacity
	}{
		{"AllAttributes", scan(func(in *dynamodb.ScanInput) { in.Select = "ALL_ATTRIBUTES" }), indexes(0.5, 0, 0, 0.5), indexes(1.5, 1, 0, 0.5)},
		{"Consistent", scan(func(in *dynamodb.ScanInput) { in.Select = "ALL_ATTRIBUTES"; in.ConsistentRead = aws.Bool(true) }), indexes(1, 0, 0, 1), indexes(3, 2, 0, 1)},
		{"Unprojected", scan(func(in *dynamodb.ScanInput) {
			in.ProjectionExpression = aws.String("#b")
			in.ExpressionAttributeNames = map[string]string{"#b": "b"}
		}), indexes(0.5, 0, 0, 0.5), indexes(1.5, 1, 0, 0.5)},
		// Not the shape: nothing changes.
		{"Projected", scan(func(in *dynamodb.ScanInput) { in.ProjectionExpression = aws.String("pk, lk") }), indexes(0.5, 0, 0, 0.5), indexes(0.5, 0, 0, 0.5)},
		{"Limit", scan(func(in *dynamodb.ScanInput) { in.Select = "ALL_ATTRIBUTES"; in.Limit = aws.Int32(5) }), indexes(0.5, 0, 0, 0.5), indexes(0.5, 0, 0, 0.5)},
		{"TableCharged", scan(func(in *dynamodb.ScanInput) { in.Select = "ALL_ATTRIBUTES" }), indexes(1.5, 1, 0, 0.5), indexes(1.5, 1, 0, 0.5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalizeLocal(ctx, s, tg, tt.op, walked(2, tt.local), nil)
			if p := Compare(got, walked(2, tt.want)); p != "" {
				t.Errorf("normalized %s, want %s", toJSON(got), toJSON(walked(2, tt.want)))
			}
			// What the rule makes of DynamoDB Local's figures is what the
			// engine charges.
			if tt.want.Table != nil && *tt.want.Table.CapacityUnits > 0 {
				ans, _, err := execute(ctx, tg, tt.op, rename(tt.op.Input, tg.Prefix), true)
				if err != nil {
					t.Fatal(err)
				}
				engine := ans.(map[string]any)["pages"].([]any)[0].(map[string]any)["ConsumedCapacity"]
				if p := Compare(engine, got.(map[string]any)["pages"].([]any)[0].(map[string]any)["ConsumedCapacity"]); p != "" {
					t.Errorf("the engine charges %s", toJSON(engine))
				}
			}
		})
	}
	// A ScannedCount that is not the index's item count, or an item over
	// 4 KB in the index: the fetch would not cost one unit per item.
	op := scan(func(in *dynamodb.ScanInput) { in.Select = "ALL_ATTRIBUTES" })
	if got := normalizeLocal(ctx, s, tg, op, walked(3, indexes(0.5, 0, 0, 0.5)), nil); Compare(got, walked(3, indexes(0.5, 0, 0, 0.5))) != "" {
		t.Errorf("ScannedCount 3 of an index of 2 items: normalized to %s", toJSON(got))
	}
	put(Item{"pk": sv("a"), "sk": nv("3"), "lk": sv("z"), "b": sv(string(make([]byte, 5000)))})
	if got := normalizeLocal(ctx, s, tg, op, walked(3, indexes(1, 0, 0, 1)), nil); Compare(got, walked(3, indexes(1, 0, 0, 1))) != "" {
		t.Errorf("an item over 4 KB: normalized to %s", toJSON(got))
	}
}

func TestUntypedEmptyMaps(t *testing.T) {
	var ans map[string]any
	if err := json.Unmarshal([]byte(`{"error":"TransactionCanceledException","CancellationReasons":[{"Code":"None"},
		{"Code":"ConditionalCheckFailed","Item":{"lst":{"L":[null,{"M":{"x":null,"n":{"NULL":true}}}]},"m":{"M":{}}}}]}`), &ans); err != nil {
		t.Fatal(err)
	}
	untypedEmptyMaps(ans)
	want := `{"CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Item":{"lst":{"L":[{"M":{}},{"M":{"n":{"NULL":true},"x":{"M":{}}}}]},"m":{"M":{}}}}],"error":"TransactionCanceledException"}`
	if got, _ := json.Marshal(ans); string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

package difftest

import (
	"context"
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

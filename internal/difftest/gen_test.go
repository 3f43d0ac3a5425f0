package difftest

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestGenerator_Deterministic(t *testing.T) {
	render := func(seed uint64) string {
		g := NewGenerator(seed)
		var sb strings.Builder
		for _, tb := range g.Schema.Tables {
			sb.WriteString(Render(tb.CreateInput()) + "\n")
		}
		for range 2000 {
			op := g.Next()
			sb.WriteString(op.Kind + " " + Render(op.Input) + "\n")
		}
		return sb.String()
	}
	a, b := render(7), render(7)
	if a != b {
		t.Fatal("the same seed produced different operations")
	}
	if render(8) == a {
		t.Fatal("different seeds produced the same operations")
	}
}

func TestGenerator_Skip(t *testing.T) {
	g := NewGenerator(1, "Scan", "Query")
	for range 1000 {
		if k := g.Next().Kind; k == "Scan" || k == "Query" {
			t.Fatalf("skipped kind %s generated", k)
		}
	}
}

// TestGenerator_Coverage checks that a default run's operations use every
// operation, update action, condition function, key condition operator,
// option and attribute type the generator is meant to cover.
func TestGenerator_Coverage(t *testing.T) {
	g := NewGenerator(1)
	count := map[string]int{}
	var all strings.Builder
	walks, segments := 0, 0
	for range 5000 {
		op := g.Next()
		count[op.Kind]++
		if op.Walk && op.Kind == "Query" {
			walks++
		}
		if op.AllSegments {
			segments++
		}
		all.WriteString(Render(op.Input))
	}
	for _, k := range Kinds {
		if count[k.kind] < 50 {
			t.Errorf("%d %s operations in 5000", count[k.kind], k.kind)
		}
	}
	if walks < 50 || segments < 5 {
		t.Errorf("%d query page walks, %d segmented scans", walks, segments)
	}
	s := all.String()
	for _, want := range []string{
		// update actions and functions
		`"UpdateExpression":"SET `, `REMOVE `, `ADD `, `DELETE `, `if_not_exists(`, `list_append(`, ` + `, ` - `,
		// conditions
		`attribute_exists(`, `attribute_not_exists(`, `attribute_type(`, `begins_with(`, `contains(`, `size(`,
		` BETWEEN `, ` IN (`, `NOT `, ` AND `, ` OR `, ` <> `, ` <= `, ` >= `, `lst[`, `m.`, `#n0.#n`,
		// options
		`"ReturnValues":"ALL_OLD"`, `"ReturnValues":"ALL_NEW"`, `"ReturnValues":"UPDATED_OLD"`, `"ReturnValues":"UPDATED_NEW"`,
		`"ReturnValues":"NONE"`, `"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`, `"ReturnConsumedCapacity":"INDEXES"`,
		`"ReturnConsumedCapacity":"TOTAL"`, `"ScanIndexForward":false`,
		`"Limit":`, `"TotalSegments":`, `"IndexName":"gsi"`, `"Select":"COUNT"`, `"ConsistentRead":true`,
		`"ProjectionExpression":`, `"FilterExpression":`, `"ClientRequestToken":`, `"ConditionCheck":`,
		// attribute types
		`{"S":`, `{"N":`, `{"B":`, `{"BOOL":`, `{"NULL":true}`, `{"SS":`, `{"NS":`, `{"BS":`, `{"L":`, `{"M":`,
		`"N":"9.9999999999999999999999999999999999999E+125"`, `"N":"1E-130"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no operation contains %s", want)
		}
	}
	if g.Schema.Tables[0].LSI != nil && !strings.Contains(s, `"ReturnItemCollectionMetrics":"SIZE"`) {
		t.Error("no operation asks for item collection metrics")
	}
	// Key conditions with every operator.
	for _, op := range []string{"= :v", "< :v", "<= :v", "> :v", ">= :v", "BETWEEN", "begins_with("} {
		if !strings.Contains(s, `"KeyConditionExpression":"`) || !containsKeyCond(s, op) {
			t.Errorf("no key condition uses %q", op)
		}
	}
}

func containsKeyCond(s, op string) bool {
	for _, part := range strings.Split(s, `"KeyConditionExpression":"`)[1:] {
		kc := part[:strings.Index(part, `"`)]
		if strings.Contains(kc, op) {
			return true
		}
	}
	return false
}

// TestGenerator_MultiKeyIndexes checks that schemas sometimes have a global
// index with a multi-attribute key, of every generated shape, and that its
// queries and scans are generated, with key conditions on several sort
// attributes.
func TestGenerator_MultiKeyIndexes(t *testing.T) {
	shapes := map[string]bool{}
	queries, scans, deep := 0, 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		g := NewGenerator(seed)
		var multi *Table
		for _, tb := range g.Schema.Tables {
			if tb.MGSI != nil {
				shapes[strings.Join(tb.MGSI.HashKeys(), ",")+";"+strings.Join(tb.MGSI.RangeKeys(), ",")] = true
				multi = tb
				in := Render(tb.CreateInput())
				if strings.Count(in, `"KeyType":"HASH"`) < 2+len(tb.MGSI.MoreHash) {
					t.Fatalf("seed %d: CreateTable without the multi-attribute key: %s", seed, in)
				}
			}
		}
		if multi == nil || seed > 20 {
			continue
		}
		for range 1000 {
			op := g.Next()
			s := Render(op.Input)
			if !strings.Contains(s, `"IndexName":"mgsi"`) {
				continue
			}
			switch op.Kind {
			case "Query":
				queries++
				ix := g.Schema.table(*op.Input.(*dynamodb.QueryInput).TableName).MGSI
				if !slices.Equal(op.IndexKeys, ix.KeyNames()) {
					t.Fatalf("query of mgsi with IndexKeys %v", op.IndexKeys)
				}
				if strings.Count(s, " AND ") >= len(ix.HashKeys())+1 {
					deep++
				}
			case "Scan":
				scans++
			}
		}
	}
	if len(shapes) != len(multiKeys) {
		t.Errorf("%d index shapes generated, want %d: %v", len(shapes), len(multiKeys), shapes)
	}
	if queries < 100 || scans < 5 || deep < 30 {
		t.Errorf("%d queries (%d with sort conditions) and %d scans of multi-attribute indexes", queries, deep, scans)
	}
}

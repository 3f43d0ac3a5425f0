package tablecopy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

// engine opens the embedded engine in a fresh data folder.
func engine(t testing.TB) *local.DB {
	t.Helper()
	db, err := local.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// createTables creates the test's two tables on api: name+"_a" with a
// string hash key and a binary range key, a global index on g, a global
// index with a multi-attribute key (partition g and l, sort sk), a local
// index on l and TTL on exp, on demand; name+"_b" with a number hash key
// only, provisioned. It returns their names.
func createTables(t testing.TB, api timetable.API, name string) []string {
	t.Helper()
	ctx := context.Background()
	a, b := name+"_a", name+"_b"
	def, key := testenv.AttributeDef, testenv.KeySchema
	_, err := api.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(a),
		AttributeDefinitions: []types.AttributeDefinition{def("pk", "S"), def("sk", "B"), def("g", "S"), def("l", "N")},
		KeySchema:            key("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: key("g", "pk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"s"}}},
			{IndexName: aws.String("byGL"), KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("l"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"), KeySchema: key("pk", "l"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(a),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	_, err = api.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             aws.String(b),
		AttributeDefinitions:  []types.AttributeDefinition{def("id", "N")},
		KeySchema:             key("id", ""),
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(3)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return []string{a, b}
}

// fill puts n items of mixed types (strings, numbers, binaries, sets,
// lists, nested maps, booleans, nulls) into each of the tables of
// createTables, drawn from seed.
func fill(t testing.TB, api timetable.API, tables []string, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	var a, b []table.Item
	for i := range n {
		it := mixed(r, i)
		it["pk"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("p%03d", i%97)}
		it["sk"] = &types.AttributeValueMemberB{Value: []byte{byte(i >> 8), byte(i), 0, 0xff}}
		if i%3 != 0 { // sparse indexes
			it["g"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("g%d", i%11)}
			it["l"] = &types.AttributeValueMemberN{Value: strconv.Itoa(i % 50)}
		}
		it["exp"] = &types.AttributeValueMemberN{Value: strconv.Itoa(4102444800 + i)} // 2100: never expires
		a = append(a, it)
		it = mixed(r, i)
		it["id"] = &types.AttributeValueMemberN{Value: strconv.Itoa(i*7 - n)}
		b = append(b, it)
	}
	for i, items := range [][]table.Item{a, b} {
		s := table.Schema{Name: tables[0], HashKey: "pk", RangeKey: "sk", KeyTypes: map[string]types.ScalarAttributeType{"sk": "B"}}
		if i == 1 {
			s = table.Schema{Name: tables[1], HashKey: "id", KeyTypes: map[string]types.ScalarAttributeType{"id": "N"}}
		}
		tb, err := table.New(api, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.BatchPut(context.Background(), items); err != nil {
			t.Fatal(err)
		}
	}
}

// mixed returns an item's non-key attributes: numbers in their canonical
// spelling, so that backends that normalize numbers agree.
func mixed(r *rand.Rand, i int) table.Item {
	num := func() types.AttributeValue {
		switch r.IntN(3) {
		case 0:
			return &types.AttributeValueMemberN{Value: strconv.Itoa(r.IntN(1e6) - 5e5)}
		case 1:
			return &types.AttributeValueMemberN{Value: strconv.Itoa(r.IntN(1000)) + "." + strconv.Itoa(1+r.IntN(9))}
		}
		return &types.AttributeValueMemberN{Value: "1" + strings.Repeat("0", r.IntN(30))}
	}
	bin := func() []byte {
		b := make([]byte, 1+r.IntN(40))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		return b
	}
	it := table.Item{
		"s":    &types.AttributeValueMemberS{Value: fmt.Sprintf("item %d é ✓ %s", i, strings.Repeat("x", r.IntN(200)))},
		"n":    num(),
		"bin":  &types.AttributeValueMemberB{Value: bin()},
		"ok":   &types.AttributeValueMemberBOOL{Value: r.IntN(2) == 0},
		"none": &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"b", "a", fmt.Sprint("c", i)}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"3", "-1.5", strconv.Itoa(i + 10)}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {0, 2}, append([]byte{9, 9}, bin()...)}},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{num(), &types.AttributeValueMemberS{Value: ""}, &types.AttributeValueMemberL{}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"deep": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberB{Value: bin()}, num()}},
				"ss":   &types.AttributeValueMemberSS{Value: []string{"y", "x"}},
			}},
			"empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		}},
	}
	if r.IntN(4) == 0 {
		delete(it, "bs")
	}
	return it
}

// dump returns the items of a table as conformance.FormatItem renders
// them (sets sorted), sorted.
func dump(t testing.TB, api timetable.API, name string) []string {
	t.Helper()
	var out []string
	scanItems(t, api, name, func(it map[string]types.AttributeValue) {
		out = append(out, conformance.FormatItem(it))
	})
	sort.Strings(out)
	return out
}

// scanItems calls fn with each item of table name, read by a strongly
// consistent scan.
func scanItems(t testing.TB, api timetable.API, name string, fn func(map[string]types.AttributeValue)) {
	t.Helper()
	in := &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)}
	for {
		page, err := api.Scan(context.Background(), in)
		if err != nil {
			t.Fatalf("scan %s: %v", name, err)
		}
		for _, it := range page.Items {
			fn(it)
		}
		if len(page.LastEvaluatedKey) == 0 {
			return
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// sameItems fails the test if the tables do not hold the same items.
func sameItems(t testing.TB, a, b timetable.API, names []string, want int) {
	t.Helper()
	for _, name := range names {
		x, y := dump(t, a, name), dump(t, b, name)
		if len(x) != want {
			t.Errorf("table %s: %d items, want %d", name, len(x), want)
		}
		if len(x) != len(y) {
			t.Errorf("table %s: %d items on one side, %d on the other", name, len(x), len(y))
			continue
		}
		for i := range x {
			if x[i] != y[i] {
				t.Errorf("table %s: item %d differs:\n%s\n%s", name, i, x[i], y[i])
				break
			}
		}
	}
}

// sameSchema fails the test unless the tables of createTables on api have
// the schema, billing and TTL createTables gave them.
func sameSchema(t testing.TB, api timetable.API, names []string) {
	t.Helper()
	ctx := context.Background()
	a, err := describe(ctx, api, names[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := keyOf(a.KeySchema, a.AttributeDefinitions); !slices.Equal(got, []string{"HASH pk S", "RANGE sk B"}) {
		t.Errorf("%s: key %v", names[0], got)
	}
	gs := a.GlobalSecondaryIndexes
	slices.SortFunc(gs, func(x, y types.GlobalSecondaryIndexDescription) int {
		return strings.Compare(*x.IndexName, *y.IndexName)
	})
	if len(gs) != 2 || aws.ToString(gs[0].IndexName) != "byG" ||
		!slices.Equal(keyOf(gs[0].KeySchema, a.AttributeDefinitions), []string{"HASH g S", "RANGE pk S"}) ||
		gs[0].Projection.ProjectionType != types.ProjectionTypeInclude ||
		!slices.Equal(gs[0].Projection.NonKeyAttributes, []string{"s"}) ||
		aws.ToString(gs[1].IndexName) != "byGL" ||
		!slices.Equal(keyOf(gs[1].KeySchema, a.AttributeDefinitions), []string{"HASH g S", "HASH l N", "RANGE sk B"}) ||
		gs[1].Projection.ProjectionType != types.ProjectionTypeKeysOnly {
		t.Errorf("%s: global indexes %+v", names[0], gs)
	}
	if len(a.LocalSecondaryIndexes) != 1 || aws.ToString(a.LocalSecondaryIndexes[0].IndexName) != "byL" ||
		!slices.Equal(keyOf(a.LocalSecondaryIndexes[0].KeySchema, a.AttributeDefinitions), []string{"HASH pk S", "RANGE l N"}) {
		t.Errorf("%s: local indexes %+v", names[0], a.LocalSecondaryIndexes)
	}
	if a.BillingModeSummary == nil || a.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("%s: billing %+v", names[0], a.BillingModeSummary)
	}
	if ttl, err := ttlOf(ctx, api, names[0]); err != nil || ttl != "exp" {
		t.Errorf("%s: TTL %q, %v", names[0], ttl, err)
	}
	b, err := describe(ctx, api, names[1])
	if err != nil {
		t.Fatal(err)
	}
	if p := b.ProvisionedThroughput; p == nil || aws.ToInt64(p.ReadCapacityUnits) != 7 || aws.ToInt64(p.WriteCapacityUnits) != 3 ||
		b.BillingModeSummary != nil && b.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
		t.Errorf("%s: billing %+v, throughput %+v", names[1], b.BillingModeSummary, b.ProvisionedThroughput)
	}
	if ttl, err := ttlOf(ctx, api, names[1]); err != nil || ttl != "" {
		t.Errorf("%s: TTL %q, %v", names[1], ttl, err)
	}
}

// sameIndexItems fails the test unless the multi-attribute global index
// byGL of names[0] holds the same entries, in the same order, on both
// sides, for a few of its partitions (g, l), and some of them.
func sameIndexItems(t testing.TB, from, to timetable.API, names []string) {
	t.Helper()
	ctx := context.Background()
	query := func(api timetable.API, g string, l int) []table.Item {
		out, err := api.Query(ctx, &dynamodb.QueryInput{
			TableName: aws.String(names[0]), IndexName: aws.String("byGL"),
			KeyConditionExpression: aws.String("g = :g AND l = :l"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":g": &types.AttributeValueMemberS{Value: g}, ":l": &types.AttributeValueMemberN{Value: strconv.Itoa(l)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.Items
	}
	total := 0
	for _, p := range [][2]int{{1, 1}, {2, 2}, {7, 18}} {
		g := fmt.Sprintf("g%d", p[0])
		a, b := query(from, g, p[1]), query(to, g, p[1])
		if len(a) != len(b) {
			t.Fatalf("index byGL, partition (%s, %d): %d entries in the source, %d in the destination", g, p[1], len(a), len(b))
		}
		for i := range a {
			if conformance.FormatItem(a[i]) != conformance.FormatItem(b[i]) {
				t.Fatalf("index byGL, partition (%s, %d), entry %d: %s in the source, %s in the destination", g, p[1], i, conformance.FormatItem(a[i]), conformance.FormatItem(b[i]))
			}
		}
		total += len(a)
	}
	if total == 0 {
		t.Fatal("index byGL: the partitions compared are empty")
	}
}

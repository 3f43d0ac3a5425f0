package local

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/number"
)

func sv(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func nv(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
func bv(v []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: v} }

// mkMeta is a table keyed by pk (S) with one global index whose partition
// key is (h S, hn N) and whose sort key is (rs S, rn N, rb B).
func mkMeta() *tableMeta {
	m := &tableMeta{Name: "t", ID: 7, Hash: "pk", HashType: "S"}
	ix := &indexMeta{Name: "g", ID: 1, Global: true, Projection: "KEYS_ONLY"}
	ix.setKeys([]attrDef{{"h", "S"}, {"hn", "N"}}, []attrDef{{"rs", "S"}, {"rn", "N"}, {"rb", "B"}})
	m.Indexes = []*indexMeta{ix}
	m.prepare()
	return m
}

// mkOrder is DynamoDB's order of the entries of one partition of mkMeta's
// index: by rs (bytes), rn (numbers), rb (bytes), then the table key.
func mkOrder(a, b Item) int {
	str := func(it Item, n string) string { return it[n].(*types.AttributeValueMemberS).Value }
	if c := cmp.Compare(str(a, "rs"), str(b, "rs")); c != 0 {
		return c
	}
	if c := number.Compare(a["rn"].(*types.AttributeValueMemberN).Value, b["rn"].(*types.AttributeValueMemberN).Value); c != 0 {
		return c
	}
	if c := bytes.Compare(a["rb"].(*types.AttributeValueMemberB).Value, b["rb"].(*types.AttributeValueMemberB).Value); c != 0 {
		return c
	}
	return cmp.Compare(str(a, "pk"), str(b, "pk"))
}

// mkEntry returns the index entry key of item, failing the test when the
// item is not in the index.
func mkEntry(t testing.TB, m *tableMeta, item Item) []byte {
	t.Helper()
	base, err := m.keyFromItem(item)
	if err != nil {
		t.Fatal(err)
	}
	k, _, ok := m.indexEntry(m.Indexes[0], item, base)
	if !ok {
		t.Fatalf("item %v not in the index", item)
	}
	bk, err := m.baseKeyOfEntry(m.Indexes[0], k)
	if err != nil || !bytes.Equal(bk, base.key) {
		t.Fatalf("baseKeyOfEntry = %x, %v; want %x", bk, err, base.key)
	}
	return k
}

// partitionOf returns the bytes of an entry key that name its partition:
// prefix, hash and the partition attribute values.
func partitionOf(t testing.TB, m *tableMeta, k []byte) []byte {
	t.Helper()
	rest := k[dataPrefixLen+8:]
	n := 0
	for range m.Indexes[0].hashes {
		l, err := codec.SplitKey(rest[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += l
	}
	return k[:dataPrefixLen+8+n]
}

// TestIndexEntry_MultiKeyOrder sorts many entries of one partition, with
// values drawn from small pools so that every sort attribute ties often,
// by their storage keys and checks the order is DynamoDB's.
func TestIndexEntry_MultiKeyOrder(t *testing.T) {
	m := mkMeta()
	r := rand.New(rand.NewPCG(1, 2))
	strs := []string{"a", "a\x00", "a\x00b", "ab", "b", "\xff", "a\x01"}
	nums := []string{"-10", "-1.5", "-1", "-0.001", "0", "1E-130", "0.5", "1", "1.0", "2", "10", "9.99E+125", "100"}
	bins := [][]byte{{0}, {0, 0}, {0, 1}, {1}, {255}, {255, 0}}
	type entry struct {
		item Item
		key  []byte
	}
	var es []entry
	for range 3000 {
		it := Item{
			"pk": sv(fmt.Sprintf("p%04d", r.IntN(5000))),
			"h":  sv("x"), "hn": nv("1"),
			"rs": sv(strs[r.IntN(len(strs))]),
			"rn": nv(nums[r.IntN(len(nums))]),
			"rb": bv(bins[r.IntN(len(bins))]),
		}
		es = append(es, entry{it, mkEntry(t, m, it)})
	}
	p := partitionOf(t, m, es[0].key)
	for _, e := range es {
		if !bytes.HasPrefix(e.key, p) {
			t.Fatalf("entry %x not in partition %x", e.key, p)
		}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	for i := 1; i < len(es); i++ {
		if c := mkOrder(es[i-1].item, es[i].item); c > 0 {
			t.Fatalf("storage order puts %v before %v", es[i-1].item, es[i].item)
		} else if c == 0 && !bytes.Equal(es[i-1].key, es[i].key) {
			t.Fatalf("equal keys %v, %v encode differently", es[i-1].item, es[i].item)
		}
	}
}

// FuzzIndexKeyOrder checks, for two items of one partition, that their
// entries in an index with a multi-attribute sort key order as DynamoDB
// orders them, that distinct partition values make distinct partitions,
// and that an entry leads back to its item's key.
func FuzzIndexKeyOrder(f *testing.F) {
	f.Add("a", "1", []byte{0}, "p1", "a", "1", []byte{0}, "p2", "x", "x")
	f.Add("a", "10", []byte{0}, "p1", "a", "9", []byte{1}, "p0", "x", "xy")
	f.Add("a\x00", "-1", []byte{}, "p", "a", "1E+125", []byte{0xff}, "q", "\x00", "\x00\x00")
	f.Add("ab", "0.001", []byte{1, 0}, "p", "a", "-0.001", []byte{1}, "q", "a", "a")
	f.Fuzz(func(t *testing.T, s1, n1 string, b1 []byte, pk1, s2, n2 string, b2 []byte, pk2, h1, h2 string) {
		for _, v := range []string{s1, s2, pk1, pk2, h1, h2, string(b1), string(b2)} {
			if v == "" || len(v) > 300 {
				return // not a valid key value, or over the key size limits together
			}
		}
		if pk1 == pk2 {
			return
		}
		if _, err := number.Canonical(n1); err != nil {
			return
		}
		if _, err := number.Canonical(n2); err != nil {
			return
		}
		m := mkMeta()
		a := Item{"pk": sv(pk1), "h": sv("x"), "hn": nv("1"), "rs": sv(s1), "rn": nv(n1), "rb": bv(b1)}
		c := Item{"pk": sv(pk2), "h": sv("x"), "hn": nv("1"), "rs": sv(s2), "rn": nv(n2), "rb": bv(b2)}
		ka, kc := mkEntry(t, m, a), mkEntry(t, m, c)
		if got, want := bytes.Compare(ka, kc), mkOrder(a, c); got != want {
			t.Fatalf("entries compare %d, DynamoDB's order %d: %v, %v", got, want, a, c)
		}
		// Partitions (h1, 1) and (h2, 1).
		a["h"], c["h"] = sv(h1), sv(h2)
		pa, pc := partitionOf(t, m, mkEntry(t, m, a)), partitionOf(t, m, mkEntry(t, m, c))
		if bytes.Equal(pa, pc) != (h1 == h2) {
			t.Fatalf("partitions (%q, 1) and (%q, 1) encode as %x and %x", h1, h2, pa, pc)
		}
		// An item without one of the key attributes is not in the index.
		for _, attr := range m.Indexes[0].keyNames {
			it := copyItem(a)
			delete(it, attr)
			base, _ := m.keyFromItem(it)
			if _, _, ok := m.indexEntry(m.Indexes[0], it, base); ok {
				t.Fatalf("item without %s is in the index", attr)
			}
		}
	})
}

// TestCatalog_MultiKeyCompat decodes a table description written before
// multi-attribute keys (single-attribute fields only) and checks that a
// description with them survives a round trip.
func TestCatalog_MultiKeyCompat(t *testing.T) {
	old := `{"name":"t","id":3,"attrs":[{"name":"pk","type":"S"},{"name":"g","type":"N"},{"name":"r","type":"S"}],` +
		`"hash":"pk","hashType":"S","indexes":[{"name":"gsi","id":1,"global":true,"hash":"g","hashType":"N","range":"r","rangeType":"S","projection":"ALL","created":"2024-01-01T00:00:00Z"}],` +
		`"billingMode":"PAY_PER_REQUEST","created":"2024-01-01T00:00:00Z","nextIndexID":2}`
	m := new(tableMeta)
	if err := json.Unmarshal([]byte(old), m); err != nil {
		t.Fatal(err)
	}
	m.prepare()
	ix := m.Indexes[0]
	if ix.multi() || !slices.Equal(ix.keyNames, []string{"g", "r"}) || ix.hashes[0].Type != "N" || ix.ranges[0].Type != "S" {
		t.Fatalf("old description decodes as %+v", ix)
	}
	v, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(v, []byte("more")) {
		t.Fatalf("single-attribute index encodes multi-attribute fields: %s", v)
	}

	nm := mkMeta()
	v, err = json.Marshal(nm)
	if err != nil {
		t.Fatal(err)
	}
	back := new(tableMeta)
	if err := json.Unmarshal(v, back); err != nil {
		t.Fatal(err)
	}
	back.prepare()
	if got := back.Indexes[0]; !got.multi() || !slices.Equal(got.keyNames, []string{"h", "hn", "rs", "rn", "rb"}) ||
		!slices.Equal(got.all, nm.Indexes[0].all) {
		t.Fatalf("round trip: %+v", got)
	}
	// A clone does not share the key lists.
	c := nm.clone()
	c.Indexes[0].MoreHash[0].Name = "changed"
	if nm.Indexes[0].MoreHash[0].Name != "hn" {
		t.Fatal("clone shares MoreHash")
	}
}

// TestMultiKey_SurvivesReopen writes through an index with a
// multi-attribute key, reopens the database and queries it.
func TestMultiKey_SurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(dir, &Options{TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("tbl"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("a"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("b"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("c"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("b"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("c"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []string{"3", "-1", "20"} {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
			Item: Item{"pk": sv(fmt.Sprint(i)), "a": sv("x"), "b": nv("1"), "c": nv(c)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, &Options{TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	g := d.Table.GlobalSecondaryIndexes[0]
	if len(g.KeySchema) != 3 || aws.ToString(g.KeySchema[1].AttributeName) != "b" || g.KeySchema[1].KeyType != types.KeyTypeHash ||
		aws.ToInt64(g.ItemCount) != 3 {
		t.Fatalf("after reopen: %+v", g)
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("a = :a AND b = :b"), ExpressionAttributeValues: Item{":a": sv("x"), ":b": nv("1")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	if !slices.Equal(got, []string{"1", "0", "2"}) {
		t.Fatalf("query after reopen: %v", got)
	}
}

// TestGSIKeySchema_KeyType refuses a key type other than HASH and RANGE,
// which DynamoDB refuses (DynamoDB Local accepts it: docs/compat.md).
func TestGSIKeySchema_KeyType(t *testing.T) {
	defs := map[string]string{"a": "S", "b": "S"}
	_, _, err := gsiKeySchema([]types.KeySchemaElement{
		{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String("b"), KeyType: "FOO"},
	}, defs)
	if err == nil || err.Error() == "" {
		t.Fatalf("err = %v", err)
	}
	if want := "Value 'FOO' at 'keySchema.2.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

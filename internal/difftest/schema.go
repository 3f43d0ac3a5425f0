package difftest

import (
	"math/rand/v2"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Table describes one generated table. Names are logical: Run prefixes them
// per target.
type Table struct {
	Name     string
	SortType types.ScalarAttributeType // of the sort key "sk"; the partition key "pk" is S
	GSI      Index
	LSI      *Index // nil when the table has none
	MGSI     *Index // a global index with a multi-attribute key; nil when the table has none
}

// Index describes a secondary index.
type Index struct {
	Name      string
	Hash      string
	HashType  types.ScalarAttributeType
	Range     string // "" when the index has no sort key
	RangeType types.ScalarAttributeType
	Proj      types.ProjectionType
	NonKey    []string // for INCLUDE
	// MoreHash and MoreRange are the partition and sort key attributes
	// after Hash and Range of a multi-attribute key, in key schema order.
	MoreHash, MoreRange []string
}

// HashKeys returns the partition key attributes of ix, in order.
func (ix *Index) HashKeys() []string { return append([]string{ix.Hash}, ix.MoreHash...) }

// RangeKeys returns the sort key attributes of ix, in order (none when ix
// has no sort key).
func (ix *Index) RangeKeys() []string {
	if ix.Range == "" {
		return nil
	}
	return append([]string{ix.Range}, ix.MoreRange...)
}

// KeyNames returns the key attributes of ix: partition, then sort.
func (ix *Index) KeyNames() []string { return append(ix.HashKeys(), ix.RangeKeys()...) }

// multi reports whether ix has a multi-attribute key.
func (ix *Index) multi() bool { return len(ix.MoreHash) > 0 || len(ix.MoreRange) > 0 }

// multiKeys are the key schemas (partition attributes; sort attributes) of
// the generated indexes with multi-attribute keys, over the attributes g
// (S), gn (N), lk (S) and the table's keys.
var multiKeys = [][2][]string{
	{{"g", "gn"}, {"lk"}},
	{{"g"}, {"gn", "lk"}},
	{{"gn", "g"}, nil},
	{{"g"}, {"lk", "sk"}},
	{{"lk", "g", "gn"}, {"sk"}},
	{{"gn"}, {"g", "sk", "lk"}},
	{{"g", "pk"}, {"gn", "lk"}},
}

// Schema is the generated set of tables.
type Schema struct {
	Tables []*Table
}

func genSchema(r *rand.Rand) *Schema {
	n := 1 + r.IntN(2)
	s := &Schema{}
	for i := range n {
		t := &Table{Name: []string{"tab0", "tab1"}[i], SortType: types.ScalarAttributeTypeS}
		if chance(r, 0.5) {
			t.SortType = types.ScalarAttributeTypeN
		}
		t.GSI = Index{Name: "gsi", Hash: "g", HashType: "S"}
		switch r.IntN(3) {
		case 0:
			t.GSI.Range, t.GSI.RangeType = "gn", "N"
		case 1:
			t.GSI.Hash, t.GSI.HashType, t.GSI.Range, t.GSI.RangeType = "gn", "N", "g", "S"
		}
		t.GSI.Proj, t.GSI.NonKey = genProjection(r)
		if chance(r, 0.6) {
			lsi := &Index{Name: "lsi", Hash: "pk", HashType: "S", Range: "lk", RangeType: "S"}
			lsi.Proj, lsi.NonKey = genProjection(r)
			t.LSI = lsi
		}
		s.Tables = append(s.Tables, t)
	}
	// Drawn after the rest, so that a seed's tables keep the other indexes
	// they had before multi-attribute keys were generated.
	for _, t := range s.Tables {
		if !chance(r, 0.5) {
			continue
		}
		k := multiKeys[r.IntN(len(multiKeys))]
		ix := &Index{Name: "mgsi", Hash: k[0][0], MoreHash: k[0][1:]}
		if len(k[1]) > 0 {
			ix.Range, ix.MoreRange = k[1][0], k[1][1:]
		}
		ix.Proj, ix.NonKey = genProjection(r)
		t.MGSI = ix
	}
	return s
}

func genProjection(r *rand.Rand) (types.ProjectionType, []string) {
	switch r.IntN(3) {
	case 0:
		return types.ProjectionTypeAll, nil
	case 1:
		return types.ProjectionTypeKeysOnly, nil
	default:
		return types.ProjectionTypeInclude, []string{"a", "m", "ss"}
	}
}

// Indexes returns the table's secondary indexes.
func (t *Table) Indexes() []*Index {
	ix := []*Index{&t.GSI}
	if t.LSI != nil {
		ix = append(ix, t.LSI)
	}
	if t.MGSI != nil {
		ix = append(ix, t.MGSI)
	}
	return ix
}

// attrType is the type of key attribute name in t.
func (t *Table) attrType(name string) types.ScalarAttributeType {
	switch name {
	case "sk":
		return t.SortType
	case "gn":
		return types.ScalarAttributeTypeN
	}
	return types.ScalarAttributeTypeS
}

// CreateInput returns the CreateTable request for t.
func (t *Table) CreateInput() *dynamodb.CreateTableInput {
	defs := map[string]types.ScalarAttributeType{"pk": "S", "sk": t.SortType}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(t.Name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	}
	ks := func(ix *Index) []types.KeySchemaElement {
		if ix.multi() {
			var k []types.KeySchemaElement
			for i, a := range ix.KeyNames() {
				defs[a] = t.attrType(a)
				kt := types.KeyTypeHash
				if i > len(ix.MoreHash) {
					kt = types.KeyTypeRange
				}
				k = append(k, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: kt})
			}
			return k
		}
		defs[ix.Hash] = ix.HashType
		k := []types.KeySchemaElement{{AttributeName: aws.String(ix.Hash), KeyType: types.KeyTypeHash}}
		if ix.Range != "" {
			defs[ix.Range] = ix.RangeType
			k = append(k, types.KeySchemaElement{AttributeName: aws.String(ix.Range), KeyType: types.KeyTypeRange})
		}
		return k
	}
	proj := func(ix *Index) *types.Projection {
		return &types.Projection{ProjectionType: ix.Proj, NonKeyAttributes: ix.NonKey}
	}
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{
		IndexName: aws.String(t.GSI.Name), KeySchema: ks(&t.GSI), Projection: proj(&t.GSI),
	}}
	if t.MGSI != nil {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(t.MGSI.Name), KeySchema: ks(t.MGSI), Projection: proj(t.MGSI),
		})
	}
	if t.LSI != nil {
		in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{
			IndexName: aws.String(t.LSI.Name), KeySchema: ks(t.LSI), Projection: proj(t.LSI),
		}}
	}
	for _, name := range []string{"pk", "sk", "g", "gn", "lk"} {
		if typ, ok := defs[name]; ok {
			in.AttributeDefinitions = append(in.AttributeDefinitions,
				types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: typ})
		}
	}
	return in
}

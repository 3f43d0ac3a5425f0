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
	return ix
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

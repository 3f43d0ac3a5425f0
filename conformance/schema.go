package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Parts of a table's description, for CreateTable and UpdateTable inputs.

// attrDefs returns attribute definitions from name and type pairs:
// attrDefs("pk", "S", "sk", "N").
func attrDefs(kv ...string) []types.AttributeDefinition {
	var ds []types.AttributeDefinition
	for i := 0; i+1 < len(kv); i += 2 {
		ds = append(ds, types.AttributeDefinition{AttributeName: aws.String(kv[i]), AttributeType: types.ScalarAttributeType(kv[i+1])})
	}
	return ds
}

// keySchema is a key schema of a hash key and, when rng is given, a range
// key.
func keySchema(hash string, rng ...string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if len(rng) > 0 {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng[0]), KeyType: types.KeyTypeRange})
	}
	return ks
}

// indexKeySchema is the key schema of an index: hash, and rng unless it is
// "".
func indexKeySchema(hash, rng string) []types.KeySchemaElement {
	if rng == "" {
		return keySchema(hash)
	}
	return keySchema(hash, rng)
}

// projection is an index projection of type t; nonKey lists the attributes
// of an INCLUDE projection.
func projection(t types.ProjectionType, nonKey ...string) *types.Projection {
	return &types.Projection{ProjectionType: t, NonKeyAttributes: nonKey}
}

// gsi describes a global secondary index keyed by hash and rng ("" for none)
// with projection(proj, nonKey...).
func gsi(name, hash, rng string, proj types.ProjectionType, nonKey ...string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: indexKeySchema(hash, rng), Projection: projection(proj, nonKey...)}
}

// lsi describes a local secondary index keyed by hash (the table's
// partition key, unless a case tests otherwise) and rng with
// projection(proj, nonKey...).
func lsi(name, hash, rng string, proj types.ProjectionType, nonKey ...string) types.LocalSecondaryIndex {
	return types.LocalSecondaryIndex{IndexName: aws.String(name), KeySchema: indexKeySchema(hash, rng), Projection: projection(proj, nonKey...)}
}

// createGSI is the UpdateTable index update that creates the global
// secondary index gsi(name, hash, rng, proj, nonKey...).
func createGSI(name, hash, rng string, proj types.ProjectionType, nonKey ...string) []types.GlobalSecondaryIndexUpdate {
	g := gsi(name, hash, rng, proj, nonKey...)
	return []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection}}}
}

// deleteGSI is the UpdateTable index update that deletes the global
// secondary index name.
func deleteGSI(name string) []types.GlobalSecondaryIndexUpdate {
	return []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(name)}}}
}

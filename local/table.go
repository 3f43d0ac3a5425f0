package local

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/codec"
)

const (
	msgTableName = "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
	maxGSIs      = 20
	maxLSIs      = 5
	maxNonKey    = 100

	msgKeyNameLength = "Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive"
	arnPrefix        = "arn:aws:dynamodb:local:000000000000:table/"
)

func validName(s string) bool {
	if len(s) < 3 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func checkTableName(name *string) error {
	if name == nil {
		return validationError("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}
	if !validName(*name) {
		return validationError(msgTableName)
	}
	return nil
}

// keySchema checks a key schema (of a table or an index) against the
// attribute definitions and returns its hash and range attributes.
func keySchema(ks []types.KeySchemaElement, defs map[string]string, index bool) (hash, rng string, err error) {
	if len(ks) == 0 {
		return "", "", validationError("No defined key schema.  A key schema containing at least a hash key must be defined for all tables")
	}
	if len(ks) > 2 {
		return "", "", validationError("Key Schema too big.  Key Schema must at most consist of the hash and range key of a table")
	}
	nh := 0
	for _, e := range ks {
		if e.KeyType == types.KeyTypeHash {
			nh++
		}
	}
	if nh == 0 {
		return "", "", validationError("No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key")
	}
	if nh > 1 {
		return "", "", validationError("Too many hash keys specified.  All Dynamo DB tables must have exactly one hash key")
	}
	if ks[0].KeyType != types.KeyTypeHash {
		return "", "", validationError("Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second")
	}
	if len(ks) == 2 && ks[1].KeyType != types.KeyTypeRange {
		return "", "", validationError("No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key")
	}
	hash = aws.ToString(ks[0].AttributeName)
	if len(ks) == 2 {
		rng = aws.ToString(ks[1].AttributeName)
		if rng == hash {
			return "", "", validationError("Two keys can not have the same name")
		}
	}
	names := []string{hash}
	if len(ks) == 2 {
		names = append(names, rng)
	}
	// attrDefs has checked the length of every defined name.
	for _, n := range names {
		if _, ok := defs[n]; !ok {
			switch {
			case index:
				return "", "", validationf("Attribute %s is not defined in AttributeDefinitions", n)
			case n == hash:
				return "", "", validationError("Hash Key not specified in Attribute Definitions.  Type unknown.")
			default:
				return "", "", validationError("Range Key not specified in Attribute Definitions.  Type unknown.")
			}
		}
	}
	return hash, rng, nil
}

func attrDefs(ads []types.AttributeDefinition) (map[string]string, error) {
	defs := map[string]string{}
	for _, a := range ads {
		switch a.AttributeType {
		case types.ScalarAttributeTypeS, types.ScalarAttributeTypeN, types.ScalarAttributeTypeB:
		default:
			return nil, validationError("Member must satisfy enum value set: [B, N, S]")
		}
		n := aws.ToString(a.AttributeName)
		if len(n) == 0 || len(n) > 255 {
			return nil, validationError(msgKeyNameLength)
		}
		if _, dup := defs[n]; dup {
			return nil, validationError("Cannot have two attributes with the same name")
		}
		defs[n] = string(a.AttributeType)
	}
	return defs, nil
}

func projection(p *types.Projection) (string, []string, error) {
	if p == nil || p.ProjectionType == "" {
		return "", nil, validationError("Indexes must have a projection specified")
	}
	switch p.ProjectionType {
	case types.ProjectionTypeAll, types.ProjectionTypeKeysOnly:
		if len(p.NonKeyAttributes) > 0 {
			return "", nil, validationError("No attributes should be specified to be projected unless projection type is INCLUDE")
		}
	case types.ProjectionTypeInclude:
		if len(p.NonKeyAttributes) == 0 {
			return "", nil, validationError("If Projection type INCLUDE is specified, some non-key attributes to include in the projection must be specified as well")
		}
		seen := map[string]bool{}
		for _, a := range p.NonKeyAttributes {
			if seen[a] {
				return "", nil, validationError("Cannot have two attributes with the same name")
			}
			if len(a) == 0 || len(a) > 255 {
				return "", nil, validationError("Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive")
			}
			seen[a] = true
		}
	default:
		return "", nil, validationError("Projection type must be INCLUDE, ALL, or KEYS_ONLY")
	}
	return string(p.ProjectionType), slices.Clone(p.NonKeyAttributes), nil
}

func throughput(pt *types.ProvisionedThroughput, what string) (int64, int64, error) {
	if pt == nil {
		return 0, 0, validationf("No provisioned throughput specified for the %s", what)
	}
	r, w := aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits)
	if r < 1 || w < 1 {
		if what == "table" {
			return 0, 0, validationError("Table read and write throughput must be at least 1, and cannot be null")
		}
		return 0, 0, validationError("Index read and write throughput must be at least 1, and cannot be null")
	}
	return r, w, nil
}

// describe builds the SDK description of a table. st holds the item counts
// and sizes, or nil for zeros.
func (db *DB) describe(m *tableMeta, st *tableStats) *types.TableDescription {
	created := m.Created
	d := &types.TableDescription{
		TableName:                 aws.String(m.Name),
		TableStatus:               types.TableStatusActive,
		CreationDateTime:          &created,
		TableArn:                  aws.String(arnPrefix + m.Name),
		TableId:                   aws.String(fmt.Sprintf("00000000-0000-0000-0000-%012d", m.ID)),
		DeletionProtectionEnabled: aws.Bool(m.Protected),
		ItemCount:                 aws.Int64(0),
		TableSizeBytes:            aws.Int64(0),
	}
	if st != nil {
		d.ItemCount = aws.Int64(st.count[baseIndex])
		d.TableSizeBytes = aws.Int64(st.bytes[baseIndex])
	}
	for _, a := range m.Attrs {
		d.AttributeDefinitions = append(d.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.Name), AttributeType: types.ScalarAttributeType(a.Type),
		})
	}
	d.KeySchema = keySchemaOut(m.Hash, m.Range)
	describeStream(d, m)
	d.ProvisionedThroughput = &types.ProvisionedThroughputDescription{
		NumberOfDecreasesToday: aws.Int64(0),
		ReadCapacityUnits:      aws.Int64(m.RCU),
		WriteCapacityUnits:     aws.Int64(m.WCU),
	}
	if m.BillingMode == string(types.BillingModePayPerRequest) {
		d.BillingModeSummary = &types.BillingModeSummary{
			BillingMode:                       types.BillingModePayPerRequest,
			LastUpdateToPayPerRequestDateTime: &created,
		}
	}
	for _, ix := range m.Indexes {
		var count, size int64
		if st != nil {
			count, size = st.count[ix.ID], st.bytes[ix.ID]
		}
		proj := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection), NonKeyAttributes: slices.Clone(ix.NonKey)}
		arn := aws.String(arnPrefix + m.Name + "/index/" + ix.Name)
		if ix.Global {
			g := types.GlobalSecondaryIndexDescription{
				IndexName:      aws.String(ix.Name),
				KeySchema:      keySchemaOf(ix),
				Projection:     proj,
				IndexStatus:    types.IndexStatusActive,
				IndexArn:       arn,
				ItemCount:      aws.Int64(count),
				IndexSizeBytes: aws.Int64(size),
			}
			if ix.RCU > 0 || ix.WCU > 0 {
				g.ProvisionedThroughput = &types.ProvisionedThroughputDescription{
					ReadCapacityUnits: aws.Int64(ix.RCU), WriteCapacityUnits: aws.Int64(ix.WCU),
				}
			}
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, g)
		} else {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{
				IndexName:      aws.String(ix.Name),
				KeySchema:      keySchemaOf(ix),
				Projection:     proj,
				IndexArn:       arn,
				ItemCount:      aws.Int64(count),
				IndexSizeBytes: aws.Int64(size),
			})
		}
	}
	return d
}

func keySchemaOut(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

// tableStats are item counts and DynamoDB sizes per index id.
type tableStats struct {
	count map[uint32]int64
	bytes map[uint32]int64
}

// stats counts the items of a table and its indexes by reading them.
func (db *DB) stats(m *tableMeta) (*tableStats, error) {
	st := &tableStats{count: map[uint32]int64{}, bytes: map[uint32]int64{}}
	p := tablePrefix(m.ID)
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: keyEnd(p)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if len(k) < dataPrefixLen {
			continue
		}
		id := binary.BigEndian.Uint32(k[5:9])
		st.count[id]++
		size, err := codec.EncodedItemSize(it.Value())
		if err != nil {
			return nil, fmt.Errorf("local: cannot read %x: %w", k, err)
		}
		st.bytes[id] += int64(size)
	}
	return st, it.Error()
}

// checkProjectedCount checks DynamoDB's limit on the attributes a table's
// indexes project besides their keys: 100 in all, counted per index. The
// words are DynamoDB Local's, though they name 20 and local indexes.
func checkProjectedCount(ixs []*indexMeta) error {
	n := 0
	for _, ix := range ixs {
		n += len(ix.NonKey)
	}
	if n > maxNonKey {
		return validationError("No more than 20 attributes per table can be projected into Local Secondary Indices")
	}
	return nil
}

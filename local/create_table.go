package local

import (
	"context"
	"encoding/binary"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateTable creates a table and its indexes. The table is ACTIVE when
// CreateTable returns, as in DynamoDB Local.
func (db *DB) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return run(ctx, db, "CreateTable", in, db.createTable)
}

func (db *DB) createTable(_ context.Context, in *dynamodb.CreateTableInput) (*dynamodb.CreateTableOutput, error) {
	m, err := db.newTableMeta(in)
	if err != nil {
		return nil, err
	}
	view := ""
	if in.StreamSpecification != nil {
		if view, err = streamSpec(in.StreamSpecification); err != nil {
			return nil, err
		}
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	if _, ok := db.tables[m.Name]; ok {
		return nil, inUse("Cannot create preexisting table")
	}
	// After the check above: a table that exists is told so, whatever the
	// disk, so that a start on a full disk finds its tables.
	if err := db.writable(); err != nil {
		return nil, err
	}
	m.ID = db.nextID
	b := db.pdb.NewBatch()
	defer b.Close()
	var streams []*streamMeta
	if view != "" {
		streams = append(streams, db.newStream(m, view))
		if err := db.writeStreams(b, streams); err != nil {
			return nil, err
		}
	}
	if err := b.Set(keyNextTableID, binary.BigEndian.AppendUint32(nil, m.ID+1), nil); err != nil {
		return nil, err
	}
	// Ids are never reused, but clear the range in case of leftovers.
	if err := b.DeleteRange(tablePrefix(m.ID), keyEnd(tablePrefix(m.ID)), nil); err != nil {
		return nil, err
	}
	if err := putMeta(b, m); err != nil {
		return nil, err
	}
	if err := db.commit(b, db.wo); err != nil {
		return nil, err
	}
	db.nextID++
	db.publishStreams(streams)
	t := &table{}
	t.meta.Store(m)
	db.tables[m.Name] = t
	return &dynamodb.CreateTableOutput{TableDescription: db.describe(m, nil)}, nil
}

func (db *DB) newTableMeta(in *dynamodb.CreateTableInput) (*tableMeta, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	if len(in.AttributeDefinitions) == 0 {
		return nil, validationError("No Attribute Schema Defined")
	}
	defs, err := attrDefs(in.AttributeDefinitions)
	if err != nil {
		return nil, err
	}
	hash, rng, err := keySchema(in.KeySchema, defs, false)
	if err != nil {
		return nil, err
	}
	m := &tableMeta{
		Name:        *in.TableName,
		Hash:        hash,
		HashType:    defs[hash],
		Range:       rng,
		RangeType:   defs[rng],
		Created:     db.now(),
		NextIndexID: 1,
		Protected:   aws.ToBool(in.DeletionProtectionEnabled),
	}
	used := map[string]bool{hash: true}
	if rng != "" {
		used[rng] = true
	}
	names := map[string]bool{}
	if len(in.LocalSecondaryIndexes) > 0 && rng == "" {
		return nil, validationError("Local Secondary indices are not allowed on hash tables, only hash and range tables")
	}
	if len(in.LocalSecondaryIndexes) > maxLSIs {
		return nil, validationf("Cannot have more than %d local secondary indexes per table", maxLSIs)
	}
	if len(in.GlobalSecondaryIndexes) > maxGSIs {
		return nil, validationf("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	for _, l := range in.LocalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		if !validName(name) {
			return nil, validationError(msgTableName)
		}
		ih, ir, err := keySchema(l.KeySchema, defs, true)
		if err != nil {
			return nil, err
		}
		if ir == "" {
			return nil, validationError("Local secondary indices must have a range key")
		}
		if ih != hash {
			return nil, validationError("Local Secondary indices must have the same hash key as the main table")
		}
		pt, nk, err := projection(l.Projection)
		if err != nil {
			return nil, err
		}
		if names[name] {
			return nil, validationError("Two local secondary indices have the same name")
		}
		names[name] = true
		used[ir] = true
		m.Indexes = append(m.Indexes, &indexMeta{
			Name: name, ID: m.NextIndexID, Hash: ih, HashType: defs[ih], Range: ir, RangeType: defs[ir],
			Projection: pt, NonKey: nk, Created: m.Created,
		})
		m.NextIndexID++
	}
	gnames := map[string]bool{}
	for _, g := range in.GlobalSecondaryIndexes {
		name := aws.ToString(g.IndexName)
		if !validName(name) {
			return nil, validationError(msgTableName)
		}
		hashes, ranges, err := gsiKeySchema(g.KeySchema, defs)
		if err != nil {
			return nil, err
		}
		pt, nk, err := projection(g.Projection)
		if err != nil {
			return nil, err
		}
		if gnames[name] {
			return nil, validationError("Two global secondary indices have the same name")
		}
		if names[name] {
			return nil, validationError("Local Secondary Indices AND Global Secondary Indices must have different names")
		}
		gnames[name] = true
		for _, a := range append(hashes, ranges...) {
			used[a.Name] = true
		}
		ix := &indexMeta{
			Name: name, ID: m.NextIndexID, Global: true,
			Projection: pt, NonKey: nk, Created: m.Created,
		}
		ix.setKeys(hashes, ranges)
		if g.ProvisionedThroughput != nil {
			ix.RCU = aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits)
			ix.WCU = aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits)
		}
		m.Indexes = append(m.Indexes, ix)
		m.NextIndexID++
	}
	if len(used) != len(defs) {
		return nil, validationError("The number of attributes in key schema must match the number of attributes defined in attribute definitions.")
	}
	for _, a := range in.AttributeDefinitions {
		m.Attrs = append(m.Attrs, attrDef{Name: aws.ToString(a.AttributeName), Type: string(a.AttributeType)})
	}
	switch in.BillingMode {
	case "", types.BillingModeProvisioned:
		m.BillingMode = string(types.BillingModeProvisioned)
		if m.RCU, m.WCU, err = throughput(in.ProvisionedThroughput, "table"); err != nil {
			return nil, err
		}
		for i, g := range in.GlobalSecondaryIndexes {
			ix := m.Indexes[len(in.LocalSecondaryIndexes)+i]
			if ix.RCU, ix.WCU, err = throughput(g.ProvisionedThroughput, "global secondary index"); err != nil {
				return nil, err
			}
		}
	case types.BillingModePayPerRequest:
		m.BillingMode = string(types.BillingModePayPerRequest)
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
	}
	if err := checkProjectedCount(m.Indexes); err != nil {
		return nil, err
	}
	if m.Tags, err = checkTags(in.Tags); err != nil {
		return nil, err
	}
	m.prepare()
	return m, nil
}

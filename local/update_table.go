package local

import (
	"context"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/value"
)

// backfillBatchSize bounds the batches that fill a new index.
const backfillBatchSize = 4 << 20

// UpdateTable changes a table's billing mode or throughput, its deletion
// protection, or creates or deletes one global secondary index. A new index
// is filled from the table's items before UpdateTable returns (item writes
// to the table wait meanwhile); the output shows it CREATING, as DynamoDB
// does, and DescribeTable shows it ACTIVE.
func (db *DB) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return tableRun(db, "UpdateTable", in.TableName, in, db.updateTable)
}

func (db *DB) updateTable(t *table, in *dynamodb.UpdateTableInput) (*dynamodb.UpdateTableOutput, error) {
	m, err := db.lockForWrite(t)
	if err != nil {
		return nil, err
	}
	defer t.mu.Unlock()
	nm := m.clone()
	changed := false

	if in.BillingMode != "" {
		switch in.BillingMode {
		case types.BillingModePayPerRequest:
			nm.BillingMode = string(in.BillingMode)
			nm.RCU, nm.WCU = 0, 0
			for _, ix := range nm.Indexes {
				ix.RCU, ix.WCU = 0, 0
			}
		case types.BillingModeProvisioned:
			nm.BillingMode = string(in.BillingMode)
			if in.ProvisionedThroughput == nil {
				return nil, validationError("No provisioned throughput specified for the table")
			}
		default:
			return nil, validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
		}
		changed = true
	}
	if in.ProvisionedThroughput != nil {
		r, w, err := throughput(in.ProvisionedThroughput, "table")
		if err != nil {
			return nil, err
		}
		if nm.BillingMode == string(types.BillingModePayPerRequest) {
			return nil, validationError("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		nm.RCU, nm.WCU = r, w
		changed = true
	}
	if in.DeletionProtectionEnabled != nil {
		nm.Protected = *in.DeletionProtectionEnabled
		changed = true
	}

	var created, deleted *indexMeta
	if len(in.GlobalSecondaryIndexUpdates) > 0 {
		creates, deletes := 0, 0
		for _, u := range in.GlobalSecondaryIndexUpdates {
			switch n := countNonNil(u.Create != nil, u.Update != nil, u.Delete != nil); {
			case n == 0:
				return nil, validationError("Update global secondary index action is null")
			case n > 1:
				// DynamoDB Local answers InternalFailure; these are our words.
				return nil, validationError("One or more parameter values were invalid: A GlobalSecondaryIndexUpdate must hold one of Create, Update or Delete")
			}
			if u.Create != nil {
				creates++
			}
			if u.Delete != nil {
				deletes++
			}
		}
		if creates+deletes > 1 {
			return nil, limitExceeded("Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
		}
		for _, u := range in.GlobalSecondaryIndexUpdates {
			switch {
			case u.Create != nil:
				ix, err := db.newGSI(nm, u.Create, in.AttributeDefinitions)
				if err != nil {
					return nil, err
				}
				created = ix
			case u.Delete != nil:
				name := aws.ToString(u.Delete.IndexName)
				ix := nm.index(name)
				if ix == nil || !ix.Global {
					return nil, notFound("Requested resource not found")
				}
				deleted = ix
				var keep []*indexMeta
				for _, x := range nm.Indexes {
					if x != ix {
						keep = append(keep, x)
					}
				}
				nm.Indexes = keep
				nm.Attrs = usedAttrs(nm, nm.Attrs)
			case u.Update != nil:
				ix := nm.index(aws.ToString(u.Update.IndexName))
				if ix == nil || !ix.Global {
					return nil, notFound("Requested resource not found")
				}
				if pt := u.Update.ProvisionedThroughput; pt != nil {
					if nm.BillingMode == string(types.BillingModePayPerRequest) {
						// DynamoDB's words; DynamoDB Local answers InternalFailure.
						return nil, validationf("The only Updates for index: %s when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput", ix.Name)
					}
					r, w, err := throughput(pt, "global secondary index")
					if err != nil {
						return nil, err
					}
					ix.RCU, ix.WCU = r, w
				}
			}
		}
		changed = true
	}
	if nm.BillingMode == string(types.BillingModeProvisioned) && m.BillingMode != nm.BillingMode {
		// Each global index needs its throughput from this request
		// (DynamoDB Local answers InternalFailure).
		for _, ix := range nm.Indexes {
			if ix.Global && ix != created && (ix.RCU < 1 || ix.WCU < 1) {
				return nil, validationError("No provisioned throughput specified for the global secondary index")
			}
		}
	}
	var streams []*streamMeta
	if in.StreamSpecification != nil {
		db.streams.metaMu.Lock()
		defer db.streams.metaMu.Unlock()
		if streams, err = db.updateStream(nm, in.StreamSpecification); err != nil {
			return nil, err
		}
	}
	if !changed && in.StreamSpecification == nil && in.SSESpecification == nil {
		return nil, validationError("Nothing to update")
	}
	nm.prepare()

	if created != nil {
		if err := db.backfill(nm, created); err != nil {
			return nil, err
		}
	}
	b := db.pdb.NewBatch()
	defer b.Close()
	if deleted != nil {
		p := appendDataPrefix(nil, m.ID, deleted.ID)
		if err := b.DeleteRange(p, keyEnd(p), nil); err != nil {
			return nil, err
		}
	}
	if len(streams) > 0 {
		if err := db.writeStreams(b, streams); err != nil {
			return nil, err
		}
	}
	if err := db.commitMeta(b, t, nm); err != nil {
		return nil, err
	}
	db.publishStreams(streams)

	d := db.describe(nm, nil)
	for i := range d.GlobalSecondaryIndexes {
		g := &d.GlobalSecondaryIndexes[i]
		if created != nil && aws.ToString(g.IndexName) == created.Name {
			g.IndexStatus = types.IndexStatusCreating
			g.Backfilling = aws.Bool(false)
			g.ItemCount, g.IndexSizeBytes = nil, nil
		}
	}
	if deleted != nil {
		g := db.describe(m, nil)
		for _, x := range g.GlobalSecondaryIndexes {
			if aws.ToString(x.IndexName) == deleted.Name {
				x.IndexStatus = types.IndexStatusDeleting
				x.ItemCount, x.IndexSizeBytes = nil, nil
				d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, x)
			}
		}
	}
	return &dynamodb.UpdateTableOutput{TableDescription: d}, nil
}

// newGSI validates a GSI creation and adds it to nm.
func (db *DB) newGSI(nm *tableMeta, c *types.CreateGlobalSecondaryIndexAction, ads []types.AttributeDefinition) (*indexMeta, error) {
	if c.IndexName == nil {
		return nil, validationError("Invalid global secondary index name")
	}
	if len(ads) == 0 {
		return nil, validationError("No Attribute Schema Defined")
	}
	name := aws.ToString(c.IndexName)
	if !validName(name) {
		return nil, validationError(msgTableName)
	}
	if nm.index(name) != nil {
		return nil, validationError("Attempting to create an index which already exists")
	}
	if n := countGlobal(nm); n >= maxGSIs {
		return nil, limitExceeded("Subscriber limit exceeded: The number of global secondary indexes exceeds the limit")
	}
	defs, err := attrDefs(ads)
	if err != nil {
		return nil, err
	}
	for _, a := range nm.Attrs {
		if t, ok := defs[a.Name]; ok && t != a.Type {
			return nil, validationError("invalid attribute, SchemaElement redefined should be of same type as previously defined")
		}
		defs[a.Name] = a.Type
	}
	hashes, ranges, err := gsiKeySchema(c.KeySchema, defs)
	if err != nil {
		return nil, err
	}
	pt, nk, err := projection(c.Projection)
	if err != nil {
		return nil, err
	}
	ix := &indexMeta{
		Name: name, ID: nm.NextIndexID, Global: true,
		Projection: pt, NonKey: nk, Created: db.now(),
	}
	ix.setKeys(hashes, ranges)
	if nm.BillingMode == string(types.BillingModeProvisioned) {
		if ix.RCU, ix.WCU, err = throughput(c.ProvisionedThroughput, "global secondary index"); err != nil {
			return nil, err
		}
	} else if c.ProvisionedThroughput != nil {
		ix.RCU = aws.ToInt64(c.ProvisionedThroughput.ReadCapacityUnits)
		ix.WCU = aws.ToInt64(c.ProvisionedThroughput.WriteCapacityUnits)
	}
	if err := checkProjectedCount(append(slices.Clone(nm.Indexes), ix)); err != nil {
		return nil, err
	}
	nm.NextIndexID++
	nm.Indexes = append(nm.Indexes, ix)
	var all []attrDef
	for n, t := range defs {
		all = append(all, attrDef{Name: n, Type: t})
	}
	nm.Attrs = usedAttrs(nm, all)
	return ix, nil
}

func countGlobal(m *tableMeta) int {
	n := 0
	for _, ix := range m.Indexes {
		if ix.Global {
			n++
		}
	}
	return n
}

// usedAttrs returns the definitions of the attributes the keys of m use,
// sorted by name (as DynamoDB Local lists them after an update).
func usedAttrs(m *tableMeta, defs []attrDef) []attrDef {
	used := map[string]bool{m.Hash: true, m.Range: true}
	for _, ix := range m.Indexes {
		used[ix.Hash], used[ix.Range] = true, true
		for _, a := range append(ix.MoreHash, ix.MoreRange...) {
			used[a.Name] = true
		}
	}
	var out []attrDef
	seen := map[string]bool{}
	for _, a := range defs {
		if used[a.Name] && a.Name != "" && !seen[a.Name] {
			out = append(out, a)
			seen[a.Name] = true
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// backfill writes the entries of a new index for all items of the table.
// The table is locked exclusively. Items whose index key attributes have the
// wrong type are left out of the index.
func (db *DB) backfill(m *tableMeta, ix *indexMeta) error {
	b := db.pdb.NewBatch()
	defer func() { b.Close() }()
	p := appendDataPrefix(nil, m.ID, ix.ID)
	if err := b.DeleteRange(p, keyEnd(p), nil); err != nil {
		return err
	}
	err := db.forEachItem(m, func(key []byte, item Item) error {
		if !hasKeyTypes(item, ix) {
			return nil
		}
		pk, _ := m.primaryKeyOf(item, append([]byte(nil), key...))
		ek, proj, ok := m.indexEntry(ix, item, pk)
		if !ok {
			return nil
		}
		if err := setEntry(b, ek, proj); err != nil {
			return err
		}
		if b.Len() >= backfillBatchSize {
			if err := db.commit(b, pebble.NoSync); err != nil {
				return err
			}
			b.Close()
			b = db.pdb.NewBatch()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return db.commit(b, pebble.NoSync)
}

func hasKeyTypes(item Item, ix *indexMeta) bool {
	for _, a := range append(ix.hashes, ix.ranges...) {
		if v, ok := item[a.Name]; ok && value.TypeOf(v).String() != a.Type {
			return false
		}
	}
	return true
}

// countNonNil counts the true values of set.
func countNonNil(set ...bool) int {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	return n
}

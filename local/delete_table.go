package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteTable deletes a table, its indexes and all their items.
func (db *DB) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return tableRun(db, "DeleteTable", in.TableName, in, db.deleteTable)
}

func (db *DB) deleteTable(t *table, in *dynamodb.DeleteTableInput) (*dynamodb.DeleteTableOutput, error) {
	// Lock order: a table's mu before catMu (writers to several tables
	// hold table locks while they look tables up).
	m, err := db.lockForWrite(t)
	if err != nil {
		return nil, err
	}
	defer t.mu.Unlock()
	if m.Protected {
		return nil, validationf("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	st, err := db.stats(m)
	if err != nil {
		return nil, err
	}
	b := db.pdb.NewBatch()
	defer b.Close()
	if err := b.Delete(tableCatalogKey(m.Name), nil); err != nil {
		return nil, err
	}
	if err := b.DeleteRange(tablePrefix(m.ID), keyEnd(tablePrefix(m.ID)), nil); err != nil {
		return nil, err
	}
	if err := b.DeleteRange(ttlPrefix(m.ID), keyEnd(ttlPrefix(m.ID)), nil); err != nil {
		return nil, err
	}
	db.streams.metaMu.Lock()
	defer db.streams.metaMu.Unlock()
	closed, err := db.tableGone(m)
	if err != nil {
		return nil, err
	}
	if closed != nil {
		if err := db.writeStreams(b, []*streamMeta{closed}); err != nil {
			return nil, err
		}
	}
	if err := db.commit(b, db.wo); err != nil {
		return nil, err
	}
	if closed != nil {
		db.publishStreams([]*streamMeta{closed})
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	t.dropped = true
	delete(db.tables, m.Name)
	// The table is gone at once, but DynamoDB describes it as DELETING
	// (DynamoDB Local says ACTIVE; docs/compat.md).
	d := db.describe(m, st)
	d.TableStatus = types.TableStatusDeleting
	return &dynamodb.DeleteTableOutput{TableDescription: d}, nil
}

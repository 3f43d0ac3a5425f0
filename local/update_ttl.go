package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"
)

// UpdateTimeToLive enables or disables TTL on a table. Enabling enters the
// table's existing items in the TTL queue before it returns.
func (db *DB) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return run(ctx, db, "UpdateTimeToLive", in, db.updateTTL)
}

func (db *DB) updateTTL(_ context.Context, in *dynamodb.UpdateTimeToLiveInput) (*dynamodb.UpdateTimeToLiveOutput, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil {
		return nil, validationError("TimeToLiveSpecification cannot be null")
	}
	if spec.AttributeName == nil {
		return nil, validationError("AttributeName cannot be null when time to live is being enabled")
	}
	attr := aws.ToString(spec.AttributeName)
	if len(attr) == 0 || len(attr) > 255 {
		return nil, validationError(msgKeyNameLength)
	}
	enable := aws.ToBool(spec.Enabled)
	t, err := db.table(*in.TableName)
	if err != nil {
		return nil, err
	}
	m, err := db.lockForWrite(t)
	if err != nil {
		return nil, err
	}
	defer t.mu.Unlock()
	switch {
	case m.TTLAttr != "" && m.TTLAttr != attr:
		return nil, validationError("TimeToLive is active on a different AttributeName")
	case enable && m.TTLAttr != "":
		return nil, validationError("TimeToLive is already enabled")
	case !enable && m.TTLAttr == "":
		return nil, validationError("TimeToLive is already disabled")
	}
	nm := m.clone()
	b := db.pdb.NewBatch()
	defer b.Close()
	if enable {
		nm.TTLAttr = attr
		if err := db.fillTTLQueue(b, nm); err != nil {
			return nil, err
		}
	} else {
		nm.TTLAttr = ""
		p := ttlPrefix(m.ID)
		if err := b.DeleteRange(p, keyEnd(p), nil); err != nil {
			return nil, err
		}
	}
	if err := db.commitMeta(b, t, nm); err != nil {
		return nil, err
	}
	return &dynamodb.UpdateTimeToLiveOutput{TimeToLiveSpecification: &types.TimeToLiveSpecification{
		AttributeName: aws.String(attr), Enabled: aws.Bool(enable),
	}}, nil
}

// fillTTLQueue adds to b a TTL queue entry for every item of the table that
// has the TTL attribute m.TTLAttr. The table must be locked exclusively.
func (db *DB) fillTTLQueue(b *pebble.Batch, m *tableMeta) error {
	return db.forEachItem(m, func(key []byte, item Item) error {
		if exp, ok := expiryOf(item, m.TTLAttr); ok {
			return b.Set(appendTTLKey(nil, m.ID, exp, key[dataPrefixLen:]), nil, nil)
		}
		return nil
	})
}

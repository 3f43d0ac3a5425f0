package local

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// maxTransactItems is the most operations a TransactWriteItems or
// TransactGetItems call may hold.
const maxTransactItems = 100

// TransactWriteItems performs up to 100 condition checks, puts, updates and
// deletes, on distinct items of one or more tables, atomically: all of them
// or none. When a condition fails (or an update is invalid for its item) it
// returns a *types.TransactionCanceledException with one reason per item, in
// request order. A ClientRequestToken makes the call idempotent for ten
// minutes.
func (db *DB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return operation(db, "TransactWriteItems", func() (*dynamodb.TransactWriteItemsOutput, error) {
		return db.transactWrite(in, db.writeOptions(ctx))
	})
}

func (db *DB) transactWrite(in *dynamodb.TransactWriteItemsInput, wo *pebble.WriteOptions) (*dynamodb.TransactWriteItemsOutput, error) {
	if len(in.TransactItems) == 0 {
		return nil, validationError("Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	if len(in.TransactItems) > maxTransactItems {
		return nil, validationError("Member must have length less than or equal to 100")
	}
	var names []string
	for i, ti := range in.TransactItems {
		n := 0
		var table *string
		if ti.ConditionCheck != nil {
			n++
			table = ti.ConditionCheck.TableName
			if ti.ConditionCheck.ConditionExpression == nil {
				return nil, validationf("Value null at 'transactItems.%d.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null", i+1)
			}
		}
		if ti.Put != nil {
			n++
			table = ti.Put.TableName
		}
		if ti.Update != nil {
			n++
			table = ti.Update.TableName
		}
		if ti.Delete != nil {
			n++
			table = ti.Delete.TableName
		}
		if n == 0 {
			return nil, validationError("Invalid Request: TransactWriteRequest should contain Delete or Put or Update request")
		}
		if n > 1 {
			return nil, validationError("TransactItems can only contain one of Check, Put, Update or Delete")
		}
		if err := checkTableName(table); err != nil {
			return nil, err
		}
		names = append(names, *table)
	}
	var fp [32]byte
	token := aws.ToString(in.ClientRequestToken)
	if token != "" {
		if len(token) > 36 {
			return nil, validationError("1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36")
		}
		fp = fingerprint(in.TransactItems)
	}
	// DynamoDB Local checks a transaction in two passes over its
	// operations. The first compiles each operation's expressions and
	// validates a Put's item (a failure is a plain ValidationException).
	// The second takes each operation in turn to the end: table, placeholders
	// without expressions, key (a type mismatch becomes the operation's
	// cancellation reason), nested paths of the condition, the condition
	// (a reason), updates of key attributes (which cancel the transaction
	// with that reason alone), nested paths of the update, the update
	// itself (a plain ValidationException) and, last, whether an earlier
	// operation that passed touched the same item. An error thrown by an
	// operation wins over the reasons of earlier ones.
	for _, ti := range in.TransactItems {
		if err := precheckTxItem(ti); err != nil {
			return nil, err
		}
	}
	if token != "" {
		if used, same := db.tokens.lookup(token, fp, db.now()); used {
			if !same {
				return nil, &types.IdempotentParameterMismatchException{Message: aws.String("")}
			}
			// Already applied: report success without writing again.
			var us usageSet
			for _, name := range names {
				us.get(name).units += 2 * writeUnits(0)
			}
			return &dynamodb.TransactWriteItemsOutput{ConsumedCapacity: consumedList(us.order, in.ReturnConsumedCapacity)}, nil
		}
	}
	ms, unlockTables := db.lockExisting(names)
	defer unlockTables()
	unlockItems := db.locks.lockAll(txKeys(in.TransactItems, names, ms))
	defer unlockItems()
	// The items are read in the order of the operations through one
	// itemReader, which needs them all locked.
	r := itemReader{db: db}
	defer r.close()
	writes := make([]*tableWrite, len(in.TransactItems))
	reasons := make([]error, len(in.TransactItems))
	failed := false
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		m := ms[names[i]]
		if m == nil {
			return nil, notFound(msgTableNotFound)
		}
		if err := placeholdersWithoutExpr(&ti); err != nil {
			return nil, err
		}
		w, err := db.prepareTxItem(m, ti)
		if err != nil {
			var ae interface{ ErrorMessage() string }
			if errors.As(err, &ae) && (ae.ErrorMessage() == msgKeyType || ae.ErrorMessage() == msgIndexKeyType) {
				reasons[i], failed = err, true
				continue
			}
			return nil, err
		}
		tw := &tableWrite{m: m, w: w, readOld: m.needsOld(w)}
		if tw.readOld {
			if tw.old, err = r.get(w.key.key); err != nil {
				return nil, err
			}
		}
		if tw.new, err = m.apply(w, tw.old); err != nil {
			var fatal *errFatal
			var alone *errAlone
			switch {
			case errors.As(err, &fatal):
				return nil, fatal.err
			case errors.As(err, &alone):
				return nil, canceled([]error{alone.err}, []*tableWrite{tw})
			}
			reasons[i], failed = err, true
			writes[i] = tw
			continue
		}
		if seen[string(w.key.key)] {
			return nil, validationError("Transaction request cannot include multiple operations on one item")
		}
		seen[string(w.key.key)] = true
		writes[i] = tw
	}
	if failed {
		return nil, canceled(reasons, writes)
	}
	var us usageSet
	if err := db.commitWrites(writes, &us, wo); err != nil {
		return nil, err
	}
	if token != "" {
		db.tokens.add(token, fp, db.now())
	}
	for _, u := range us.order {
		u.scale(2)
	}
	return &dynamodb.TransactWriteItemsOutput{ConsumedCapacity: consumedList(us.order, in.ReturnConsumedCapacity)}, nil
}

// prepareTxItem validates one operation of a transaction against its table.
func (db *DB) prepareTxItem(m *tableMeta, ti types.TransactWriteItem) (*itemWrite, error) {
	switch {
	case ti.ConditionCheck != nil:
		c := ti.ConditionCheck
		w, err := db.prepareDelete(m, c.Key, c.ConditionExpression, nil, "", c.ExpressionAttributeNames, c.ExpressionAttributeValues, "", c.ReturnValuesOnConditionCheckFailure)
		if w != nil {
			w.del, w.check = false, true
		}
		return w, err
	case ti.Put != nil:
		p := ti.Put
		return db.preparePut(m, p.Item, p.ConditionExpression, nil, "", p.ExpressionAttributeNames, p.ExpressionAttributeValues, "", p.ReturnValuesOnConditionCheckFailure)
	case ti.Update != nil:
		u := ti.Update
		return db.prepareUpdate(m, u.Key, u.UpdateExpression, nil, u.ConditionExpression, nil, "", u.ExpressionAttributeNames, u.ExpressionAttributeValues, "", u.ReturnValuesOnConditionCheckFailure)
	}
	d := ti.Delete
	return db.prepareDelete(m, d.Key, d.ConditionExpression, nil, "", d.ExpressionAttributeNames, d.ExpressionAttributeValues, "", d.ReturnValuesOnConditionCheckFailure)
}

// precheckTxItem compiles the expressions of one operation, reporting
// syntax errors and unused placeholders, and validates a Put's item.
func precheckTxItem(ti types.TransactWriteItem) error {
	var names map[string]string
	var values Item
	var exprs []func(c *expr.Compiler) error
	cond := func(s *string) {
		if s != nil {
			exprs = append(exprs, func(c *expr.Compiler) error { _, err := c.Condition(*s); return err })
		}
	}
	switch {
	case ti.ConditionCheck != nil:
		names, values = ti.ConditionCheck.ExpressionAttributeNames, ti.ConditionCheck.ExpressionAttributeValues
		cond(ti.ConditionCheck.ConditionExpression)
	case ti.Put != nil:
		names, values = ti.Put.ExpressionAttributeNames, ti.Put.ExpressionAttributeValues
		cond(ti.Put.ConditionExpression)
	case ti.Delete != nil:
		names, values = ti.Delete.ExpressionAttributeNames, ti.Delete.ExpressionAttributeValues
		cond(ti.Delete.ConditionExpression)
	case ti.Update != nil:
		names, values = ti.Update.ExpressionAttributeNames, ti.Update.ExpressionAttributeValues
		if u := ti.Update.UpdateExpression; u != nil {
			exprs = append(exprs, func(c *expr.Compiler) error { _, err := c.Update(*u); return err })
		}
		cond(ti.Update.ConditionExpression)
	}
	if len(exprs) > 0 {
		c := expr.NewCompiler(names, values)
		for _, f := range exprs {
			if err := f(c); err != nil {
				return err
			}
		}
		if err := c.Finish(); err != nil {
			return err
		}
	}
	if ti.Put != nil {
		item, err := normalizeItem(ti.Put.Item)
		if err != nil {
			return err
		}
		if itemSize(item) > maxItemSize {
			return validationError(msgItemSize)
		}
	}
	return nil
}

// placeholdersWithoutExpr returns DynamoDB's error for an operation that
// has ExpressionAttributeNames or ExpressionAttributeValues but no
// expression, and clears them from ti so that the operation can still be
// evaluated.
func placeholdersWithoutExpr(ti *types.TransactWriteItem) error {
	var names *map[string]string
	var values *map[string]types.AttributeValue
	var hasExpr bool
	var what string
	switch {
	case ti.Put != nil:
		p := *ti.Put
		ti.Put = &p
		names, values, hasExpr, what = &p.ExpressionAttributeNames, &p.ExpressionAttributeValues, p.ConditionExpression != nil, "ConditionExpression is null"
	case ti.Delete != nil:
		d := *ti.Delete
		ti.Delete = &d
		names, values, hasExpr, what = &d.ExpressionAttributeNames, &d.ExpressionAttributeValues, d.ConditionExpression != nil, "ConditionExpression is null"
	default:
		return nil
	}
	if hasExpr {
		return nil
	}
	var err error
	if len(*values) > 0 {
		err = validationError("ExpressionAttributeValues can only be specified when using expressions: " + what)
	}
	if len(*names) > 0 {
		err = validationError("ExpressionAttributeNames can only be specified when using expressions")
	}
	*names, *values = nil, nil
	return err
}

// txKeys returns the storage keys of the operations whose table and key
// are valid, to lock them before the operations are checked one by one.
func txKeys(items []types.TransactWriteItem, names []string, ms map[string]*tableMeta) [][]byte {
	var keys [][]byte
	for i, ti := range items {
		m := ms[names[i]]
		if m == nil {
			continue
		}
		var k *primaryKey
		var err error
		switch {
		case ti.ConditionCheck != nil:
			k, err = m.keyFromMap(ti.ConditionCheck.Key)
		case ti.Put != nil:
			k, err = m.keyFromItem(ti.Put.Item)
		case ti.Update != nil:
			k, err = m.keyFromMap(ti.Update.Key)
		default:
			k, err = m.keyFromMap(ti.Delete.Key)
		}
		if err == nil {
			keys = append(keys, k.key)
		}
	}
	return keys
}

// canceled builds the TransactionCanceledException for per-item errors.
func canceled(errs []error, writes []*tableWrite) error {
	reasons := make([]types.CancellationReason, len(errs))
	codes := make([]string, len(errs))
	for i, e := range errs {
		var ec *errCondition
		switch {
		case e == nil:
			reasons[i] = types.CancellationReason{Code: aws.String("None")}
		case errors.As(e, &ec):
			msg := msgConditionFailed
			if i < len(writes) && writes[i] != nil && writes[i].w.check {
				msg += "." // DynamoDB Local's wording for ConditionCheck
			}
			reasons[i] = types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Message: aws.String(msg)}
			if i < len(writes) && writes[i] != nil && writes[i].w.onFail == types.ReturnValuesOnConditionCheckFailureAllOld && ec.old != nil {
				reasons[i].Item = ec.old
			}
		default:
			msg := e.Error()
			var ae interface{ ErrorMessage() string }
			if errors.As(e, &ae) {
				msg = ae.ErrorMessage()
			}
			reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(msg)}
		}
		codes[i] = *reasons[i].Code
	}
	return &types.TransactionCanceledException{
		Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"),
		CancellationReasons: reasons,
	}
}

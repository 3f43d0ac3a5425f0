package local

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	return run(ctx, db, "TransactWriteItems", in, db.transactWrite)
}

func (db *DB) transactWrite(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	wo := db.writeOptions(ctx)
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
	ops := txOps(in.TransactItems)
	var fp [32]byte
	token := aws.ToString(in.ClientRequestToken)
	if token != "" {
		if len(token) > 36 {
			return nil, validationf("Value %s at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36", token)
		}
		fp = fingerprint(ops)
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
	for i := range ops {
		if err := ops[i].precheck(); err != nil {
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
	if err := db.writable(); err != nil {
		return nil, err
	}
	ms, unlockTables := db.lockExisting(names)
	defer unlockTables()
	unlockItems := db.locks.lockAll(txKeys(ops, names, ms))
	defer unlockItems()
	// The items are read in the order of the operations through one
	// itemReader, which needs them all locked.
	r := itemReader{db: db}
	defer r.close()
	writes := make([]*tableWrite, len(in.TransactItems))
	reasons := make([]error, len(in.TransactItems))
	failed := false
	seen := map[string]bool{}
	for i := range ops {
		op := &ops[i]
		m := ms[names[i]]
		if m == nil {
			return nil, notFound(msgTableNotFound)
		}
		if err := op.placeholdersWithoutExpr(); err != nil {
			return nil, err
		}
		w, err := op.prepare(db, m)
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

// txOp is one operation of a TransactWriteItems call, whatever its kind.
type txOp struct {
	kind  string // "check", "put", "update" or "delete"
	table *string
	key   Item // the item, for a put
	req   writeRequest
}

// txOps returns the operations of items, each of which holds exactly one
// (transactWrite checks it first).
func txOps(items []types.TransactWriteItem) []txOp {
	ops := make([]txOp, len(items))
	for i, ti := range items {
		switch {
		case ti.ConditionCheck != nil:
			c := ti.ConditionCheck
			ops[i] = txOp{"check", c.TableName, c.Key, writeRequest{cond: c.ConditionExpression,
				names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, onFail: c.ReturnValuesOnConditionCheckFailure}}
		case ti.Put != nil:
			p := ti.Put
			ops[i] = txOp{"put", p.TableName, p.Item, writeRequest{cond: p.ConditionExpression,
				names: p.ExpressionAttributeNames, values: p.ExpressionAttributeValues, onFail: p.ReturnValuesOnConditionCheckFailure}}
		case ti.Update != nil:
			u := ti.Update
			ops[i] = txOp{"update", u.TableName, u.Key, writeRequest{cond: u.ConditionExpression, update: u.UpdateExpression,
				names: u.ExpressionAttributeNames, values: u.ExpressionAttributeValues, onFail: u.ReturnValuesOnConditionCheckFailure, isUpdate: true}}
		default:
			d := ti.Delete
			ops[i] = txOp{"delete", d.TableName, d.Key, writeRequest{cond: d.ConditionExpression,
				names: d.ExpressionAttributeNames, values: d.ExpressionAttributeValues, onFail: d.ReturnValuesOnConditionCheckFailure}}
		}
	}
	return ops
}

// prepare validates the operation against its table.
func (op *txOp) prepare(db *DB, m *tableMeta) (*itemWrite, error) {
	switch op.kind {
	case "put":
		return db.preparePut(m, op.key, &op.req)
	case "update":
		return db.prepareUpdate(m, op.key, &op.req)
	}
	w, err := db.prepareDelete(m, op.key, &op.req)
	if w != nil && op.kind == "check" {
		w.del, w.check = false, true
	}
	return w, err
}

// precheck compiles the expressions of the operation, reporting syntax
// errors and unused placeholders, and validates a put's item.
func (op *txOp) precheck() error {
	if op.req.update != nil || op.req.cond != nil {
		c := expr.NewCompiler(op.req.names, op.req.values)
		if op.req.update != nil {
			if _, err := c.Update(*op.req.update); err != nil {
				return err
			}
		}
		if op.req.cond != nil {
			if _, err := c.Condition(*op.req.cond); err != nil {
				return err
			}
		}
		if err := c.Finish(); err != nil {
			return err
		}
	}
	if op.kind == "put" {
		item, err := normalizeItem(op.key)
		if err != nil {
			return err
		}
		if itemSize(item) > maxItemSize {
			return validationError(msgItemSize)
		}
	}
	return nil
}

// placeholdersWithoutExpr returns DynamoDB's error for a put or delete that
// has ExpressionAttributeNames or ExpressionAttributeValues but no
// condition, and clears them from the operation so that it can still be
// evaluated.
func (op *txOp) placeholdersWithoutExpr() error {
	if (op.kind != "put" && op.kind != "delete") || op.req.cond != nil {
		return nil
	}
	var err error
	if len(op.req.values) > 0 {
		err = validationError("ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
	}
	if len(op.req.names) > 0 {
		err = validationError("ExpressionAttributeNames can only be specified when using expressions")
	}
	op.req.names, op.req.values = nil, nil
	return err
}

// txKeys returns the storage keys of the operations whose table and key
// are valid, to lock them before the operations are checked one by one.
func txKeys(ops []txOp, names []string, ms map[string]*tableMeta) [][]byte {
	var keys [][]byte
	for i, op := range ops {
		m := ms[names[i]]
		if m == nil {
			continue
		}
		keyOf := m.keyFromMap
		if op.kind == "put" {
			keyOf = m.keyFromItem
		}
		if k, err := keyOf(op.key); err == nil {
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

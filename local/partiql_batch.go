package local

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/local/internal/partiql"
)

// maxBatchStatements is the most statements a BatchExecuteStatement holds.
const maxBatchStatements = 25

// BatchExecuteStatement runs up to 25 PartiQL statements, all reads
// (SELECTs of one item by its whole primary key) or all writes (INSERT,
// UPDATE, DELETE, on distinct items), each on its own: Responses holds, in
// request order, each statement's item (reads) or its Error, whose Code is
// DynamoDB's (ConditionalCheckFailed, DuplicateItem, ResourceNotFound,
// ValidationError); a write's Item is what its RETURNING clause asks for.
// ConsumedCapacity, when asked for, has one entry per table in the order
// of first use, as BatchGetItem's and BatchWriteItem's: a read is charged
// for the item it found (by its ConsistentRead), a write as the single
// write it is; a statement that failed is not charged.
func (db *DB) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	return run(ctx, db, "BatchExecuteStatement", in, db.batchExecute)
}

func (db *DB) batchExecute(ctx context.Context, in *dynamodb.BatchExecuteStatementInput) (*dynamodb.BatchExecuteStatementOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if len(in.Statements) == 0 {
		return nil, validationError("The statement was empty.")
	}
	// An invalid parameter value (a number that is not one, an empty
	// set) refuses the whole batch, before any statement is parsed, as in
	// DynamoDB Local.
	for _, s := range in.Statements {
		if err := checkParams(s.Parameters); err != nil {
			return nil, err
		}
	}
	n := len(in.Statements)
	stmts := make([]partiql.Statement, n)
	errs := make([]error, n)
	reads, writes := 0, 0
	for i, s := range in.Statements {
		if err := checkReturnOnFailure(s.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		text := aws.ToString(s.Statement)
		st, err := parseStatement(text, s.Parameters)
		if err != nil {
			if !startsStatement(text) {
				err = validationError("Invalid operation. Only select, insert, update and delete operations are valid")
			}
			errs[i] = err
			continue
		}
		stmts[i] = st
		switch st.(type) {
		case *partiql.Select:
			reads++
		case *partiql.Exists:
			errs[i] = validationError("EXISTS can only be used in ExecuteTransaction write requests.")
		default:
			writes++
		}
	}
	if reads > 0 && writes > 0 {
		return nil, validationError("Read and write requests together in the same batch is not supported.")
	}
	if n > maxBatchStatements {
		if reads > 0 {
			return nil, validationError("BatchGetItem cannot fetch more than 25 items")
		}
		return nil, validationError("BatchWriteItem cannot write more than 25 items")
	}
	out := &dynamodb.BatchExecuteStatementOutput{Responses: make([]types.BatchStatementResponse, n)}
	// Capacity is reported per table, in the order of first use, as by
	// BatchGetItem and BatchWriteItem: a read is charged for the item it
	// found (none for an absent one), a write as the single write it is.
	var us usageSet
	if reads > 0 {
		// Every key is read before any item, as BatchGetItem: two
		// statements on one item fail the whole batch.
		gets := make([]*pqGet, n)
		seen := map[string]bool{}
		for i, st := range stmts {
			if errs[i] != nil {
				continue
			}
			if gets[i], errs[i] = db.pqBatchKey(st.(*partiql.Select), in.Statements[i].Parameters); errs[i] != nil {
				continue
			}
			k := string(gets[i].key.key)
			if seen[k] {
				return nil, validationError("Provided list of item keys contains duplicates")
			}
			seen[k] = true
		}
		for i, get := range gets {
			if errs[i] != nil {
				continue
			}
			var size int
			if out.Responses[i], size, errs[i] = db.pqBatchGet(get); errs[i] == nil {
				u := us.get(get.table)
				u.read = true
				if size > 0 {
					u.units += readUnits(size, aws.ToBool(in.Statements[i].ConsistentRead))
				}
			}
		}
	} else {
		ops := make([]*txOp, n)
		seen := map[string]bool{}
		for i, st := range stmts {
			if errs[i] != nil {
				continue
			}
			if ops[i], errs[i] = db.pqWriteOp(st, in.Statements[i].Parameters, in.Statements[i].ReturnValuesOnConditionCheckFailure); errs[i] != nil {
				continue
			}
			if k := db.opKey(ops[i]); k != "" {
				if seen[k] {
					return nil, validationError("Provided list of item keys contains duplicates")
				}
				seen[k] = true
			}
		}
		for i, op := range ops {
			if errs[i] != nil {
				continue
			}
			attrs, u, err := db.pqWrite(ctx, op, in.ReturnConsumedCapacity)
			if err != nil {
				errs[i] = err
			} else {
				addUsage(us.get(*op.table), u)
			}
			// A write that ran names its table, also with its error; one
			// refused before it ran does not, as in DynamoDB Local.
			out.Responses[i].Item = attrs
			out.Responses[i].TableName = op.table
		}
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		be, err := batchStatementError(err)
		if err != nil {
			return nil, err
		}
		out.Responses[i].Error = be
	}
	out.ConsumedCapacity = consumedList(us.order, in.ReturnConsumedCapacity)
	return out, nil
}

// startsStatement reports whether text begins with the keyword of a
// statement.
func startsStatement(text string) bool {
	f := strings.Fields(strings.TrimLeft(text, " \t\r\n("))
	if len(f) == 0 {
		return false
	}
	w := strings.ToUpper(f[0])
	for _, k := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "EXISTS"} {
		if w == k || strings.HasPrefix(w, k+"(") {
			return true
		}
	}
	return false
}

// opKey identifies the item a write changes, "" when its key is invalid.
func (db *DB) opKey(op *txOp) string {
	t, err := db.table(*op.table)
	if err != nil {
		return ""
	}
	m := t.m()
	keyOf := m.keyFromMap
	if op.kind == "put" {
		keyOf = m.keyFromItem
	}
	k, err := keyOf(op.key)
	if err != nil {
		return ""
	}
	return string(k.key)
}

// pqGet is the read of one item by a SELECT of a batch.
type pqGet struct {
	table string
	key   *primaryKey
	proj  *pqProjection
}

// pqBatchKey checks a SELECT of a batch and returns the read of the one
// item it names.
func (db *DB) pqBatchKey(st *partiql.Select, params []types.AttributeValue) (*pqGet, error) {
	t, err := db.table(st.Table)
	if err != nil {
		return nil, err
	}
	m := t.m()
	if st.Index != "" || st.Where == nil {
		return nil, validationError("Only single item select is supported")
	}
	key, rest, err := newPQExprs(params).itemKey(m, st.Where)
	if err == nil && len(rest) == 0 {
		err = checkPQKey(m, key, true)
	}
	if err != nil || len(rest) > 0 || len(st.OrderBy) > 0 {
		var ae smithy.APIError
		if err == nil || (errors.As(err, &ae) && ae.ErrorMessage() == msgPQKeyEquality) {
			err = validationError("Only single item select is supported")
		}
		return nil, err
	}
	proj, err := newPQProjection(st.Projection)
	if err != nil {
		return nil, err
	}
	k, err := m.keyFromMap(key)
	if err != nil {
		return nil, err
	}
	return &pqGet{table: m.Name, key: k, proj: proj}, nil
}

// pqBatchGet reads the item of get; size is the whole item's, 0 when it
// is absent.
func (db *DB) pqBatchGet(get *pqGet) (r types.BatchStatementResponse, size int, err error) {
	item, err := db.getRaw(get.key.key)
	if err != nil {
		return r, 0, err
	}
	r.TableName = aws.String(get.table)
	if item != nil {
		size = itemSize(item)
		r.Item = get.proj.applyDoc(item)
	}
	return r, size, nil
}

// batchStatementError turns the error of one statement into its
// BatchStatementError; errors that are not the statement's are returned.
func batchStatementError(err error) (*types.BatchStatementError, error) {
	var (
		cf *types.ConditionalCheckFailedException
		di *types.DuplicateItemException
		nf *types.ResourceNotFoundException
		ae smithy.APIError
	)
	switch {
	case errors.As(err, &cf):
		return &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumConditionalCheckFailed, Message: cf.Message, Item: cf.Item}, nil
	case errors.As(err, &di):
		return &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumDuplicateItem, Message: di.Message}, nil
	case errors.As(err, &nf):
		return &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumResourceNotFound, Message: nf.Message}, nil
	case errors.As(err, &ae) && ae.ErrorCode() == "ValidationException":
		return &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumValidationError, Message: aws.String(ae.ErrorMessage())}, nil
	}
	return nil, err
}

// ExecuteTransaction runs up to 100 PartiQL statements atomically: all
// SELECTs of single items by primary key (read together, as
// TransactGetItems), or all writes (INSERT, UPDATE, DELETE and EXISTS
// condition checks, as TransactWriteItems). A failed condition cancels the
// transaction with a TransactionCanceledException whose reasons follow
// DynamoDB Local (an INSERT of an existing item is a ValidationError
// "Duplicate primary key exists in table"). ClientRequestToken makes it
// idempotent, as in TransactWriteItems.
func (db *DB) ExecuteTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput, _ ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error) {
	return run(ctx, db, "ExecuteTransaction", in, db.executeTransaction)
}

func (db *DB) executeTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput) (*dynamodb.ExecuteTransactionOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	n := len(in.TransactStatements)
	if n == 0 {
		return nil, validationError("ExecutePartiQLTransaction can not have empty statement.")
	}
	if n > maxTransactItems {
		return nil, validationError("Member must have length less than or equal to 100")
	}
	stmts := make([]partiql.Statement, n)
	reads, writes := 0, 0
	for i, s := range in.TransactStatements {
		if err := checkReturnOnFailure(s.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		if err := checkStatementLength(aws.ToString(s.Statement)); err != nil {
			return nil, err
		}
		if err := checkParams(s.Parameters); err != nil {
			return nil, err
		}
		st, err := partiql.Parse(aws.ToString(s.Statement))
		if err != nil {
			return nil, validationError(msgPQSyntax + aws.ToString(s.Statement))
		}
		if partiql.Params(st) > len(s.Parameters) {
			return nil, txValidation(i, msgPQParams)
		}
		stmts[i] = st
		if _, ok := st.(*partiql.Select); ok {
			reads++
		} else {
			writes++
		}
	}
	if reads > 0 && writes > 0 {
		return nil, validationError("ExecuteTransaction API does not support both read and write operations in the same request.")
	}
	if reads > 0 {
		return db.pqTransactGet(stmts, in)
	}
	items := make([]types.TransactWriteItem, n)
	ops := make([]*txOp, n)
	for i, st := range stmts {
		// DynamoDB Local checks a statement (its table, key, conditions,
		// update paths and key types) before its RETURNING clause, and
		// statements in order.
		op, err := db.pqWriteOp(st, in.TransactStatements[i].Parameters, in.TransactStatements[i].ReturnValuesOnConditionCheckFailure)
		if err != nil {
			return nil, txStatementError(i, n, txError(err))
		}
		if returning(st) != "" {
			return nil, txValidation(i, "RETURNING clause is not supported in ExecuteTransaction.")
		}
		ops[i], items[i] = op, op.transactItem()
	}
	// Two statements on one item refuse the transaction before any
	// condition is evaluated, as in DynamoDB Local (TransactWriteItems
	// looks only at the operations before a failed one).
	seen := map[string]bool{}
	for _, op := range ops {
		if k := db.opKey(op); k != "" {
			if seen[k] {
				return nil, validationError("Transaction request cannot include multiple operations on one item")
			}
			seen[k] = true
		}
	}
	out, err := db.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: items, ClientRequestToken: in.ClientRequestToken, ReturnConsumedCapacity: in.ReturnConsumedCapacity,
	})
	if err != nil {
		return nil, pqCanceled(ops, txError(stripExprKind(err)))
	}
	return &dynamodb.ExecuteTransactionOutput{Responses: []types.ItemResponse{}, ConsumedCapacity: out.ConsumedCapacity}, nil
}

// returning returns the RETURNING clause of a write, "" if none.
func returning(st partiql.Statement) partiql.Returning {
	switch st := st.(type) {
	case *partiql.Update:
		return st.Returning
	case *partiql.Delete:
		return st.Returning
	}
	return ""
}

// txStatementError gives the error of statement i of n DynamoDB Local's
// form: a key of the wrong type cancels the transaction, with the reason
// ValidationError for it and None for the others (the first such statement
// only); any other ValidationException is prefixed with its place.
func txStatementError(i, n int, err error) error {
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" {
		return err
	}
	if strings.HasPrefix(ae.ErrorMessage(), msgPQKeyType) {
		return txCanceledAt(i, n, ae.ErrorMessage())
	}
	return txValidation(i, ae.ErrorMessage())
}

// txCanceledAt returns the cancellation of a transaction of n statements by
// statement i: reason ValidationError msg for it, None for the others.
func txCanceledAt(i, n int, msg string) error {
	reasons := make([]types.CancellationReason, n)
	for j := range reasons {
		reasons[j].Code = aws.String("None")
	}
	reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(msg)}
	return canceledWith(reasons)
}

// canceledWith returns a TransactionCanceledException with reasons, its
// message naming their codes.
func canceledWith(reasons []types.CancellationReason) *types.TransactionCanceledException {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = aws.ToString(r.Code)
	}
	return &types.TransactionCanceledException{
		Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"),
		CancellationReasons: reasons,
	}
}

func txValidation(i int, msg string) error {
	return validationError(fmt.Sprintf("Validation failed in TransactStatements[%d]: %s", i, msg))
}

// txError gives the errors of a transaction's statements DynamoDB Local's
// form: an unknown table is "Requested resource not found", and a WHERE
// clause without the whole key cancels the transaction.
func txError(err error) error {
	var nf *types.ResourceNotFoundException
	var ae smithy.APIError
	switch {
	case errors.As(err, &nf):
		return notFound("Requested resource not found")
	case errors.As(err, &ae) && ae.ErrorMessage() == msgPQKeyEquality:
		return &types.TransactionCanceledException{Message: aws.String("ValidationError " + msgPQKeyEquality)}
	}
	return err
}

// pqCanceled rewrites the reasons of a canceled transaction: an INSERT
// whose item exists fails with DynamoDB Local's ValidationError.
func pqCanceled(ops []*txOp, err error) error {
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) || len(tc.CancellationReasons) != len(ops) {
		return err
	}
	for i, r := range tc.CancellationReasons {
		if ops[i].kind == "put" && aws.ToString(r.Code) == "ConditionalCheckFailed" {
			tc.CancellationReasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(msgPQDuplicate)}
		}
	}
	return canceledWith(tc.CancellationReasons)
}

// transactItem is the TransactWriteItem of op.
func (op *txOp) transactItem() types.TransactWriteItem {
	r := &op.req
	switch op.kind {
	case "put":
		return types.TransactWriteItem{Put: &types.Put{TableName: op.table, Item: op.key, ConditionExpression: r.cond,
			ExpressionAttributeNames: r.names, ExpressionAttributeValues: r.values, ReturnValuesOnConditionCheckFailure: r.onFail}}
	case "update":
		return types.TransactWriteItem{Update: &types.Update{TableName: op.table, Key: op.key, UpdateExpression: r.update, ConditionExpression: r.cond,
			ExpressionAttributeNames: r.names, ExpressionAttributeValues: r.values, ReturnValuesOnConditionCheckFailure: r.onFail}}
	case "check":
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: op.table, Key: op.key, ConditionExpression: r.cond,
			ExpressionAttributeNames: r.names, ExpressionAttributeValues: r.values, ReturnValuesOnConditionCheckFailure: r.onFail}}
	}
	return types.TransactWriteItem{Delete: &types.Delete{TableName: op.table, Key: op.key, ConditionExpression: r.cond,
		ExpressionAttributeNames: r.names, ExpressionAttributeValues: r.values, ReturnValuesOnConditionCheckFailure: r.onFail}}
}

// pqTransactGet reads the items of a transaction of SELECTs, each by its
// whole primary key, as TransactGetItems does.
func (db *DB) pqTransactGet(stmts []partiql.Statement, in *dynamodb.ExecuteTransactionInput) (*dynamodb.ExecuteTransactionOutput, error) {
	gets := make([]types.TransactGetItem, len(stmts))
	projs := make([]*pqProjection, len(stmts))
	for i, st := range stmts {
		sel := st.(*partiql.Select)
		t, err := db.table(sel.Table)
		if err != nil {
			return nil, txError(err)
		}
		m := t.m()
		var key Item
		var rest []partiql.Expr
		if sel.Where != nil && sel.Index == "" {
			key, rest, err = newPQExprs(in.TransactStatements[i].Parameters).itemKey(m, sel.Where)
			if err == nil && len(rest) == 0 {
				err = checkPQKey(m, key, true)
			}
		}
		if sel.Where == nil || sel.Index != "" || err != nil || len(rest) > 0 {
			var ae smithy.APIError
			if err == nil || (errors.As(err, &ae) && ae.ErrorMessage() == msgPQKeyEquality) {
				return nil, txValidation(i, "Select statements within ExecuteTransaction must specify the primary key in the where clause.")
			}
			return nil, txStatementError(i, len(stmts), err)
		}
		// A key value the key refuses (an empty string) cancels the
		// transaction, as DynamoDB Local.
		if _, err := m.keyFromMap(key); err != nil {
			var ae smithy.APIError
			if errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" {
				return nil, txCanceledAt(i, len(stmts), ae.ErrorMessage())
			}
			return nil, err
		}
		if projs[i], err = newPQProjection(sel.Projection); err != nil {
			return nil, txStatementError(i, len(stmts), err)
		}
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(sel.Table), Key: key}}
	}
	out, err := db.transactGet(context.Background(), &dynamodb.TransactGetItemsInput{TransactItems: gets, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
	if err != nil {
		return nil, err
	}
	for i := range out.Responses {
		if out.Responses[i].Item != nil {
			out.Responses[i].Item = projs[i].applyDoc(out.Responses[i].Item)
		}
	}
	return &dynamodb.ExecuteTransactionOutput{Responses: out.Responses, ConsumedCapacity: out.ConsumedCapacity}, nil
}

package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/wire"
)

// DynamoDBOptions configure Store.DynamoDB. A nil *DynamoDBOptions is
// valid.
type DynamoDBOptions struct {
	// Wire are the options of the wire.Handler; its Authorize is set by
	// Store.DynamoDB. Its Budget, if set, also holds the copy of each body
	// the signature check makes, from before it is read until the answer.
	Wire *wire.Options
	// Protected are the tables only an admin key reaches, beside the auth
	// table: the web analytics' table (visitor salts, site settings).
	Protected []string
}

// DynamoDB returns the DynamoDB endpoint over api with its access
// checks: SigV4 (every request signed by a known key, from the first
// start), then, once the request's body is read, the key's Principal is
// asked (Principal.Allows) for the scope the operation needs on each table
// the request names:
//
//   - read: GetItem, BatchGetItem, Query, Scan, TransactGetItems,
//     DescribeTable, DescribeTimeToLive, ListTables, DescribeLimits,
//     DescribeEndpoints, ListTagsOfResource, the Streams reads
//     (ListStreams, DescribeStream, GetShardIterator, GetRecords) and
//     PartiQL statements that all SELECT (or EXISTS);
//   - write: PutItem, UpdateItem, DeleteItem, BatchWriteItem,
//     TransactWriteItems and PartiQL with an INSERT, UPDATE or DELETE;
//   - admin: every other operation (CreateTable, DeleteTable, UpdateTable,
//     UpdateTimeToLive, TagResource, backups...), and any operation on a
//     protected table (the auth table, o.Protected) or on a table that
//     cannot be told from the request (a PartiQL statement this check
//     does not parse).
//
// The tables are read from the body alone (TableName, RequestItems'
// names, TransactItems' TableNames, the table of a StreamArn, ResourceArn
// or ShardIterator, the table of each PartiQL statement); every value a
// request gives for one of those members is checked, whatever its case or
// repetition. A refusal is DynamoDB's AccessDeniedException, 400.
func (s *Store) DynamoDB(api timetable.API, o *DynamoDBOptions) http.Handler {
	var wo wire.Options
	var protected []string
	if o != nil {
		if o.Wire != nil {
			wo = *o.Wire
		}
		protected = slices.Clone(o.Protected)
	}
	protected = append(protected, s.t.Name())
	wo.Authorize = func(ctx context.Context, target string, body []byte) error {
		return authorizeDynamoDB(FromContext(ctx), target, body, protected)
	}
	return s.sigV4(wire.New(api, &wo), wo.Budget)
}

// The X-Amz-Target prefixes of DynamoDB and DynamoDB Streams.
const (
	dynamoDBTarget = "DynamoDB_20120810."
	streamsTarget  = "DynamoDBStreams_20120810."
)

// dynamoReads are the operations that only read; dynamoWrites those
// that write items. Every other operation needs ScopeAdmin.
var (
	dynamoReads = map[string]bool{
		"GetItem": true, "BatchGetItem": true, "Query": true, "Scan": true, "TransactGetItems": true,
		"DescribeTable": true, "DescribeTimeToLive": true, "ListTables": true, "DescribeLimits": true,
		"DescribeEndpoints": true, "ListTagsOfResource": true, "DescribeContinuousBackups": true,
	}
	dynamoWrites = map[string]bool{
		"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true,
	}
	streamsReads = map[string]bool{"ListStreams": true, "DescribeStream": true, "GetShardIterator": true, "GetRecords": true}
	partiQLOps   = map[string]bool{"ExecuteStatement": true, "BatchExecuteStatement": true, "ExecuteTransaction": true}
)

// authorizeDynamoDB checks that p may run the operation of target with
// body, and returns DynamoDB's AccessDeniedException if not.
func authorizeDynamoDB(p *Principal, target string, body []byte, protected []string) error {
	op, need := "", ScopeAdmin
	switch {
	case strings.HasPrefix(target, dynamoDBTarget):
		op = target[len(dynamoDBTarget):]
		switch {
		case dynamoReads[op]:
			need = ScopeRead
		case dynamoWrites[op]:
			need = ScopeWrite
		}
	case strings.HasPrefix(target, streamsTarget):
		op = target[len(streamsTarget):]
		if streamsReads[op] {
			need = ScopeRead
		}
	default:
		return nil // not an operation: the handler answers UnknownOperationException
	}
	req := requestTables(body)
	if need == ScopeAdmin && len(req.tables) == 0 {
		req.unknown = true // an operation on no table named: the whole endpoint's
	}
	if partiQLOps[op] {
		need = ScopeRead
		if req.writes {
			need = ScopeWrite
		}
	}
	if req.unknown {
		if p.Allows(ScopeAdmin, Everything) {
			return nil
		}
		return accessDenied(p, op, Everything, "only an unlimited admin key may run an operation whose tables cannot be told from the request")
	}
	if len(req.tables) == 0 {
		if !p.Allows(need, Table("")) {
			return accessDenied(p, op, Table(""), "")
		}
		return nil
	}
	for _, t := range req.tables {
		n := need
		if slices.Contains(protected, t) {
			n = ScopeAdmin
		}
		if !p.Allows(n, Table(t)) {
			reason := ""
			if n != need {
				reason = "only an admin key reaches this table"
			}
			return accessDenied(p, op, Table(t), reason)
		}
	}
	return nil
}

// accessDenied is DynamoDB's answer to an operation the caller's policy
// does not allow.
func accessDenied(p *Principal, op string, res Resource, reason string) error {
	user := "anonymous"
	if p != nil {
		user = p.String()
	}
	on := "table/" + res.name
	switch {
	case res.area == areaAll:
		on = "*"
	case res.name == "":
		on = "table/*"
	}
	msg := "User: " + user + " is not authorized to perform: dynamodb:" + op + " on resource: " + on
	if reason != "" {
		msg += " (" + reason + ")"
	}
	return &wire.Error{Code: "AccessDeniedException", Message: msg, Status: http.StatusBadRequest}
}

// tablesOfRequest is what requestTables finds in a request's body.
type tablesOfRequest struct {
	tables  []string // each table named, once
	writes  bool     // a PartiQL statement writes
	unknown bool     // a table that cannot be told
}

func (q *tablesOfRequest) add(t string) {
	if !slices.Contains(q.tables, t) {
		q.tables = append(q.tables, t)
	}
}

// requestTables reads the tables a DynamoDB request names from its JSON
// body, decoding only the members that name tables: TableName,
// RequestItems' member names, TransactItems' TableNames, StreamArn,
// ResourceArn and TableArn, ShardIterator, and the PartiQL statements
// (Statement, Statements, TransactStatements). Member names are matched
// in any case and every repetition counts, so a request cannot name one
// table to this check and another to the handler. A body that is not a
// JSON object, or one with a member of the wrong type, is unknown: only an
// unlimited admin passes, and the handler then refuses it.
func requestTables(body []byte) tablesOfRequest {
	var q tablesOfRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return q
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := eachMember(dec, func(key string) error {
		switch strings.ToLower(key) {
		case "tablename", "targettablename", "sourcetablename":
			return q.name(dec)
		case "requestitems":
			return eachMember(dec, func(t string) error {
				q.add(t)
				return skip(dec)
			})
		case "transactitems":
			return eachElement(dec, func() error {
				return eachMember(dec, func(string) error { // Get, Put, Update, Delete, ConditionCheck
					return eachMember(dec, func(k string) error {
						if strings.EqualFold(k, "TableName") {
							return q.name(dec)
						}
						return skip(dec)
					})
				})
			})
		case "streamarn", "resourcearn", "tablearn":
			return q.arn(dec, false)
		case "sharditerator":
			return q.arn(dec, true)
		case "statement":
			return q.statement(dec)
		case "statements", "transactstatements":
			return eachElement(dec, func() error {
				return eachMember(dec, func(k string) error {
					if strings.EqualFold(k, "Statement") {
						return q.statement(dec)
					}
					return skip(dec)
				})
			})
		}
		return skip(dec)
	})
	if err != nil {
		q.unknown = true // the handler refuses it; here, only an unlimited admin passes
	}
	return q
}

// name reads a table name.
func (q *tablesOfRequest) name(dec *json.Decoder) error {
	var s string
	if err := dec.Decode(&s); err != nil {
		return err
	}
	q.add(s)
	return nil
}

// arn reads a table's, a stream's or a shard iterator's ARN
// ("arn:aws:dynamodb:REGION:ACCOUNT:table/NAME[/stream/LABEL]", an
// iterator's followed by "|..."), and adds its table.
func (q *tablesOfRequest) arn(dec *json.Decoder, iterator bool) error {
	var s string
	if err := dec.Decode(&s); err != nil {
		return err
	}
	if iterator {
		s, _, _ = strings.Cut(s, "|")
	}
	_, rest, ok := strings.Cut(s, ":table/")
	name, _, _ := strings.Cut(rest, "/")
	if !ok || name == "" {
		q.unknown = true
		return nil
	}
	q.add(name)
	return nil
}

// statement reads a PartiQL statement and adds its table.
func (q *tablesOfRequest) statement(dec *json.Decoder) error {
	var s string
	if err := dec.Decode(&s); err != nil {
		return err
	}
	t, writes, ok := statementTable(s)
	if !ok {
		q.unknown = true
		return nil
	}
	q.writes = q.writes || writes
	q.add(t)
	return nil
}

// eachMember reads a JSON object, calling f with each member's name with
// the decoder before its value, which f must read. A value that is not an
// object is skipped.
func eachMember(dec *json.Decoder, f func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return skipRest(dec, tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := f(key); err != nil {
			return err
		}
	}
	_, err = dec.Token() // '}'
	return err
}

// eachElement reads a JSON array, calling f with the decoder before each
// element, which f must read. A value that is not an array is skipped.
func eachElement(dec *json.Decoder, f func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return skipRest(dec, tok)
	}
	for dec.More() {
		if err := f(); err != nil {
			return err
		}
	}
	_, err = dec.Token() // ']'
	return err
}

// skip reads one JSON value.
func skip(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}

// skipRest reads the rest of a value whose first token was tok.
func skipRest(dec *json.Decoder, tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

package local

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/codec"
)

// DynamoDB Streams: the four operations of *dynamodbstreams.Client on the
// engine's streams (see stream.go). Their errors are the typed exceptions
// of package dynamodbstreams/types, wrapped as the streams client wraps
// them.

// maxRecordsBytes bounds the records of one GetRecords answer: 1 MB.
const maxRecordsBytes = 1 << 20

// streamsOperation is operation for the operations of DynamoDB Streams.
func streamsOperation[Out any](db *DB, op string, fn func() (Out, error)) (Out, error) {
	out, err := guard(db, fn)
	if err != nil {
		return out, &smithy.OperationError{ServiceID: "DynamoDB Streams", OperationName: op, Err: err}
	}
	return out, nil
}

func streamNotFound(arn string) error {
	return &st.ResourceNotFoundException{Message: aws.String("Requested resource not found: Stream: " + arn + " not found")}
}

var errBadIterator = validationError("Invalid ShardIterator")

// ListStreams lists the streams of the DB, or of the table named
// TableName: enabled streams and those disabled less than 24 hours ago,
// those of deleted tables included. As DynamoDB Local does, pages run from
// the oldest stream to the newest and each lists its streams newest first:
// a page holds at most Limit (1 to 100, default 100) of the streams made
// after ExclusiveStartStreamArn, and LastEvaluatedStreamArn, the newest of
// them, is set when more follow.
func (db *DB) ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error) {
	return streamsOperation(db, "ListStreams", func() (*dynamodbstreams.ListStreamsOutput, error) {
		return db.listStreams(in)
	})
}

func (db *DB) listStreams(in *dynamodbstreams.ListStreamsInput) (*dynamodbstreams.ListStreamsOutput, error) {
	limit, err := streamsLimit(in.Limit, 100, "One or more parameter values were invalid: Limit cannot be greater than the maximum allowed size: 100")
	if err != nil {
		return nil, err
	}
	now := db.now()
	db.streams.mu.RLock()
	var all []*streamMeta
	for _, s := range db.streams.byID {
		sm := s.m()
		if sm.expired(now) || (in.TableName != nil && sm.Table != *in.TableName) {
			continue
		}
		all = append(all, sm)
	}
	db.streams.mu.RUnlock()
	// Pages run from the oldest stream to the newest; a page lists its
	// streams newest first (DynamoDB Local's order).
	slices.SortFunc(all, func(a, b *streamMeta) int { return cmp.Compare(a.ID, b.ID) })
	if in.ExclusiveStartStreamArn != nil {
		i := slices.IndexFunc(all, func(sm *streamMeta) bool { return sm.arn() == *in.ExclusiveStartStreamArn })
		if i < 0 {
			all = nil // as DynamoDB Local: an unknown start lists nothing
		} else {
			all = all[i+1:]
		}
	}
	out := &dynamodbstreams.ListStreamsOutput{Streams: []st.Stream{}}
	page := all[:min(limit, len(all))]
	if len(page) < len(all) {
		out.LastEvaluatedStreamArn = aws.String(page[len(page)-1].arn())
	}
	for _, sm := range slices.Backward(page) {
		out.Streams = append(out.Streams, st.Stream{
			StreamArn: aws.String(sm.arn()), StreamLabel: aws.String(sm.Label), TableName: aws.String(sm.Table),
		})
	}
	return out, nil
}

// DescribeStream describes a stream: its status (ENABLED, or DISABLED once
// its table's stream is disabled or the table deleted), view type, key
// schema and its shards, oldest first, each with its parent and the range
// of sequence numbers it holds (EndingSequenceNumber once it is closed):
// at most Limit (1 to 100, default 100) of those after
// ExclusiveStartShardId, with LastEvaluatedShardId when more follow. A
// stream disabled more than 24 hours ago is a ResourceNotFoundException.
func (db *DB) DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	return streamsOperation(db, "DescribeStream", func() (*dynamodbstreams.DescribeStreamOutput, error) {
		return db.describeStream(in)
	})
}

func (db *DB) describeStream(in *dynamodbstreams.DescribeStreamInput) (*dynamodbstreams.DescribeStreamOutput, error) {
	arn := aws.ToString(in.StreamArn)
	if arn == "" {
		return nil, validationError("Invalid StreamArn")
	}
	limit, err := streamsLimit(in.Limit, 100, "One or more parameter values were invalid: Limit cannot be greater than the maximum: 100")
	if err != nil {
		return nil, err
	}
	if in.ExclusiveStartShardId != nil && len(*in.ExclusiveStartShardId) < 28 {
		return nil, validationf("1 validation error detected: Value '%s' at 'exclusiveStartShardId' failed to satisfy constraint: Member must have length greater than or equal to 28", *in.ExclusiveStartShardId)
	}
	s := db.streamByARN(arn)
	if s == nil {
		return nil, streamNotFound(arn)
	}
	if err := db.trimStream(s); err != nil {
		return nil, err
	}
	sm := s.m()
	status := st.StreamStatusEnabled
	if !sm.enabled() {
		status = st.StreamStatusDisabled
	}
	created := sm.Created
	d := &st.StreamDescription{
		StreamArn:               aws.String(arn),
		StreamLabel:             aws.String(sm.Label),
		StreamStatus:            status,
		StreamViewType:          st.StreamViewType(sm.View),
		CreationRequestDateTime: &created,
		TableName:               aws.String(sm.Table),
		KeySchema:               []st.KeySchemaElement{{AttributeName: aws.String(sm.Hash), KeyType: st.KeyTypeHash}},
		Shards:                  []st.Shard{},
	}
	if sm.Range != "" {
		d.KeySchema = append(d.KeySchema, st.KeySchemaElement{AttributeName: aws.String(sm.Range), KeyType: st.KeyTypeRange})
	}
	// Shard ids begin with their creation time: they sort in the order
	// of the list.
	for _, sh := range sm.Shards {
		if in.ExclusiveStartShardId != nil && sh.ID <= *in.ExclusiveStartShardId {
			continue
		}
		if len(d.Shards) == limit {
			d.LastEvaluatedShardId = d.Shards[limit-1].ShardId
			break
		}
		r := &st.SequenceNumberRange{StartingSequenceNumber: aws.String(formatSeq(sh.Start))}
		if end, closed := sm.shardEnd(sh); closed {
			r.EndingSequenceNumber = aws.String(formatSeq(max(end, sh.Start)))
		}
		shard := st.Shard{ShardId: aws.String(sh.ID), SequenceNumberRange: r}
		if sh.Parent != "" {
			shard.ParentShardId = aws.String(sh.Parent)
		}
		d.Shards = append(d.Shards, shard)
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: d}, nil
}

// GetShardIterator returns an iterator on a shard of a stream, valid for 15
// minutes: at its oldest record still kept (TRIM_HORIZON), after its
// newest (LATEST; the end of a closed shard), at or after a sequence
// number (AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER) or at the first
// record made at or after Timestamp (AT_TIMESTAMP). A sequence number of a record already trimmed
// is a TrimmedDataAccessException.
func (db *DB) GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	return streamsOperation(db, "GetShardIterator", func() (*dynamodbstreams.GetShardIteratorOutput, error) {
		return db.getShardIterator(in)
	})
}

func (db *DB) getShardIterator(in *dynamodbstreams.GetShardIteratorInput) (*dynamodbstreams.GetShardIteratorOutput, error) {
	arn := aws.ToString(in.StreamArn)
	if arn == "" {
		return nil, validationError("One or more parameter values were invalid: streamArn cannot be empty or null.")
	}
	if aws.ToString(in.ShardId) == "" {
		return nil, validationError("No ShardId specified.")
	}
	if id := *in.ShardId; len(id) < 28 || len(id) > 65 {
		return nil, validationf("1 validation error detected: Value '%s' at 'shardId' failed to satisfy constraint: Member must have length %s", id, lengthBound(len(id), 28, 65))
	}
	var seq uint64
	typ := in.ShardIteratorType
	switch typ {
	case st.ShardIteratorTypeAtSequenceNumber, st.ShardIteratorTypeAfterSequenceNumber:
		if in.SequenceNumber == nil {
			return nil, validationError("One or more parameter values were invalid: Invalid SequenceNumber")
		}
		n := *in.SequenceNumber
		if len(n) < 21 || len(n) > 40 {
			return nil, validationf("1 validation error detected: Value '%s' at 'sequenceNumber' failed to satisfy constraint: Member must have length %s", n, lengthBound(len(n), 21, 40))
		}
		v, ok := parseDigits(n)
		if !ok {
			return nil, validationError("One or more parameter values were invalid: Invalid SequenceNumber")
		}
		seq = v
	case st.ShardIteratorTypeTrimHorizon, st.ShardIteratorTypeLatest, st.ShardIteratorTypeAtTimestamp:
		if in.SequenceNumber != nil {
			return nil, validationError("One or more parameter values were invalid: SequenceNumber should not be passed for this iterator type")
		}
		if typ == st.ShardIteratorTypeAtTimestamp && in.Timestamp == nil {
			return nil, validationError("One or more parameter values were invalid: Timestamp must be provided for AT_TIMESTAMP iterator type")
		}
	case "":
		return nil, validationError("1 validation error detected: Value null at 'shardIteratorType' failed to satisfy constraint: Member must not be null")
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER, AT_TIMESTAMP]", typ)
	}
	s := db.streamByARN(arn)
	if s == nil {
		return nil, &st.ResourceNotFoundException{Message: aws.String("Stream does not exist")}
	}
	if err := db.trimStream(s); err != nil {
		return nil, err
	}
	sm := s.m()
	sh, ok := sm.shard(*in.ShardId)
	if !ok {
		return nil, &st.ResourceNotFoundException{Message: aws.String("Shard does not exist")}
	}
	var pos uint64
	switch typ {
	case st.ShardIteratorTypeTrimHorizon:
		pos = sm.horizon(sh)
	case st.ShardIteratorTypeLatest:
		pos = db.latest(sm, sh)
	case st.ShardIteratorTypeAtSequenceNumber, st.ShardIteratorTypeAfterSequenceNumber:
		if sm.trimmed(sh, seq) {
			return nil, trimmedError()
		}
		pos = seq
		if typ == st.ShardIteratorTypeAfterSequenceNumber && pos < math.MaxUint64 {
			pos++
		}
	case st.ShardIteratorTypeAtTimestamp:
		if in.Timestamp.After(db.now()) {
			return nil, validationError("One or more parameter values were invalid: Timestamp cannot be in the future")
		}
		var err error
		if pos, err = db.seqAtTime(sm, sh, *in.Timestamp); err != nil {
			return nil, err
		}
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(encodeIterator(sm, sh.ID, pos, db.now()))}, nil
}

// streamsLimit checks the Limit parameter of a streams operation: 1 to
// most, with tooMany the message (each operation words it its own way) of a
// larger one. It returns the limit, most when absent.
func streamsLimit(l *int32, most int, tooMany string) (int, error) {
	switch {
	case l == nil:
		return most, nil
	case *l < 1:
		return 0, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *l)
	case int(*l) > most:
		return 0, validationError(tooMany)
	}
	return int(*l), nil
}

// lengthBound words the length constraint a value of length n fails.
func lengthBound(n, lo, hi int) string {
	if n < lo {
		return fmt.Sprintf("greater than or equal to %d", lo)
	}
	return fmt.Sprintf("less than or equal to %d", hi)
}

func trimmedError() error {
	return &st.TrimmedDataAccessException{Message: aws.String("The operation attempted to read past the oldest stream record in a shard.")}
}

// latest returns the sequence number after the newest record of shard sh
// of stream sm.
func (db *DB) latest(sm *streamMeta, sh shardMeta) uint64 {
	if end, closed := sm.shardEnd(sh); closed {
		return max(end+1, sh.Start)
	}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	return db.nextSeq
}

// seqAtTime returns the sequence number of the first record of shard sh
// of stream sm made at or after t, or after its newest record.
func (db *DB) seqAtTime(sm *streamMeta, sh shardMeta, t time.Time) (uint64, error) {
	ms := t.UnixMilli()
	found := db.latest(sm, sh)
	end, closed := sm.shardEnd(sh)
	err := db.scanRecords(sm.ID, sm.horizon(sh), func(r *storedRecord) bool {
		if closed && r.seq > end {
			return false
		}
		if r.ms >= ms {
			found = r.seq
			return false
		}
		return true
	})
	return found, err
}

// GetRecords returns the records of a shard from the position of
// ShardIterator: at most Limit (1 to 1000, default 1000), and no more than
// 1 MB of them, with NextShardIterator to read on from. NextShardIterator is
// absent once a closed shard (rolled over, or of a disabled stream) has
// been read to its end; its child shard, if any, holds the records after.
// An iterator older than 15 minutes is an ExpiredIteratorException; one
// whose position has been trimmed (records are kept 24 hours) is a
// TrimmedDataAccessException.
func (db *DB) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	return streamsOperation(db, "GetRecords", func() (*dynamodbstreams.GetRecordsOutput, error) {
		return db.getRecords(in)
	})
}

func (db *DB) getRecords(in *dynamodbstreams.GetRecordsInput) (*dynamodbstreams.GetRecordsOutput, error) {
	limit, err := streamsLimit(in.Limit, 1000, "One or more parameter values were invalid: Limit should be less than or equal to 1000")
	if err != nil {
		return nil, err
	}
	it, ok := parseIterator(aws.ToString(in.ShardIterator))
	if !ok {
		return nil, errBadIterator
	}
	s := db.streamByARN(it.arn)
	if s == nil {
		return nil, streamNotFound(it.arn)
	}
	now := db.now()
	if it.issued.After(now.Add(time.Minute)) || now.Sub(it.issued) > iteratorLifetime {
		return nil, &st.ExpiredIteratorException{Message: aws.String("Iterator expired. The iterator was created at time " +
			it.issued.UTC().Format(time.RFC3339) + " while right now it's " + now.UTC().Format(time.RFC3339) + " which is further in the future than the tolerated delay of 900000 milliseconds.")}
	}
	if err := db.trimStream(s); err != nil {
		return nil, err
	}
	badShard := &st.ResourceNotFoundException{Message: aws.String("Invalid ShardId in ShardIterator")}
	sm := s.m()
	sh, ok := sm.shard(it.shard)
	if !ok {
		return nil, badShard
	}
	if sm.trimmed(sh, it.seq) {
		return nil, trimmedError()
	}
	if testHookGetRecords != nil {
		testHookGetRecords()
	}
	iter, err := db.recordIter(sm.ID, it.seq)
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	// The description is loaded again after the iterator is open: if a
	// record the iterator holds went to a later shard, the rollover is
	// in it (see rollShard).
	sm = s.m()
	if sh, ok = sm.shard(it.shard); !ok {
		return nil, badShard
	}
	end, closed := sm.shardEnd(sh)
	out := &dynamodbstreams.GetRecordsOutput{Records: []st.Record{}}
	next, bytes := it.seq, 0
	err = eachRecord(iter, func(r *storedRecord) bool {
		if closed && r.seq > end {
			return false
		}
		rec := sm.record(r)
		size := int(*rec.Dynamodb.SizeBytes)
		if len(out.Records) > 0 && bytes+size > maxRecordsBytes {
			return false
		}
		bytes += size
		out.Records = append(out.Records, rec)
		next = r.seq + 1
		return len(out.Records) < limit
	})
	if err != nil {
		return nil, err
	}
	if !closed || next <= end {
		out.NextShardIterator = aws.String(encodeIterator(sm, sh.ID, next, now))
	}
	return out, nil
}

// testHookGetRecords, when set by a test, runs in GetRecords between its
// first look at the stream's description and the opening of its iterator.
var testHookGetRecords func()

// scanRecords calls fn with the records of stream id from sequence number
// from on, in order, until fn returns false.
func (db *DB) scanRecords(id uint32, from uint64, fn func(*storedRecord) bool) error {
	it, err := db.recordIter(id, from)
	if err != nil {
		return err
	}
	defer it.Close()
	return eachRecord(it, fn)
}

// recordIter opens an iterator over the records of stream id from
// sequence number from on.
func (db *DB) recordIter(id uint32, from uint64) (*pebble.Iterator, error) {
	return db.pdb.NewIter(&pebble.IterOptions{LowerBound: recordKey(id, from), UpperBound: keyEnd(streamPrefix(id))})
}

// eachRecord calls fn with the records of it, in order, until fn returns
// false.
func eachRecord(it *pebble.Iterator, fn func(*storedRecord) bool) error {
	for it.First(); it.Valid(); it.Next() {
		r, err := decodeRecord(binary.BigEndian.Uint64(it.Key()[5:]), it.Value())
		if err != nil {
			return err
		}
		if !fn(r) {
			break
		}
	}
	return it.Error()
}

// record turns a stored record into the SDK's form.
func (sm *streamMeta) record(r *storedRecord) st.Record {
	names := [...]st.OperationType{eventInsert: st.OperationTypeInsert, eventModify: st.OperationTypeModify, eventRemove: st.OperationTypeRemove}
	size := codec.ItemSize(r.keys) + codec.ItemSize(r.new) + codec.ItemSize(r.old)
	when := time.UnixMilli(r.ms).Truncate(time.Second)
	sr := &st.StreamRecord{
		ApproximateCreationDateTime: &when,
		Keys:                        toStreamItem(r.keys),
		NewImage:                    toStreamItem(r.new),
		OldImage:                    toStreamItem(r.old),
		SequenceNumber:              aws.String(formatSeq(r.seq)),
		SizeBytes:                   aws.Int64(int64(size)),
		StreamViewType:              st.StreamViewType(sm.View),
	}
	rec := st.Record{
		AwsRegion:    aws.String(strings.Split(arnPrefix, ":")[3]),
		Dynamodb:     sr,
		EventID:      aws.String(eventID(sm.ID, r.seq)),
		EventName:    names[r.event],
		EventSource:  aws.String("aws:dynamodb"),
		EventVersion: aws.String("1.1"),
	}
	if r.ttl {
		rec.UserIdentity = &st.Identity{PrincipalId: aws.String("dynamodb.amazonaws.com"), Type: aws.String("Service")}
	}
	return rec
}

// eventID returns the id of a record, unique in the DB: a UUID made of the
// stream id and the sequence number.
func eventID(stream uint32, seq uint64) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", stream, seq&(1<<48-1))
}

package timetable

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// StreamsAPI is the method set of aws-sdk-go-v2's *dynamodbstreams.Client:
// the four operations of DynamoDB Streams, the change log of a table whose
// StreamSpecification enables it. The real client satisfies it, and so does
// the embedded engine in package local (*local.DB implements both API and
// StreamsAPI), so a stream consumer runs on either backend unchanged.
//
// Implementations are safe for concurrent use. Errors are the SDK's own:
// the typed exceptions of package dynamodbstreams/types
// (*types.ResourceNotFoundException, *types.ExpiredIteratorException,
// *types.TrimmedDataAccessException, ...), otherwise a smithy.APIError
// whose ErrorCode is DynamoDB's (such as "ValidationException").
type StreamsAPI interface {
	ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ StreamsAPI = (*dynamodbstreams.Client)(nil)

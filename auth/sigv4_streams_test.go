package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"
)

// TestSigV4_StreamsClient: aws-sdk-go-v2's DynamoDB Streams client, which
// signs with the service name "dynamodb", passes the SigV4 check in front of
// wire over the engine with a good key, and is refused with a wrong secret.
func TestSigV4_StreamsClient(t *testing.T) {
	ctx := context.Background()
	db, _, _, k, srv := sigv4Engine(t)
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("auth_s"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly},
	}); err != nil {
		t.Fatal(err)
	}
	client := func(secret string) *dynamodbstreams.Client {
		return dynamodbstreams.New(dynamodbstreams.Options{
			Region:           "eu-central-1",
			BaseEndpoint:     aws.String(srv.URL),
			Credentials:      credentials.NewStaticCredentialsProvider(k.ID, secret, ""),
			RetryMaxAttempts: 1,
		})
	}
	out, err := client(k.Secret).ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("auth_s")})
	if err != nil || len(out.Streams) != 1 {
		t.Fatalf("ListStreams with a good key: %+v, %v", out, err)
	}
	_, err = client(k.Secret[1:]+"A").ListStreams(ctx, &dynamodbstreams.ListStreamsInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidSignatureException" {
		t.Fatalf("ListStreams with a wrong secret: %v", err)
	}
}

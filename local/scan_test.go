package local_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

func TestScan_Segments(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true})
	createTable(t, db, "tbl", "")
	for i := range 200 {
		put(t, db, "tbl", attrs("pk", s(fmt.Sprint("k", i))))
	}
	seen := map[string]bool{}
	for seg := range int32(4) {
		var esk map[string]types.AttributeValue
		for {
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(4),
				Limit: aws.Int32(7), ExclusiveStartKey: esk})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				k := it["pk"].(*types.AttributeValueMemberS).Value
				if seen[k] {
					t.Fatalf("%s seen twice", k)
				}
				seen[k] = true
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			esk = out.LastEvaluatedKey
		}
	}
	if len(seen) != 200 {
		t.Fatalf("segments covered %d items", len(seen))
	}
	_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Segment: aws.Int32(4), TotalSegments: aws.Int32(4)})
	wantAPIError(t, err, "ValidationException", "Member must have value less than or equal to 3")
}

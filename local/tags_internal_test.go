package local

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FuzzTableOfARN: the ARN parser never panics, and a name it returns is a
// valid table name that ends the ARN.
func FuzzTableOfARN(f *testing.F) {
	for _, s := range []string{arnPrefix + "tbl", "arn:aws:dynamodb:us-east-1:123456789012:table/x.y-z", "arn:aws:dynamodb:r:1:table/t/index/i", "arn:::::", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arn string) {
		name, err := tableOfARN(arn)
		if err != nil {
			return
		}
		if !validName(name) || !strings.HasSuffix(arn, ":table/"+name) {
			t.Fatalf("tableOfARN(%q) = %q", arn, name)
		}
	})
}

// FuzzCheckTags: tag checks never panic, and tags they accept are sorted,
// unique and within DynamoDB's limits.
func FuzzCheckTags(f *testing.F) {
	f.Add("a", "b", "c", "d")
	f.Add("aws:x", "", "a", "a")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		out, err := checkTags([]types.Tag{{Key: aws.String(k1), Value: aws.String(v1)}, {Key: aws.String(k2), Value: aws.String(v2)}})
		if err != nil {
			return
		}
		if len(out) != 2 || out[0].Key >= out[1].Key {
			t.Fatalf("checkTags = %v", out)
		}
		merged, err := mergeTags(out[:1], out[1:])
		if err != nil || len(merged) != 2 {
			t.Fatalf("mergeTags = %v, %v", merged, err)
		}
	})
}

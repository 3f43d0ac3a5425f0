package dynamotest

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestRequire_SkipsWhenUnset(t *testing.T) {
	t.Setenv(EndpointEnv, "")
	reached := false
	t.Run("unset", func(t *testing.T) {
		Require(t)
		reached = true
	})
	if reached {
		t.Fatalf("Require went on with %s unset", EndpointEnv)
	}
}

func TestNewClient_Settings(t *testing.T) {
	f := func(want string, opts ...func(*dynamodb.Options)) {
		t.Helper()
		o := NewClient("http://127.0.0.1:1", opts...).Options()
		if o.Region != "us-east-1" || o.BaseEndpoint == nil || *o.BaseEndpoint != "http://127.0.0.1:1" {
			t.Errorf("region %q, endpoint %v", o.Region, o.BaseEndpoint)
		}
		creds, err := o.Credentials.Retrieve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if creds.AccessKeyID != want {
			t.Errorf("access key %q, want %q", creds.AccessKeyID, want)
		}
	}
	f("test")
	f("conformance", AccessKey("conformance"))
}

func TestTableName(t *testing.T) {
	a, b := TableName(t, "p"), TableName(t, "p")
	if a == b || !strings.HasPrefix(a, "p_TestTableName_") {
		t.Fatalf("TableName = %q, %q", a, b)
	}
	t.Run("sub test/with spaces", func(t *testing.T) {
		if n := TableName(t, "p"); strings.ContainsAny(n, "/ ") {
			t.Fatalf("TableName = %q", n)
		}
	})
}

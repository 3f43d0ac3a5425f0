package wire_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// clientOp is one operation called through the SDK client, with its input
// and output types.
type clientOp struct {
	name string
	run  func(t *testing.T, c *dynamodb.Client, s *stub, f *filler)
}

func roundTrip[I, O any](name string, call func(*dynamodb.Client, context.Context, *I, ...func(*dynamodb.Options)) (*O, error)) clientOp {
	return clientOp{name: name, run: func(t *testing.T, c *dynamodb.Client, s *stub, f *filler) {
		t.Helper()
		in, want := new(I), new(O)
		f.fill(reflect.ValueOf(in).Elem())
		f.fill(reflect.ValueOf(want).Elem())
		s.set(want, nil)
		got, err := call(c, context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := diff(reflect.ValueOf(s.input()), reflect.ValueOf(in), "input"); d != "" {
			t.Errorf("%s: the API got a different input: %s", name, d)
		}
		clearMetadata(got)
		if d := diff(reflect.ValueOf(got), reflect.ValueOf(want), "output"); d != "" {
			t.Errorf("%s: the client got a different output: %s", name, d)
		}
	}}
}

var clientOps = []clientOp{
	roundTrip("CreateTable", (*dynamodb.Client).CreateTable),
	roundTrip("DescribeTable", (*dynamodb.Client).DescribeTable),
	roundTrip("DeleteTable", (*dynamodb.Client).DeleteTable),
	roundTrip("ListTables", (*dynamodb.Client).ListTables),
	roundTrip("UpdateTable", (*dynamodb.Client).UpdateTable),
	roundTrip("UpdateTimeToLive", (*dynamodb.Client).UpdateTimeToLive),
	roundTrip("DescribeTimeToLive", (*dynamodb.Client).DescribeTimeToLive),
	roundTrip("GetItem", (*dynamodb.Client).GetItem),
	roundTrip("PutItem", (*dynamodb.Client).PutItem),
	roundTrip("UpdateItem", (*dynamodb.Client).UpdateItem),
	roundTrip("DeleteItem", (*dynamodb.Client).DeleteItem),
	roundTrip("Query", (*dynamodb.Client).Query),
	roundTrip("Scan", (*dynamodb.Client).Scan),
	roundTrip("BatchGetItem", (*dynamodb.Client).BatchGetItem),
	roundTrip("BatchWriteItem", (*dynamodb.Client).BatchWriteItem),
	roundTrip("TransactGetItems", (*dynamodb.Client).TransactGetItems),
	roundTrip("TransactWriteItems", (*dynamodb.Client).TransactWriteItems),
}

// TestHandler_RoundTrip sends every operation, with every member of its
// input set to random values, from the real SDK client through the handler
// to an API that records what it got and answers with a random output, and
// checks that both arrive unchanged.
func TestHandler_RoundTrip(t *testing.T) {
	s := &stub{}
	c, _ := serve(t, s)
	for _, op := range clientOps {
		t.Run(op.name, func(t *testing.T) {
			for seed := range uint64(20) {
				op.run(t, c, s, &filler{rng: rand.New(rand.NewPCG(seed, 7))})
			}
		})
	}
}

// exceptions are the SDK's typed DynamoDB errors.
var exceptions = []smithy.APIError{
	&types.BackupInUseException{}, &types.BackupNotFoundException{},
	&types.ConditionalCheckFailedException{}, &types.ContinuousBackupsUnavailableException{},
	&types.DuplicateItemException{}, &types.ExportConflictException{}, &types.ExportNotFoundException{},
	&types.GlobalTableAlreadyExistsException{}, &types.GlobalTableNotFoundException{},
	&types.IdempotentParameterMismatchException{}, &types.ImportConflictException{},
	&types.ImportNotFoundException{}, &types.IndexNotFoundException{}, &types.InternalServerError{},
	&types.InvalidEndpointException{}, &types.InvalidExportTimeException{}, &types.InvalidRestoreTimeException{},
	&types.ItemCollectionSizeLimitExceededException{}, &types.LimitExceededException{},
	&types.PointInTimeRecoveryUnavailableException{}, &types.PolicyNotFoundException{},
	&types.ProvisionedThroughputExceededException{}, &types.ReplicaAlreadyExistsException{},
	&types.ReplicaNotFoundException{}, &types.ReplicatedWriteConflictException{}, &types.RequestLimitExceeded{},
	&types.ResourceInUseException{}, &types.ResourceNotFoundException{}, &types.TableAlreadyExistsException{},
	&types.TableInUseException{}, &types.TableNotFoundException{}, &types.ThrottlingException{},
	&types.TransactionCanceledException{}, &types.TransactionConflictException{},
	&types.TransactionInProgressException{},
}

// TestHandler_Exceptions returns each typed SDK exception, with all its
// members set, from the API and checks that the client gets the same typed
// error with the same members, wrapped as the real client wraps it.
func TestHandler_Exceptions(t *testing.T) {
	s := &stub{}
	c, _ := serve(t, s)
	for i, proto := range exceptions {
		name := reflect.TypeOf(proto).Elem().Name()
		t.Run(name, func(t *testing.T) {
			want := reflect.New(reflect.TypeOf(proto).Elem())
			(&filler{rng: rand.New(rand.NewPCG(uint64(i), 1))}).fill(want.Elem())
			s.set(nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "ListTables", Err: want.Interface().(error)})
			_, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
			if err == nil {
				t.Fatal("no error")
			}
			got := reflect.New(reflect.TypeOf(proto))
			if !errors.As(err, got.Interface()) {
				t.Fatalf("errors.As(%T) false for %v", proto, err)
			}
			if d := diff(got.Elem(), want, "error"); d != "" {
				t.Errorf("%s", d)
			}
			var oe *smithy.OperationError
			if !errors.As(err, &oe) || oe.OperationName != "ListTables" {
				t.Errorf("not an OperationError for ListTables: %v", err)
			}
		})
	}
}

// TestHandler_GenericErrors checks errors without an SDK type: a
// ValidationException keeps its code and message; an error that is not an
// API error becomes InternalServerError with status 500 and without its
// text.
func TestHandler_GenericErrors(t *testing.T) {
	s := &stub{}
	c, _ := serve(t, s)

	s.set(nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "One or more parameter values were invalid", Fault: smithy.FaultClient})
	_, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" || ae.ErrorMessage() != "One or more parameter values were invalid" {
		t.Errorf("ValidationException: got %v", err)
	}

	s.set(nil, errors.New("disk on fire"))
	_, err = c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	var ise *types.InternalServerError
	if !errors.As(err, &ise) {
		t.Fatalf("plain error: got %v, want InternalServerError", err)
	}
	if ise.ErrorMessage() == "disk on fire" {
		t.Errorf("internal error text leaked to the client")
	}
}

// diff returns the path and values of the first difference between a and
// b, or "".
func diff(a, b reflect.Value, path string) string {
	if a.IsValid() != b.IsValid() {
		return fmt.Sprintf("%s: valid %v vs %v", path, a.IsValid(), b.IsValid())
	}
	if !a.IsValid() {
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: type %s vs %s", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if d := diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() && a.Type().Elem().Kind() != reflect.Uint8 {
			return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d (%v vs %v)", path, a.Len(), b.Len(), a.MapKeys(), b.MapKeys())
		}
		for _, k := range a.MapKeys() {
			if d := diff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%q]", path, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: %#v vs %#v", path, a.Interface(), b.Interface())
	}
	return ""
}

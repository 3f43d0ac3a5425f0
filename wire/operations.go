package wire

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
)

// operation serves one DynamoDB operation: it decodes body into the
// operation's input, calls the API and appends the encoded output to e.
type operation struct {
	name  string
	serve func(ctx context.Context, body []byte, e *encoder) error

	// needsHost asks ServeHTTP for the request's Host in ctx (hostKey).
	needsHost bool
}

// apiMethod is the shape of every timetable.API method as a method
// expression.
type apiMethod[I, O any] func(timetable.API, context.Context, *I, ...func(*dynamodb.Options)) (*O, error)

// typedOp builds the statically typed operation for one API method.
func typedOp[I, O any](api timetable.API, name string, call apiMethod[I, O]) *operation {
	return codecOp[I, O](name, func(ctx context.Context, in *I) (*O, error) { return call(api, ctx, in) })
}

func mustCodec(t reflect.Type) *codec {
	c, err := codecFor(t)
	if err != nil {
		panic(fmt.Sprintf("wire: no codec for %s: %v", t, err))
	}
	return c
}

// operations returns the operations served over api: the timetable.API
// methods, plus any other method of api's concrete type that has the SDK
// client's shape for a DynamoDB operation, such as
//
//	DescribeLimits(context.Context, *dynamodb.DescribeLimitsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error)
//
// so a backend serves an optional operation by having the method (the SDK
// client itself has them all).
func operations(api timetable.API) map[string]*operation {
	ops := map[string]*operation{}
	add := func(op *operation) { ops[op.name] = op }
	add(typedOp(api, "CreateTable", timetable.API.CreateTable))
	add(typedOp(api, "DescribeTable", timetable.API.DescribeTable))
	add(typedOp(api, "DeleteTable", timetable.API.DeleteTable))
	add(typedOp(api, "ListTables", timetable.API.ListTables))
	add(typedOp(api, "UpdateTable", timetable.API.UpdateTable))
	add(typedOp(api, "UpdateTimeToLive", timetable.API.UpdateTimeToLive))
	add(typedOp(api, "DescribeTimeToLive", timetable.API.DescribeTimeToLive))
	add(typedOp(api, "GetItem", timetable.API.GetItem))
	add(typedOp(api, "PutItem", timetable.API.PutItem))
	add(typedOp(api, "UpdateItem", timetable.API.UpdateItem))
	add(typedOp(api, "DeleteItem", timetable.API.DeleteItem))
	add(typedOp(api, "Query", timetable.API.Query))
	add(typedOp(api, "Scan", timetable.API.Scan))
	add(typedOp(api, "BatchGetItem", timetable.API.BatchGetItem))
	add(typedOp(api, "BatchWriteItem", timetable.API.BatchWriteItem))
	add(typedOp(api, "TransactGetItems", timetable.API.TransactGetItems))
	add(typedOp(api, "TransactWriteItems", timetable.API.TransactWriteItems))
	itemJSONOps(api, ops)

	rv := reflect.ValueOf(api)
	rt := rv.Type()
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		if ops[m.Name] != nil {
			continue
		}
		if op := reflectOp(rv.Method(i), m.Name); op != nil {
			add(op)
		}
	}
	add(describeEndpointsOp())
	return ops
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
	sdkPkgPath  = reflect.TypeFor[dynamodb.Client]().PkgPath()
)

// reflectOp returns the operation for method name of an API value when it
// has the SDK client's shape, or nil.
func reflectOp(method reflect.Value, name string) *operation {
	mt := method.Type()
	if mt.NumIn() != 3 || !mt.IsVariadic() || mt.In(0) != contextType ||
		mt.NumOut() != 2 || mt.Out(1) != errorType {
		return nil
	}
	inT, outT := mt.In(1), mt.Out(0)
	if !isSDKShape(inT, name+"Input") || !isSDKShape(outT, name+"Output") ||
		mt.In(2) != reflect.TypeFor[[]func(*dynamodb.Options)]() {
		return nil
	}
	in, err1 := codecFor(inT.Elem())
	out, err2 := codecFor(outT.Elem())
	if err1 != nil || err2 != nil {
		return nil
	}
	return &operation{name: name, serve: func(ctx context.Context, body []byte, e *encoder) error {
		input := reflect.New(inT.Elem())
		if err := decodeDocument(body, in, input.Elem(), maxDepth); err != nil {
			return err
		}
		res := method.Call([]reflect.Value{reflect.ValueOf(ctx), input})
		if err, _ := res[1].Interface().(error); err != nil {
			return err
		}
		if res[0].IsNil() {
			e.buf = append(e.buf, "{}"...)
			return nil
		}
		out.enc(e, res[0].Elem())
		return nil
	}}
}

func isSDKShape(t reflect.Type, name string) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t.Elem().PkgPath() == sdkPkgPath && t.Elem().Name() == name &&
		!strings.ContainsRune(name, '.')
}

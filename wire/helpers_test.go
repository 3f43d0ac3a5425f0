package wire_test

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/wire"
)

// serve starts an httptest server with a Handler over api and returns an SDK
// client pointed at it (no retries, so a test sees the first answer).
func serve(t testing.TB, api timetable.API) (*dynamodb.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(wire.New(api, nil))
	t.Cleanup(srv.Close)
	return sdkClient(srv.URL), srv
}

// sdkClient returns a client for endpoint that retries only a connection
// closed under it (dynamotest.RetryClosedConnection).
func sdkClient(endpoint string) *dynamodb.Client {
	return dynamotest.NewClient(endpoint, dynamotest.AccessKey("wire"), dynamotest.RetryClosedConnection)
}

// stub is a timetable.API that records the input it is given and answers
// with a canned output or error.
type stub struct {
	mu  sync.Mutex
	in  any
	out any
	err error
}

func (s *stub) set(out any, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.in, s.out, s.err = nil, out, err
}

func (s *stub) input() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.in
}

func answer[O any](s *stub, in any) (*O, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.in = in
	if s.err != nil {
		return nil, s.err
	}
	out, _ := s.out.(*O)
	if out == nil {
		out = new(O)
	}
	return out, nil
}

type opts = func(*dynamodb.Options)

func (s *stub) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...opts) (*dynamodb.CreateTableOutput, error) {
	return answer[dynamodb.CreateTableOutput](s, in)
}
func (s *stub) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...opts) (*dynamodb.DescribeTableOutput, error) {
	return answer[dynamodb.DescribeTableOutput](s, in)
}
func (s *stub) DeleteTable(_ context.Context, in *dynamodb.DeleteTableInput, _ ...opts) (*dynamodb.DeleteTableOutput, error) {
	return answer[dynamodb.DeleteTableOutput](s, in)
}
func (s *stub) ListTables(_ context.Context, in *dynamodb.ListTablesInput, _ ...opts) (*dynamodb.ListTablesOutput, error) {
	return answer[dynamodb.ListTablesOutput](s, in)
}
func (s *stub) UpdateTable(_ context.Context, in *dynamodb.UpdateTableInput, _ ...opts) (*dynamodb.UpdateTableOutput, error) {
	return answer[dynamodb.UpdateTableOutput](s, in)
}
func (s *stub) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...opts) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return answer[dynamodb.UpdateTimeToLiveOutput](s, in)
}
func (s *stub) DescribeTimeToLive(_ context.Context, in *dynamodb.DescribeTimeToLiveInput, _ ...opts) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return answer[dynamodb.DescribeTimeToLiveOutput](s, in)
}
func (s *stub) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...opts) (*dynamodb.GetItemOutput, error) {
	return answer[dynamodb.GetItemOutput](s, in)
}
func (s *stub) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...opts) (*dynamodb.PutItemOutput, error) {
	return answer[dynamodb.PutItemOutput](s, in)
}
func (s *stub) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...opts) (*dynamodb.UpdateItemOutput, error) {
	return answer[dynamodb.UpdateItemOutput](s, in)
}
func (s *stub) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...opts) (*dynamodb.DeleteItemOutput, error) {
	return answer[dynamodb.DeleteItemOutput](s, in)
}
func (s *stub) Query(_ context.Context, in *dynamodb.QueryInput, _ ...opts) (*dynamodb.QueryOutput, error) {
	return answer[dynamodb.QueryOutput](s, in)
}
func (s *stub) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...opts) (*dynamodb.ScanOutput, error) {
	return answer[dynamodb.ScanOutput](s, in)
}
func (s *stub) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...opts) (*dynamodb.BatchGetItemOutput, error) {
	return answer[dynamodb.BatchGetItemOutput](s, in)
}
func (s *stub) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...opts) (*dynamodb.BatchWriteItemOutput, error) {
	return answer[dynamodb.BatchWriteItemOutput](s, in)
}
func (s *stub) TransactGetItems(_ context.Context, in *dynamodb.TransactGetItemsInput, _ ...opts) (*dynamodb.TransactGetItemsOutput, error) {
	return answer[dynamodb.TransactGetItemsOutput](s, in)
}
func (s *stub) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...opts) (*dynamodb.TransactWriteItemsOutput, error) {
	return answer[dynamodb.TransactWriteItemsOutput](s, in)
}

var _ timetable.API = (*stub)(nil)

// filler sets every exported member of an SDK shape to a random value, so a
// round trip exercises each member the codec must know.
type filler struct {
	rng *rand.Rand
}

var (
	avType       = reflect.TypeFor[types.AttributeValue]()
	timeType     = reflect.TypeFor[time.Time]()
	metadataType = reflect.TypeFor[middleware.Metadata]()
)

func (f *filler) fill(v reflect.Value) {
	t := v.Type()
	switch {
	case t == avType:
		v.Set(reflect.ValueOf(f.av(0)))
		return
	case t == timeType:
		ms := f.rng.Int64N(4e12)
		v.Set(reflect.ValueOf(time.UnixMilli(ms).UTC()))
		return
	}
	switch t.Kind() {
	case reflect.String:
		if m := reflect.New(t).MethodByName("Values"); m.IsValid() && t.PkgPath() != "" {
			// An enum: any string goes (the SDK does not check), but use a
			// real value most of the time.
			vals := m.Call(nil)[0]
			if vals.Len() > 0 && f.rng.IntN(4) > 0 {
				v.Set(vals.Index(f.rng.IntN(vals.Len())))
				return
			}
		}
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.rng.IntN(2) == 0)
	case reflect.Int32:
		v.SetInt(int64(int32(f.rng.Uint32())))
	case reflect.Int64:
		v.SetInt(int64(f.rng.Uint64()))
	case reflect.Float64:
		v.SetFloat(math.Round(f.rng.NormFloat64()*1e6) / 1e3)
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes(f.bytes())
			return
		}
		n := 1 + f.rng.IntN(3)
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(t)
		for range 1 + f.rng.IntN(3) {
			e := reflect.New(t.Elem()).Elem()
			f.fill(e)
			m.SetMapIndex(reflect.ValueOf(f.str()).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Type == metadataType || sf.Name == "ErrorCodeOverride" {
				continue
			}
			f.fill(v.Field(i))
		}
	default:
		panic("filler: unsupported " + t.String())
	}
}

var alphabet = []string{"a", "b", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\x01", "é", "日本", "😀", "<", "&", "\u2028"}

func (f *filler) str() string {
	var b strings.Builder
	for range 1 + f.rng.IntN(12) {
		b.WriteString(alphabet[f.rng.IntN(len(alphabet))])
	}
	return b.String()
}

func (f *filler) bytes() []byte {
	b := make([]byte, f.rng.IntN(20))
	for i := range b {
		b[i] = byte(f.rng.Uint32())
	}
	return b
}

func (f *filler) num() string {
	return []string{"0", "-1", "3.14", "1E+10", "12345678901234567890123456789012345678", "-0.0001"}[f.rng.IntN(6)]
}

// av returns a random attribute value of any of the ten types.
func (f *filler) av(depth int) types.AttributeValue {
	k := f.rng.IntN(10)
	if depth > 3 && (k == 5 || k == 6) {
		k = 0
	}
	switch k {
	case 0:
		return &types.AttributeValueMemberS{Value: f.str()}
	case 1:
		return &types.AttributeValueMemberN{Value: f.num()}
	case 2:
		return &types.AttributeValueMemberB{Value: f.bytes()}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: f.rng.IntN(2) == 0}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}
	case 5:
		l := []types.AttributeValue{}
		for range f.rng.IntN(4) {
			l = append(l, f.av(depth+1))
		}
		return &types.AttributeValueMemberL{Value: l}
	case 6:
		m := map[string]types.AttributeValue{}
		for range f.rng.IntN(4) {
			m[f.str()] = f.av(depth + 1)
		}
		return &types.AttributeValueMemberM{Value: m}
	case 7:
		return &types.AttributeValueMemberSS{Value: []string{f.str(), f.str() + "x"}}
	case 8:
		return &types.AttributeValueMemberNS{Value: []string{"1", f.num() + "5"}}
	default:
		return &types.AttributeValueMemberBS{Value: [][]byte{f.bytes(), {1, 2, 3}}}
	}
}

// clearMetadata zeroes the ResultMetadata of an output so outputs compare
// with reflect.DeepEqual.
func clearMetadata(out any) {
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("ResultMetadata"); f.IsValid() {
			f.Set(reflect.Zero(f.Type()))
		}
	}
}

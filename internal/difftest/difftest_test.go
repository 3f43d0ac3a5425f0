package difftest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
)

var (
	seedFlag  = flag.Uint64("difftest.seed", 23, "seed of the generated operations (23: two tables, N and S sort keys, both with an LSI)")
	opsFlag   = flag.Int("difftest.ops", 5000, "number of generated operations")
	maxFlag   = flag.Int("difftest.max", 1, "stop after this many divergences")
	minFlag   = flag.Int("difftest.minimize", 0, "minimize the first N divergences and log reproductions")
	msgFlag   = flag.Bool("difftest.messages", false, "count error outcomes by message, not only by code")
	minAtFlag = flag.String("difftest.minimizeat", "", "comma-separated operation indexes whose divergences to minimize")
	numsFlag  = flag.Bool("difftest.numbersbyvalue", true, "compare numbers in answers by value, not spelling (docs/compat.md: spelling of numbers)")
	rulesFlag = flag.Bool("difftest.localrules", true, "normalize DynamoDB Local's differences that docs/compat.md documents (quirks.go); false shows them")
	skipFlag  = flag.String("difftest.skip", "", "comma-separated operation kinds not to generate (e.g. Scan,TransactWriteItems)")
)

// prefix returns a table name prefix unique to this process and side.
func prefix(side string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "dt" + hex.EncodeToString(b) + side + "_"
}

func config(t *testing.T) Config {
	var skip []string
	if *skipFlag != "" {
		skip = strings.Split(*skipFlag, ",")
	}
	return Config{Seed: *seedFlag, Ops: *opsFlag, Skip: skip, MaxDivergences: *maxFlag, NumbersByValue: *numsFlag, OutcomeMessages: *msgFlag, Logf: t.Logf}
}

func report(t *testing.T, res *Result, err error) {
	t.Helper()
	if res != nil {
		t.Logf("%d operations, %d requests per target; outcomes (first target):\n%s", res.Ops, res.Requests, res.Summary())
		for _, d := range res.Divergences {
			t.Errorf("divergence at operation %d (%s), first difference at %s: %s vs %s\nrequest:\n  %s\n%s:\n  %s\n%s:\n  %s",
				d.Index, d.Kind, d.Path, d.AtA, d.AtB, indent(d.Request), d.AName, indent(d.A), d.BName, indent(d.B))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestDifferential_DynamoDBLocalSelf compares DynamoDB Local with itself
// (two table prefixes on one server): it proves that the generator is
// deterministic and that the comparison normalizes only what it must.
//
// It runs 500 operations unless -difftest.ops is given (it doubles the
// load on DynamoDB Local of as many operations of TestDifferential).
func TestDifferential_DynamoDBLocalSelf(t *testing.T) {
	client := dynamotest.Client(t)
	cfg := config(t)
	if !flagSet("difftest.ops") {
		cfg.Ops = 500
	}
	res, err := Run(context.Background(), cfg,
		Target{Name: "dynamodb-local(A)", API: client, Prefix: prefix("a"), DynamoDBLocal: *rulesFlag},
		Target{Name: "dynamodb-local(B)", API: client, Prefix: prefix("b"), DynamoDBLocal: *rulesFlag})
	report(t, res, err)
}

// engine opens an in-memory embedded engine, closed when the test ends.
func engine(t testing.TB) *local.DB {
	t.Helper()
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatalf("local.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// TestDifferential runs the generated operations against the embedded
// engine and DynamoDB Local and compares every answer. By default (as in
// `make test`): seed 23, 5,000 operations, numbers compared by value, the
// documented DynamoDB Local differences normalized, stop at the first
// divergence.
//
//	TIMETABLE_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 go test ./internal/difftest -run TestDifferential$ -difftest.seed=2 -difftest.ops=20000
func TestDifferential(t *testing.T) {
	client := dynamotest.Client(t)
	db := engine(t)
	cfg := config(t)
	a := Target{Name: "dynamodb-local", API: client, Prefix: prefix("l"), DynamoDBLocal: *rulesFlag, Streams: dynamotest.StreamsClient(t, "test")}
	b := Target{Name: "engine", API: db, Prefix: "e_", Streams: db}
	res, err := Run(context.Background(), cfg, a, b)
	report(t, res, err)
	if res != nil && len(res.Divergences) > 0 {
		t.Logf("known divergences, with reproductions: internal/difftest/FINDINGS.md; " +
			"-difftest.max=100 lists more, -difftest.minimize=N reproduces the first N")
	}
	minimize(t, cfg, a, b, res)
}

// minimize logs short reproductions of the first -difftest.minimize
// divergences.
func minimize(t *testing.T, cfg Config, a, b Target, res *Result) {
	seen := map[string]bool{}
	at := map[string]bool{}
	for _, s := range strings.Split(*minAtFlag, ",") {
		at[s] = s != ""
	}
	for _, d := range res.Divergences {
		if len(at) > 0 && *minAtFlag != "" {
			if !at[fmt.Sprint(d.Index)] {
				continue
			}
		} else if len(seen) >= *minFlag {
			break
		}
		if seen[shape(d)] {
			continue
		}
		seen[shape(d)] = true
		ops, md, err := Minimize(context.Background(), cfg, a, b, d)
		if err != nil {
			t.Logf("minimizing the divergence at %d: %v", d.Index, err)
			continue
		}
		t.Logf("reproduction of the divergence at operation %d (%s):\n%s", d.Index, shape(d), Repro(ops, md))
	}
}

// tamper plants a difference: it adds an attribute to the item of the
// at-th GetItem answer that has an item, or adds a unit to the total of the
// capAt-th PutItem answer that has capacity.
// engineAPI is what the wrappers below pass through: the API and PartiQL.
type engineAPI interface {
	timetable.API
	timetable.PartiQLAPI
}

type tamper struct {
	engineAPI
	n, at       int
	puts, capAt int
}

func (tp *tamper) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := tp.engineAPI.GetItem(ctx, in, optFns...)
	if err == nil && out.Item != nil && tp.at > 0 {
		tp.n++
		if tp.n == tp.at {
			out.Item["planted"] = sv("x")
		}
	}
	return out, err
}

func (tp *tamper) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := tp.engineAPI.PutItem(ctx, in, optFns...)
	if err == nil && out.ConsumedCapacity != nil && tp.capAt > 0 {
		tp.puts++
		if tp.puts == tp.capAt {
			*out.ConsumedCapacity.CapacityUnits++
		}
	}
	return out, err
}

// plantedConfig is TestDifferential's configuration (numbers by value) on
// the operations on one item.
var plantedConfig = Config{Seed: 3, Ops: 2000, NumbersByValue: true, Skip: []string{"Query", "Scan",
	"BatchWriteItem", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "ExecuteStatement",
	"BatchExecuteStatement", "ExecuteTransaction"}}

// TestDifferential_PlantedDifference runs the engine against itself with one
// GetItem answer changed: the run must report that operation, and nothing
// before it.
func TestDifferential_PlantedDifference(t *testing.T) {
	db := engine(t)
	tp := &tamper{engineAPI: db, at: 20}
	res, err := Run(context.Background(), plantedConfig,
		Target{Name: "engine", API: db, Prefix: "a_"},
		Target{Name: "tampered", API: tp, Prefix: "b_"})
	if err != nil {
		t.Fatal(err)
	}
	if tp.n < tp.at {
		t.Fatalf("only %d GetItem answers had an item", tp.n)
	}
	if len(res.Divergences) != 1 {
		t.Fatalf("%d divergences, want 1", len(res.Divergences))
	}
	d := res.Divergences[0]
	if d.Kind != "GetItem" || !strings.HasPrefix(d.Path, ".out.Item.planted") || !strings.Contains(d.B, `"planted"`) {
		t.Errorf("divergence %+v, want the planted GetItem attribute", d)
	}
	if res.Ops != d.Index+1 {
		t.Errorf("the run went on to operation %d after the divergence at %d", res.Ops, d.Index)
	}
}

// TestDifferential_PlantedCapacity runs the engine against itself with one
// PutItem's capacity raised by a unit on a target marked DynamoDBLocal: the
// rules of quirks.go, which lower such figures in their shapes, must not
// hide it.
func TestDifferential_PlantedCapacity(t *testing.T) {
	db := engine(t)
	tp := &tamper{engineAPI: db, capAt: 15}
	res, err := Run(context.Background(), plantedConfig,
		Target{Name: "engine", API: db, Prefix: "a_"},
		Target{Name: "tampered", API: tp, Prefix: "b_", DynamoDBLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	if tp.puts < tp.capAt {
		t.Fatalf("only %d PutItem answers had capacity", tp.puts)
	}
	if len(res.Divergences) != 1 {
		t.Fatalf("%d divergences, want 1", len(res.Divergences))
	}
	if d := res.Divergences[0]; d.Kind != "PutItem" || d.Path != ".out.ConsumedCapacity.CapacityUnits" {
		t.Errorf("divergence %+v, want the planted capacity", d)
	}
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// mutator changes the Item of every PutItem request it answers without an
// error (so that the change, not the error, is the first difference
// whatever the seed's first PutItem is).
type mutator struct{ engineAPI }

func (m *mutator) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := m.engineAPI.PutItem(ctx, in, optFns...)
	if err == nil {
		in.Item["mutated"] = sv("x")
	}
	return out, err
}

// TestDifferential_ModifiedRequest checks that a target that modifies the
// request it is given is reported at the first such request.
func TestDifferential_ModifiedRequest(t *testing.T) {
	db := engine(t)
	res, err := Run(context.Background(), Config{Seed: 3, Ops: 200, Skip: []string{"BatchWriteItem", "TransactWriteItems"}},
		Target{Name: "engine", API: db, Prefix: "a_"},
		Target{Name: "mutator", API: &mutator{db}, Prefix: "b_"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Divergences) != 1 {
		t.Fatalf("%d divergences, want 1", len(res.Divergences))
	}
	if d := res.Divergences[0]; d.Kind != "PutItem" || !strings.HasPrefix(d.Path, ".modified its request") {
		t.Errorf("divergence at %s (%s), want the modified PutItem request", d.Path, d.Kind)
	}
}

// dropRecord is a StreamsAPI whose GetRecords leaves out the at-th record
// it would return.
type dropRecord struct {
	timetable.StreamsAPI
	n, at int
}

func (d *dropRecord) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	out, err := d.StreamsAPI.GetRecords(ctx, in, optFns...)
	if err != nil {
		return out, err
	}
	for i := range out.Records {
		if d.n++; d.n == d.at {
			out.Records = append(out.Records[:i:i], out.Records[i+1:]...)
			break
		}
	}
	return out, nil
}

// TestDifferential_Streams runs the engine against itself with streams on,
// first as it is (no divergence: the records are compared and agree), then
// with one record left out of the second target's stream, which the
// comparison of the streams must report.
func TestDifferential_Streams(t *testing.T) {
	db := engine(t)
	cfg := Config{Seed: 23, Ops: 1000, NumbersByValue: true}
	res, err := Run(context.Background(), cfg,
		Target{Name: "engine", API: db, Prefix: "a_", Streams: db},
		Target{Name: "engine2", API: db, Prefix: "b_", Streams: db})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Divergences) != 0 {
		t.Fatalf("engine against itself: %v", res.Divergences[0])
	}
	drop := &dropRecord{StreamsAPI: db, at: 5}
	res, err = Run(context.Background(), cfg,
		Target{Name: "engine", API: db, Prefix: "c_", Streams: db},
		Target{Name: "dropped", API: db, Prefix: "d_", Streams: drop})
	if err != nil {
		t.Fatal(err)
	}
	if drop.n < drop.at {
		t.Fatalf("only %d records read", drop.n)
	}
	if len(res.Divergences) != 1 || res.Divergences[0].Kind != "Streams" {
		t.Fatalf("divergences %v, want the dropped record", res.Divergences)
	}
}

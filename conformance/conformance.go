// Package conformance holds the cases that every implementation of
// timetable.API must pass: the embedded engine, the wire endpoint in front of
// it, and DynamoDB Local, which is the reference.
//
// Run runs every case as a named subtest, so `go test -run
// 'TestConformance/PutItem'` picks a group and a failure names its case.
// Cases create their own uniquely named tables and delete them when they end,
// so they can share one backend and run in parallel.
package conformance

import (
	"context"
	"sort"
	"testing"

	"github.com/timetable-db/timetable"
)

// Case is one conformance case. Name is "Group/Case", the group being the
// operation or feature under test (for example "PutItem/ConditionFails").
type Case struct {
	Name string
	Run  func(t *testing.T, h *H)
}

var registry []Case

// register adds cases; each cases_*.go file calls it from init.
func register(cs ...Case) { registry = append(registry, cs...) }

// Cases returns every case, sorted by name. The slice is a copy.
func Cases() []Case {
	cs := append([]Case(nil), registry...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}

// Run runs every case against api as a parallel subtest of t. The cases of
// DynamoDB Streams read api's streams when api is also a
// timetable.StreamsAPI (as the engine is), and skip otherwise.
func Run(t *testing.T, api timetable.API) {
	t.Helper()
	streams, _ := api.(timetable.StreamsAPI)
	RunWithStreams(t, api, streams)
}

// RunWithStreams is Run with the DynamoDB Streams endpoint of api given
// apart (for DynamoDB, a *dynamodbstreams.Client at the same endpoint);
// streams may be nil, and the cases of streams then skip.
func RunWithStreams(t *testing.T, api timetable.API, streams timetable.StreamsAPI) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Fatalf("conformance: duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			h := &H{API: api, Streams: streams, Ctx: context.Background(), t: t}
			c.Run(t, h)
		})
	}
}

// H is what a case gets: the backend under test and helpers that fail the
// case on unexpected errors.
type H struct {
	API     timetable.API
	Streams timetable.StreamsAPI // nil when the backend's streams are not tested
	Ctx     context.Context
	t       *testing.T
}

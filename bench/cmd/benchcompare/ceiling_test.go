package main

import (
	"context"
	"testing"
	"time"

	"github.com/timetable-db/timetable/bench/workload"
)

func TestCeiling_Load(t *testing.T) {
	c, err := startCeiling()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for kind := range numClients {
		res, err := workload.Load(context.Background(), newLoadClient(kind, c.endpoint, 2), workload.LoadConfig{
			Table: "ceiling_test", Workers: 2, Duration: 100 * time.Millisecond, Warmup: 10 * time.Millisecond,
		})
		if err != nil {
			t.Fatalf("%s client: %v", clientNames[kind], err)
		}
		if res.Errors != 0 || res.Ops == 0 {
			t.Fatalf("%s client: ops %d, errors %d, first error %v", clientNames[kind], res.Ops, res.Errors, res.FirstError)
		}
	}
}

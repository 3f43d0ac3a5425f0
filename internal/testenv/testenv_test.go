package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/local"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v, want %v", got, t0)
	}
	c.Advance(time.Minute)
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after Advance, Now = %v", got)
	}
	c.Set(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("after Set, Now = %v", got)
	}
	var zero Clock
	if !zero.Now().IsZero() {
		t.Fatal("the zero Clock does not read the zero time")
	}
}

func TestMemDB_LeavesOptionsAlone(t *testing.T) {
	opts := &local.Options{TTLInterval: -1}
	db := MemDB(t, opts)
	if opts.InMemory {
		t.Fatal("MemDB modified the caller's options")
	}
	if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
}

func TestEachBackend_EngineFirst(t *testing.T) {
	var names []string
	EachBackend(t, func(t *testing.T, b Backend) {
		names = append(names, b.Name)
		if b.Name == "engine" {
			if b.Open(t, nil) == nil {
				t.Fatal("no API")
			}
		}
	})
	if len(names) == 0 || names[0] != "engine" {
		t.Fatalf("ran on %v, want the engine first", names)
	}
}

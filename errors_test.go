package timetable_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/table"
)

// emptyAPI answers GetItem with no item; its other methods are not called.
type emptyAPI struct{ timetable.API }

func (emptyAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return &dynamodb.GetItemOutput{}, nil
}

// TestErrors_SameAcrossPackages: the sentinels that table and series
// export under one name are the root's values, so errors.Is matches an
// error of one package with the other's name.
func TestErrors_SameAcrossPackages(t *testing.T) {
	for _, c := range []struct {
		name                string
		root, table, series error
	}{
		{"ErrNotFound", timetable.ErrNotFound, table.ErrNotFound, series.ErrNotFound},
		{"ErrBadCursor", timetable.ErrBadCursor, table.ErrBadCursor, series.ErrBadCursor},
	} {
		for _, err := range []error{c.root, c.table, c.series} {
			wrapped := fmt.Errorf("while testing: %w", err)
			for _, target := range []error{c.root, c.table, c.series} {
				if !errors.Is(wrapped, target) {
					t.Errorf("%s: errors.Is(%v, %v) = false", c.name, wrapped, target)
				}
			}
		}
	}
}

// TestErrors_TableErrorMatchesSeriesName: errors that table returns match
// the series names.
func TestErrors_TableErrorMatchesSeriesName(t *testing.T) {
	ctx := context.Background()
	tbl, err := table.New(emptyAPI{}, table.Schema{Name: "t", HashKey: "pk", RangeKey: "sk"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(ctx, table.K("a", "b"), nil); !errors.Is(err, series.ErrNotFound) {
		t.Errorf("Get of an absent item: %v, want series.ErrNotFound", err)
	}
	if _, err := tbl.Query(ctx, &table.Query{Hash: "a", Cursor: "not a cursor"}); !errors.Is(err, series.ErrBadCursor) {
		t.Errorf("Query with a foreign cursor: %v, want series.ErrBadCursor", err)
	}
}

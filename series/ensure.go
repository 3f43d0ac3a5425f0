package series

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// EnsureTable creates the store's table if it does not exist (on demand
// billing, pk and sk strings), with the metric index when a kind asks for
// it, and turns on time to live on the "ttl" attribute. On an existing
// table it adds the metric index if it is missing and turns on time to
// live; it changes nothing else. It waits until the table and its indexes
// are active. It works the same on the embedded engine and on DynamoDB.
// The kinds are those of the Store when it is called; Define and Change
// add the metric index themselves for a kind that has MetricIndex. Once
// it returns, writes no longer fail with ErrTableNotFound.
func (s *Store) EnsureTable(ctx context.Context) error {
	kinds := s.Kinds()
	ts := table.Schema{Name: s.tbl.Name(), HashKey: attrPK, RangeKey: attrSK}
	if ix, ok := metricIndexOf(kinds); ok {
		ts.Indexes = []table.Index{ix}
	}
	// A client of the table as the kinds want it, to create it.
	tbl, err := table.New(s.tbl.API(), ts, s.opts.TableOptions)
	if err != nil {
		return err
	}
	if err := tbl.Create(ctx, &table.CreateOptions{TTLAttribute: attrTTL}); err != nil {
		return err
	}
	s.tableMissing.Store(false)
	if err := s.takeSeqID(ctx, true); err != nil {
		s.log.Warn("series: cannot take a sequence id; retried at the next writes", "err", err)
	}
	s.readyIndexes(ctx)
	if len(ts.Indexes) == 0 {
		return nil
	}
	return s.ensureMetricIndex(ctx, kinds)
}

// metricIndexOf returns the metric index that kinds need, if one of them
// has MetricIndex.
func metricIndexOf(kinds []*Kind) (table.Index, bool) {
	for _, k := range kinds {
		if k.s.MetricIndex {
			return table.Index{Name: metricIndex, HashKey: attrMPK, RangeKey: attrMSK, Include: metricProjection(kinds)}, true
		}
	}
	return table.Index{}, false
}

// ensureMetricIndex adds the metric index that kinds need to the table
// if it has none (UpdateTable), and waits until the index is active, or
// ctx ends. An index already there is left as it is (DynamoDB cannot
// change an index's projection; see checkProjection). It does nothing
// if no kind has MetricIndex, and fails with ErrTableNotFound on a
// missing table.
func (s *Store) ensureMetricIndex(ctx context.Context, kinds []*Kind) error {
	ix, ok := metricIndexOf(kinds)
	if !ok {
		return nil
	}
	defer func() {
		// The metric index, or its projection, may have changed.
		s.projMu.Lock()
		s.projDone = false
		s.projMu.Unlock()
	}()
	api := s.tbl.API()
	name := aws.String(s.tbl.Name())
	describe := func() (*types.GlobalSecondaryIndexDescription, error) {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		if err != nil {
			return nil, fmt.Errorf("series: cannot describe table %s: %w", s.tbl.Name(), s.tableErr(err))
		}
		for i, g := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == metricIndex {
				return &out.Table.GlobalSecondaryIndexes[i], nil
			}
		}
		return nil, nil
	}
	g, err := describe()
	if err != nil {
		return err
	}
	if g == nil {
		_, err = api.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName: name,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String(attrMPK), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(attrMSK), AttributeType: types.ScalarAttributeTypeS},
			},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String(metricIndex),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String(attrMPK), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String(attrMSK), KeyType: types.KeyTypeRange},
				},
				Projection: metricProjectionOf(ix),
			}}},
		})
		if err != nil {
			return fmt.Errorf("series: cannot add the metric index to table %s: %w", s.tbl.Name(), s.tableErr(err))
		}
	}
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		if g != nil && indexActive(g) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("series: the metric index of table %s is not active yet: %w", s.tbl.Name(), ctx.Err())
		case <-time.After(delay):
		}
		if g, err = describe(); err != nil {
			return err
		}
	}
}

// indexActive reports whether an index described by DescribeTable can be
// queried.
func indexActive(g *types.GlobalSecondaryIndexDescription) bool {
	return g.IndexStatus == "" || g.IndexStatus == types.IndexStatusActive
}

// metricProjectionOf is the projection of the metric index ix.
func metricProjectionOf(ix table.Index) *types.Projection {
	if len(ix.Include) == 0 {
		return &types.Projection{ProjectionType: types.ProjectionTypeAll}
	}
	return &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: ix.Include}
}

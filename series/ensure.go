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
// The kinds are those of the Store when it is called: call it again after
// defining or changing a kind to have MetricIndex. Once it returns, writes
// no longer fail with ErrTableNotFound.
func (s *Store) EnsureTable(ctx context.Context) error {
	kinds := s.Kinds()
	ts := table.Schema{Name: s.tbl.Name(), HashKey: attrPK, RangeKey: attrSK}
	for _, k := range kinds {
		if k.s.MetricIndex {
			ts.Indexes = []table.Index{{Name: metricIndex, HashKey: attrMPK, RangeKey: attrMSK, Include: metricProjection(kinds)}}
			break
		}
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
	defer func() {
		// The metric index's projection may have changed.
		s.projMu.Lock()
		s.projDone = false
		s.projMu.Unlock()
	}()
	if len(ts.Indexes) == 0 {
		return nil
	}
	api := s.tbl.API()
	name := aws.String(s.tbl.Name())
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
	if err != nil {
		return fmt.Errorf("series: cannot describe table %s: %w", s.tbl.Name(), err)
	}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == metricIndex {
			return nil
		}
	}
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
			Projection: metricProjectionOf(ts.Indexes[0]),
		}}},
	})
	if err != nil {
		return fmt.Errorf("series: cannot add the metric index to table %s: %w", s.tbl.Name(), err)
	}
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		if err != nil {
			return fmt.Errorf("series: cannot describe table %s: %w", s.tbl.Name(), err)
		}
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == metricIndex && (g.IndexStatus == "" || g.IndexStatus == types.IndexStatusActive) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// metricProjectionOf is the projection of the metric index ix.
func metricProjectionOf(ix table.Index) *types.Projection {
	if len(ix.Include) == 0 {
		return &types.Projection{ProjectionType: types.ProjectionTypeAll}
	}
	return &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: ix.Include}
}

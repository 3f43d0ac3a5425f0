package table

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateOptions are the options of Create. The zero value is valid.
type CreateOptions struct {
	// TTLAttribute, if set, turns on time to live on that attribute.
	TTLAttribute string
}

// Create creates the table of the schema, billed on demand, with its
// indexes, and waits until it is active. A table of that name that
// already exists is left as it is (its schema is not checked) and is not
// an error.
func (t *Table) Create(ctx context.Context, o *CreateOptions) error {
	var opts CreateOptions
	if o != nil {
		opts = *o
	}
	s := t.schema
	attrs := map[string]bool{}
	var defs []types.AttributeDefinition
	def := func(name string) {
		if name == "" || attrs[name] {
			return
		}
		attrs[name] = true
		typ := s.KeyTypes[name]
		if typ == "" {
			typ = types.ScalarAttributeTypeS
		}
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: typ})
	}
	schema := func(h, r string, more ...[]string) []types.KeySchemaElement {
		var ks []types.KeySchemaElement
		add := func(name string, kt types.KeyType) {
			def(name)
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(name), KeyType: kt})
		}
		add(h, types.KeyTypeHash)
		if len(more) > 0 {
			for _, a := range more[0] {
				add(a, types.KeyTypeHash)
			}
		}
		if r != "" {
			add(r, types.KeyTypeRange)
			if len(more) > 1 {
				for _, a := range more[1] {
					add(a, types.KeyTypeRange)
				}
			}
		}
		return ks
	}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(s.Name),
		KeySchema:   schema(s.HashKey, s.RangeKey),
		BillingMode: types.BillingModePayPerRequest,
	}
	for _, ix := range s.Indexes {
		p := &types.Projection{ProjectionType: types.ProjectionTypeAll}
		switch {
		case ix.KeysOnly:
			p.ProjectionType = types.ProjectionTypeKeysOnly
		case len(ix.Include) > 0:
			p.ProjectionType = types.ProjectionTypeInclude
			p.NonKeyAttributes = ix.Include
		}
		if ix.Local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
				IndexName: aws.String(ix.Name), KeySchema: schema(s.HashKey, ix.RangeKey), Projection: p})
		} else {
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
				IndexName: aws.String(ix.Name), KeySchema: schema(ix.HashKey, ix.RangeKey, ix.MoreHashKeys, ix.MoreRangeKeys), Projection: p})
		}
	}
	in.AttributeDefinitions = defs
	err := t.call(ctx, "CreateTable", func() error {
		_, err := t.api.CreateTable(ctx, in)
		return err
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("table: cannot create table %s: %w", s.Name, err)
	}
	if err := t.waitActive(ctx); err != nil {
		return err
	}
	if opts.TTLAttribute != "" {
		return t.EnableTTL(ctx, opts.TTLAttribute)
	}
	return nil
}

// waitActive polls DescribeTable until the table and its indexes are
// active, for up to Options.RetryTimeout.
func (t *Table) waitActive(ctx context.Context) error {
	deadline := time.Now().Add(t.opts.RetryTimeout)
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		out, err := send(ctx, t, "DescribeTable", t.api.DescribeTable, &dynamodb.DescribeTableInput{TableName: aws.String(t.schema.Name)})
		if err != nil {
			return fmt.Errorf("table: cannot describe table %s: %w", t.schema.Name, err)
		}
		active := out.Table != nil && out.Table.TableStatus == types.TableStatusActive
		if active {
			for _, g := range out.Table.GlobalSecondaryIndexes {
				if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
					active = false
				}
			}
		}
		if active {
			return nil
		}
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("table: table %s is not active after %v", t.schema.Name, t.opts.RetryTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// EnableTTL turns on time to live on the attribute attr (epoch seconds, see
// keys.TTL). Turning it on again with the same attribute is not an error.
// DynamoDB deletes expired items late (up to about two days), so readers
// should filter them out.
func (t *Table) EnableTTL(ctx context.Context, attr string) error {
	cur, err := send(ctx, t, "DescribeTimeToLive", t.api.DescribeTimeToLive, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(t.schema.Name)})
	if err == nil && cur.TimeToLiveDescription != nil && aws.ToString(cur.TimeToLiveDescription.AttributeName) == attr &&
		(cur.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabled ||
			cur.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	err = t.call(ctx, "UpdateTimeToLive", func() error {
		_, err := t.api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(t.schema.Name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(true)},
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("table: cannot enable TTL on %s.%s: %w", t.schema.Name, attr, err)
	}
	return nil
}

// Drop deletes the table and all its items. A table that does not exist
// is not an error.
func (t *Table) Drop(ctx context.Context) error {
	err := t.call(ctx, "DeleteTable", func() error {
		_, err := t.api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(t.schema.Name)})
		return err
	})
	var nf *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &nf) {
		return fmt.Errorf("table: cannot delete table %s: %w", t.schema.Name, err)
	}
	return nil
}

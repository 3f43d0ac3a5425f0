package tablecopy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// prepare describes the source table name, creates it on the destination
// (or checks the one there), copies its TTL setting, waits until it is
// active and finds or adds its state.
func (c *copier) prepare(ctx context.Context, name string) (*tableCopy, error) {
	src, err := describe(ctx, c.from, name)
	if err != nil {
		return nil, wrapf(err, "cannot describe source table %s", name)
	}
	tc := &tableCopy{name: name, keyTypes: map[string]string{}, itemCount: aws.ToInt64(src.ItemCount)}
	for _, k := range src.KeySchema {
		if k.KeyType == types.KeyTypeHash {
			tc.hash = aws.ToString(k.AttributeName)
		} else {
			tc.rng = aws.ToString(k.AttributeName)
		}
	}
	for _, a := range src.AttributeDefinitions {
		tc.keyTypes[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}

	c.mu.Lock()
	ts, known := c.st.Tables[name]
	if !known {
		ts = &tableState{Segments: make([]segmentState, c.o.Segments)}
		c.st.Tables[name] = ts
	}
	c.mu.Unlock()
	tc.state = ts
	tc.rep = TableReport{Name: name, Segments: len(ts.Segments), Resumed: ts.resumed()}
	tc.before = ts.copied()

	// The destination's tables are listed rather than described, so that
	// a missing one is not an error response (which some SDKs log).
	exists, err := c.destinationHas(ctx, name)
	var dst *types.TableDescription
	if err == nil && exists {
		dst, err = describe(ctx, c.to, name)
	} else if err == nil {
		err = &types.ResourceNotFoundException{}
	}
	switch {
	case err == nil:
		if why := sameKeys(src, dst); why != "" {
			return nil, fmt.Errorf("tablecopy: destination table %s exists with another key schema: %s", name, why)
		}
		c.o.Logger.Info("reusing the destination table", "table", name)
	case isNotFound(err):
		if _, err := c.to.CreateTable(ctx, createInput(src)); err != nil {
			return nil, wrapf(err, "cannot create destination table %s", name)
		}
		ts.Created = true
		c.o.Logger.Info("created the destination table", "table", name)
	default:
		return nil, wrapf(err, "cannot describe destination table %s", name)
	}
	tc.rep.Created = ts.Created
	if err := waitActive(ctx, c.to, name, c.o.ActiveTimeout); err != nil {
		return nil, err
	}
	if tc.rep.TTL, err = copyTTL(ctx, c.from, c.to, name); err != nil {
		return nil, err
	}
	tc.ttl = tc.rep.TTL
	if err := c.save(); err != nil {
		return nil, err
	}
	return tc, nil
}

// destinationHas reports whether the destination has the table name,
// from a list of its tables made on the first call.
func (c *copier) destinationHas(ctx context.Context, name string) (bool, error) {
	if c.dstTables == nil {
		names, err := listTables(ctx, c.to, "destination")
		if err != nil {
			return false, err
		}
		c.dstTables = map[string]bool{}
		for _, n := range names {
			c.dstTables[n] = true
		}
	}
	return c.dstTables[name], nil
}

func describe(ctx context.Context, api timetable.API, name string) (*types.TableDescription, error) {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	if out.Table == nil {
		return nil, errors.New("no table description")
	}
	return out.Table, nil
}

func isNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

// keyOf returns the key schema of a table or index as "name TYPE" strings,
// hash key first, with the attribute types of defs.
func keyOf(ks []types.KeySchemaElement, defs []types.AttributeDefinition) []string {
	var out []string
	for _, want := range []types.KeyType{types.KeyTypeHash, types.KeyTypeRange} {
		for _, k := range ks {
			if k.KeyType != want {
				continue
			}
			typ := "?"
			for _, d := range defs {
				if aws.ToString(d.AttributeName) == aws.ToString(k.AttributeName) {
					typ = string(d.AttributeType)
				}
			}
			out = append(out, fmt.Sprintf("%s %s %s", want, aws.ToString(k.AttributeName), typ))
		}
	}
	return out
}

// sameKeys returns "" if the tables have the same key schema (names, roles
// and types of their key attributes), else what differs.
func sameKeys(src, dst *types.TableDescription) string {
	a, b := keyOf(src.KeySchema, src.AttributeDefinitions), keyOf(dst.KeySchema, dst.AttributeDefinitions)
	if slices.Equal(a, b) {
		return ""
	}
	return fmt.Sprintf("source %v, destination %v", a, b)
}

// createInput returns the CreateTable request of a table like d.
func createInput(d *types.TableDescription) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:            d.TableName,
		KeySchema:            d.KeySchema,
		AttributeDefinitions: d.AttributeDefinitions,
		BillingMode:          types.BillingModePayPerRequest,
	}
	provisioned := d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode == types.BillingModeProvisioned
	// A table without a billing mode summary was created provisioned,
	// before on-demand existed; but an on-demand table may report no
	// summary and zero throughput, which is not a provisioned table.
	if d.BillingModeSummary == nil && throughput(d.ProvisionedThroughput) == nil {
		provisioned = false
	}
	if provisioned {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = orOne(throughput(d.ProvisionedThroughput))
	}
	for _, g := range d.GlobalSecondaryIndexes {
		ix := types.GlobalSecondaryIndex{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection}
		if provisioned {
			ix.ProvisionedThroughput = orOne(throughput(g.ProvisionedThroughput))
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ix)
	}
	for _, l := range d.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{IndexName: l.IndexName, KeySchema: l.KeySchema, Projection: l.Projection})
	}
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.StreamViewType}
	}
	return in
}

// throughput returns the provisioned throughput of a description, nil if it
// has none.
func throughput(p *types.ProvisionedThroughputDescription) *types.ProvisionedThroughput {
	if p == nil || aws.ToInt64(p.ReadCapacityUnits) == 0 && aws.ToInt64(p.WriteCapacityUnits) == 0 {
		return nil
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: p.ReadCapacityUnits, WriteCapacityUnits: p.WriteCapacityUnits}
}

// orOne returns p with each capacity at least 1, which CreateTable needs.
func orOne(p *types.ProvisionedThroughput) *types.ProvisionedThroughput {
	if p == nil {
		p = &types.ProvisionedThroughput{}
	}
	return &types.ProvisionedThroughput{
		ReadCapacityUnits:  aws.Int64(max(1, aws.ToInt64(p.ReadCapacityUnits))),
		WriteCapacityUnits: aws.Int64(max(1, aws.ToInt64(p.WriteCapacityUnits))),
	}
}

// waitActive polls DescribeTable until the table and its global indexes
// are active, for up to timeout.
func waitActive(ctx context.Context, api timetable.API, name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		d, err := describe(ctx, api, name)
		if err != nil && !isNotFound(err) { // a new table may not be visible at once
			return wrapf(err, "cannot describe destination table %s", name)
		}
		if err == nil && d.TableStatus == types.TableStatusActive && !slices.ContainsFunc(d.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
			return g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive
		}) {
			return nil
		}
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("tablecopy: destination table %s is not active after %v", name, timeout)
		}
		if err := sleep(ctx, delay); err != nil {
			return wrapf(err, "waiting for destination table %s", name)
		}
	}
}

// copyTTL turns on the destination's time to live on the source's
// attribute, if the source has it on, and returns that attribute. A
// destination with TTL on another attribute is an error.
func copyTTL(ctx context.Context, from, to timetable.API, name string) (string, error) {
	attr, err := ttlOf(ctx, from, name)
	if err != nil || attr == "" {
		return "", wrapf(err, "cannot describe the TTL of source table %s", name)
	}
	have, err := ttlOf(ctx, to, name)
	if err != nil {
		return "", wrapf(err, "cannot describe the TTL of destination table %s", name)
	}
	switch have {
	case attr:
		return attr, nil
	case "":
		_, err := to.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(true)},
		})
		return attr, wrapf(err, "cannot turn on the TTL of destination table %s", name)
	}
	return "", fmt.Errorf("tablecopy: destination table %s has TTL on %s, the source on %s", name, have, attr)
}

// ttlOf returns the attribute of a table's time to live, "" if it is off.
func ttlOf(ctx context.Context, api timetable.API, name string) (string, error) {
	out, err := api.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return "", err
	}
	d := out.TimeToLiveDescription
	if d == nil || (d.TimeToLiveStatus != types.TimeToLiveStatusEnabled && d.TimeToLiveStatus != types.TimeToLiveStatusEnabling) {
		return "", nil
	}
	return aws.ToString(d.AttributeName), nil
}

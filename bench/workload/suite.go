package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The shape of the suite workload.
const (
	SuitePuts    = 1000
	SuiteQueries = 200
	SuiteUpdates = 100

	suiteDevices = 20
	suiteDays    = 5
)

// Suite runs what a test suite typically does with a DynamoDB table, one
// call at a time: create a table with a GSI and wait until it is active,
// put SuitePuts items, run SuiteQueries queries (half on the table with
// BETWEEN on the sort key, half on the GSI with begins_with, some reversed
// and limited), run SuiteUpdates conditional updates (one in ten with a
// condition that fails, as tests of error paths do), and delete the table.
// Every answer is checked; a wrong one is an error. table must not exist.
func Suite(ctx context.Context, c Client, table string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gsi1pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gsi1sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("gsi1"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("gsi1pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("gsi1sk"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		return fmt.Errorf("cannot create table %s: %w", table, err)
	}
	if err := waitActive(ctx, c, table); err != nil {
		return err
	}

	type row struct{ pk, sk, gpk string }
	rows := make([]row, SuitePuts)
	payload := strings.Repeat("x", 64)
	for i := range SuitePuts {
		r := row{
			pk:  fmt.Sprintf("DEVICE#%02d", i%suiteDevices),
			sk:  fmt.Sprintf("TS#%06d", i),
			gpk: fmt.Sprintf("DAY#%d", i*suiteDays/SuitePuts),
		}
		rows[i] = r
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"pk": str(r.pk), "sk": str(r.sk), "gsi1pk": str(r.gpk), "gsi1sk": str(r.sk),
				"v": num(i), "payload": str(payload),
			},
		})
		if err != nil {
			return fmt.Errorf("put %d: %w", i, err)
		}
	}

	for q := range SuiteQueries {
		var in *dynamodb.QueryInput
		var want []string // sort keys in the expected order
		if q%2 == 0 {
			pk := fmt.Sprintf("DEVICE#%02d", q/2%suiteDevices)
			lo, hi := fmt.Sprintf("TS#%06d", q*4), fmt.Sprintf("TS#%06d", q*4+199)
			in = &dynamodb.QueryInput{
				TableName:              aws.String(table),
				KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :lo AND :hi"),
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":p": str(pk), ":lo": str(lo), ":hi": str(hi),
				},
			}
			for _, r := range rows {
				if r.pk == pk && r.sk >= lo && r.sk <= hi {
					want = append(want, r.sk)
				}
			}
		} else {
			// Ten items share each prefix, all on one day.
			pick := rows[q*37%SuitePuts]
			gpk, prefix := pick.gpk, pick.sk[:len(pick.sk)-1]
			in = &dynamodb.QueryInput{
				TableName:              aws.String(table),
				IndexName:              aws.String("gsi1"),
				KeyConditionExpression: aws.String("gsi1pk = :p AND begins_with(gsi1sk, :pre)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":p": str(gpk), ":pre": str(prefix),
				},
				ScanIndexForward: aws.Bool(false),
				Limit:            aws.Int32(5),
			}
			for i := len(rows) - 1; i >= 0 && len(want) < 5; i-- {
				if r := rows[i]; r.gpk == gpk && strings.HasPrefix(r.sk, prefix) {
					want = append(want, r.sk)
				}
			}
		}
		out, err := c.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("query %d: %w", q, err)
		}
		got := make([]string, len(out.Items))
		for i, it := range out.Items {
			if s, ok := it["sk"].(*types.AttributeValueMemberS); ok {
				got[i] = s.Value
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("query %d: got sort keys %v, want %v", q, got, want)
		}
	}

	for u := range SuiteUpdates {
		i := u * (SuitePuts / SuiteUpdates)
		old := i
		fail := u%10 == 9
		if fail {
			old = -1
		}
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(table),
			Key:       map[string]types.AttributeValue{"pk": str(rows[i].pk), "sk": str(rows[i].sk)},
			UpdateExpression: aws.String(
				"SET v = v + :d, hits = if_not_exists(hits, :zero) + :one"),
			ConditionExpression: aws.String("attribute_exists(pk) AND v = :old"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":d": num(SuitePuts), ":zero": num(0), ":one": num(1), ":old": num(old),
			},
			ReturnValues: types.ReturnValueUpdatedNew,
		})
		var ccf *types.ConditionalCheckFailedException
		switch {
		case fail && errors.As(err, &ccf):
		case fail:
			return fmt.Errorf("update %d: want ConditionalCheckFailedException, got %v", u, err)
		case err != nil:
			return fmt.Errorf("update %d: %w", u, err)
		default:
			v, _ := out.Attributes["v"].(*types.AttributeValueMemberN)
			if v == nil || v.Value != fmt.Sprint(i+SuitePuts) {
				return fmt.Errorf("update %d: got attributes %v", u, out.Attributes)
			}
		}
	}

	return deleteTable(ctx, c, table)
}

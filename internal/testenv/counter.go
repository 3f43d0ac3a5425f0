package testenv

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// Counter is an API that counts what goes through it to the API it
// wraps: the Query calls and the items they return, and the items put by
// BatchWriteItem. It is safe for concurrent use.
type Counter struct {
	timetable.API

	mu             sync.Mutex
	queries, items int
	puts           []map[string]types.AttributeValue
}

// Query counts the call and the items it returns.
func (c *Counter) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.API.Query(ctx, in, o...)
	c.mu.Lock()
	c.queries++
	if out != nil {
		c.items += len(out.Items)
	}
	c.mu.Unlock()
	return out, err
}

// BatchWriteItem notes the items put.
func (c *Counter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.mu.Lock()
	for _, ws := range in.RequestItems {
		for _, w := range ws {
			if w.PutRequest != nil {
				c.puts = append(c.puts, w.PutRequest.Item)
			}
		}
	}
	c.mu.Unlock()
	return c.API.BatchWriteItem(ctx, in, o...)
}

// Reads returns the Query calls and the items they returned since the
// last Reads or Reset, and starts counting again.
func (c *Counter) Reads() (queries, items int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	queries, items = c.queries, c.items
	c.queries, c.items = 0, 0
	return queries, items
}

// Puts returns the number of items put by BatchWriteItem since the last
// Reset that match.
func (c *Counter) Puts(match func(item map[string]types.AttributeValue) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, it := range c.puts {
		if match(it) {
			n++
		}
	}
	return n
}

// Reset forgets what was counted.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.queries, c.items, c.puts = 0, 0, nil
	c.mu.Unlock()
}

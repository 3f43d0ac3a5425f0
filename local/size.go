package local

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/codec"
)

// ItemSize returns the size of item as DynamoDB counts it for the 400 KB
// limit and for capacity units: attribute names plus values, numbers sized
// as DynamoDB Local sizes them (see docs/format/codec.md).
func ItemSize(item map[string]types.AttributeValue) int { return codec.ItemSize(item) }

func itemSize(item Item) int { return codec.ItemSize(item) }

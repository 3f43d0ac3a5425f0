package local

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Capacity is computed as DynamoDB computes it:
//
//   - a write costs ceil(size/1 KB) units, size being the larger of the item
//     before and after (1 unit at least, also for deleting an absent item);
//   - each secondary index whose entry changes costs ceil(entry size/1 KB):
//     once to put or to update the entry, once to delete it, twice when its
//     index key changes (delete and put);
//   - a read costs ceil(size/4 KB) units (1 at least), half for eventually
//     consistent reads; Query and Scan sum the sizes of the items read
//     (before any filter) and round up once;
//   - transactions cost twice as much.

const (
	writeUnit = 1024
	readUnit  = 4096
)

func writeUnits(size int) float64 {
	if size <= 0 {
		return 1
	}
	return float64((size + writeUnit - 1) / writeUnit)
}

func readUnits(size int, consistent bool) float64 {
	u := float64((size + readUnit - 1) / readUnit)
	if u < 1 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

// usage accumulates the capacity one operation consumed on one table.
type usage struct {
	table   string
	units   float64            // table units
	read    bool               // read units (for ConsumedCapacity.ReadCapacityUnits)
	indexes map[string]float64 // units per index name
	global  map[string]bool    // which indexes are global
}

func (u *usage) addIndex(name string, global bool, units float64) {
	if units == 0 {
		return
	}
	if u.indexes == nil {
		u.indexes = map[string]float64{}
		u.global = map[string]bool{}
	}
	u.indexes[name] += units
	u.global[name] = global
}

func (u *usage) total() float64 {
	t := u.units
	for _, x := range u.indexes {
		t += x
	}
	return t
}

// consumed renders u as DynamoDB reports it for the requested mode, or nil.
func (u *usage) consumed(mode types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	switch mode {
	case types.ReturnConsumedCapacityTotal:
		return &types.ConsumedCapacity{TableName: aws.String(u.table), CapacityUnits: aws.Float64(u.total())}
	case types.ReturnConsumedCapacityIndexes:
		c := &types.ConsumedCapacity{
			TableName:     aws.String(u.table),
			CapacityUnits: aws.Float64(u.total()),
			Table:         &types.Capacity{CapacityUnits: aws.Float64(u.units)},
		}
		for name, x := range u.indexes {
			cap := types.Capacity{CapacityUnits: aws.Float64(x)}
			if u.global[name] {
				if c.GlobalSecondaryIndexes == nil {
					c.GlobalSecondaryIndexes = map[string]types.Capacity{}
				}
				c.GlobalSecondaryIndexes[name] = cap
			} else {
				if c.LocalSecondaryIndexes == nil {
					c.LocalSecondaryIndexes = map[string]types.Capacity{}
				}
				c.LocalSecondaryIndexes[name] = cap
			}
		}
		return c
	}
	return nil
}

// scale multiplies all units by f (transactions cost double).
func (u *usage) scale(f float64) {
	u.units *= f
	for name := range u.indexes {
		u.indexes[name] *= f
	}
}

// consumedList renders per-table usages in first-use order, for batch and
// transaction operations.
func consumedList(us []*usage, mode types.ReturnConsumedCapacity) []types.ConsumedCapacity {
	if mode != types.ReturnConsumedCapacityTotal && mode != types.ReturnConsumedCapacityIndexes {
		return nil
	}
	out := make([]types.ConsumedCapacity, 0, len(us))
	for _, u := range us {
		out = append(out, *u.consumed(mode))
	}
	return out
}

// usageSet collects usages per table name in first-use order.
type usageSet struct {
	order []*usage
	by    map[string]*usage
}

func (s *usageSet) get(table string) *usage {
	if s.by == nil {
		s.by = map[string]*usage{}
	}
	u := s.by[table]
	if u == nil {
		u = &usage{table: table}
		s.by[table] = u
		s.order = append(s.order, u)
	}
	return u
}

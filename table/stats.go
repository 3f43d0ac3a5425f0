package table

import (
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// OpStats counts the calls of one DynamoDB operation and the capacity they
// consumed.
type OpStats struct {
	// Calls counts calls sent, including retries; Errors those that failed
	// (including failed conditions); Retries the calls sent again after a
	// throttling or 5xx error, or for unprocessed batch items.
	Calls, Errors, Retries int64
	// ReadUnits and WriteUnits are the capacity units the backend reported
	// (ReturnConsumedCapacity TOTAL). DynamoDB bills failed conditional
	// writes too but reports no capacity for them, so they are missing here.
	ReadUnits, WriteUnits float64
}

// Stats is a snapshot of a Table's counters.
type Stats struct {
	// Ops is keyed by DynamoDB operation name ("PutItem", "Query", ...).
	Ops map[string]OpStats
	// ReadUnits and WriteUnits are the totals over Ops.
	ReadUnits, WriteUnits float64
}

type stats struct {
	mu  sync.Mutex
	ops map[string]OpStats
}

func (s *stats) update(op string, f func(*OpStats)) {
	s.mu.Lock()
	if s.ops == nil {
		s.ops = map[string]OpStats{}
	}
	o := s.ops[op]
	f(&o)
	s.ops[op] = o
	s.mu.Unlock()
}

func (s *stats) call(op string, err error) {
	s.update(op, func(o *OpStats) {
		o.Calls++
		if err != nil {
			o.Errors++
		}
	})
}

func (s *stats) retry(op string) { s.update(op, func(o *OpStats) { o.Retries++ }) }

// readOps are the operations whose plain CapacityUnits are read units.
var readOps = map[string]bool{"GetItem": true, "Query": true, "Scan": true, "BatchGetItem": true, "TransactGetItems": true}

// consumed adds the capacity of one response.
func (s *stats) consumed(op string, ccs ...*types.ConsumedCapacity) {
	var r, w float64
	for _, cc := range ccs {
		if cc == nil {
			continue
		}
		switch {
		case cc.ReadCapacityUnits != nil || cc.WriteCapacityUnits != nil:
			if cc.ReadCapacityUnits != nil {
				r += *cc.ReadCapacityUnits
			}
			if cc.WriteCapacityUnits != nil {
				w += *cc.WriteCapacityUnits
			}
		case cc.CapacityUnits != nil && readOps[op]:
			r += *cc.CapacityUnits
		case cc.CapacityUnits != nil:
			w += *cc.CapacityUnits
		}
	}
	if r == 0 && w == 0 {
		return
	}
	s.update(op, func(o *OpStats) {
		o.ReadUnits += r
		o.WriteUnits += w
	})
}

func (s *stats) consumedList(op string, ccs []types.ConsumedCapacity) {
	ps := make([]*types.ConsumedCapacity, len(ccs))
	for i := range ccs {
		ps[i] = &ccs[i]
	}
	s.consumed(op, ps...)
}

// Stats returns a snapshot of the calls and consumed capacity of every
// operation since the Table was made or last reset. The snapshot is the
// caller's.
func (t *Table) Stats() Stats {
	t.stats.mu.Lock()
	ops := maps.Clone(t.stats.ops)
	t.stats.mu.Unlock()
	if ops == nil {
		ops = map[string]OpStats{}
	}
	st := Stats{Ops: ops}
	for _, o := range ops {
		st.ReadUnits += o.ReadUnits
		st.WriteUnits += o.WriteUnits
	}
	return st
}

// ResetStats sets every counter to zero.
func (t *Table) ResetStats() {
	t.stats.mu.Lock()
	t.stats.ops = nil
	t.stats.mu.Unlock()
}

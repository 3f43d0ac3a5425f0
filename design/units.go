package design

// Consistency is the kind of a read, which sets its price in read units.
type Consistency uint8

// The kinds of read.
const (
	// Eventual reads cost half a unit per 4 KB. The zero value.
	Eventual Consistency = iota
	// Strong (strongly consistent) reads cost one unit per 4 KB.
	Strong
	// Transactional reads (TransactGetItems) cost two units per 4 KB.
	Transactional
)

func (c Consistency) String() string {
	switch c {
	case Eventual:
		return "eventually consistent"
	case Strong:
		return "strongly consistent"
	case Transactional:
		return "transactional"
	}
	return "unknown consistency"
}

// factor is the read units of one 4 KB block.
func (c Consistency) factor() float64 {
	switch c {
	case Strong:
		return 1
	case Transactional:
		return 2
	}
	return 0.5
}

// Sizes of DynamoDB's capacity units.
const (
	WriteUnitBytes = 1024
	ReadUnitBytes  = 4096
)

// blocks returns how many blocks of size bytes n bytes take: at least one.
func blocks(n, size int64) int64 {
	if n <= 0 {
		return 1
	}
	return (n + size - 1) / size
}

// WriteUnits returns the write units of writing (putting, updating or
// deleting) one item of itemBytes: one per started KB, at least one, twice
// that in a transaction. For an UpdateItem, itemBytes is the larger of the
// item's size before and after the update.
func WriteUnits(itemBytes int, transactional bool) float64 {
	u := float64(blocks(int64(itemBytes), WriteUnitBytes))
	if transactional {
		u *= 2
	}
	return u
}

// ReadUnits returns the read units of reading bytes in one request block:
// one per started 4 KB (at least one) for a strongly consistent read, half
// that for an eventually consistent one, twice that for a transactional
// one. GetItem and BatchGetItem round each item up on its own; Query and
// Scan round the sum of the sizes of the items they read (including those a
// filter drops).
func ReadUnits(bytes int, c Consistency) float64 {
	return float64(blocks(int64(bytes), ReadUnitBytes)) * c.factor()
}

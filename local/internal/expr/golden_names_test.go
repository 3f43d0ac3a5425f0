package expr

import (
	"github.com/timetable-db/timetable/local/internal/number"
	"github.com/timetable-db/timetable/local/internal/value"
)

// The names golden_test.go uses for value semantics, which live in packages
// value and number. They are kept here, rather than renamed in
// golden_test.go, while that file's DynamoDB Local scaffolding is being
// reworked; the next change to it can use value and number directly and
// delete this file.
var (
	typeOf     = value.TypeOf
	cmpDecimal = number.Compare
)

const (
	tyS = value.S
	tyN = value.N
)

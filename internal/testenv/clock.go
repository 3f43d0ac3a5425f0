package testenv

import (
	"time"

	"github.com/timetable-db/timetable/internal/clock"
)

// Clock is a settable clock (internal/clock.Settable). Its zero value
// reads the zero time. It is safe for concurrent use.
type Clock = clock.Settable

// NewClock returns a Clock that reads t.
func NewClock(t time.Time) *Clock { return clock.New(t) }

package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/series"
)

func TestSmoke(t *testing.T) {
	lookup := func(k string) (series.Schema, error) {
		if k == "SENSOR" {
			return series.Schema{Name: "SENSOR", Fields: []string{"temperature", "humidity"}, Tags: []string{"location"}}, nil
		}
		return series.Schema{}, fmt.Errorf("%w: %q", series.ErrUnknownKind, k)
	}
	in := "# c\n\nSENSOR,location=lab,series=1 temperature=21.5,humidity=40i 1700000000000000000\n  SENSOR,host=a\\,b temperature=1 1700000000000000001\nSENSOR temperature=2,location=\"x\"\nSENSOR,b=1,a=2 humidity=t 5\nSENSOR temperature=1 -1\n"
	b, err := LineProtocol(strings.NewReader(in), lookup, Options{})
	fmt.Printf("%+v %v\n", b, err)
}

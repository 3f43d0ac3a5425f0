package ingest_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

func ExampleLineProtocol() {
	lookup := func(kind string) (series.Schema, error) {
		if kind != "SENSOR" {
			return series.Schema{}, fmt.Errorf("%w: %q", series.ErrUnknownKind, kind)
		}
		return series.Schema{Name: "SENSOR", Fields: []string{"temperature", "humidity"}, Tags: []string{"location"}}, nil
	}
	body := `SENSOR,series=123,location=lab temperature=21.5,humidity=40i 1733063400000000000
SENSOR,host=a,region=eu temperature=19 1733063400000000000
`
	b, err := ingest.LineProtocol(strings.NewReader(body), lookup, ingest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range b.Kinds {
		for _, s := range k.Series {
			for _, r := range s.Readings {
				fmt.Println(k.Kind, s.ID, r.Time.Format("2006-01-02T15:04:05Z"), r.Values, r.Tags)
			}
		}
	}
	_, err = ingest.LineProtocol(strings.NewReader("SENSOR temperature=1\nSENSOR temp=2\n"), lookup, ingest.Options{})
	fmt.Println(err)
	// Output:
	// SENSOR 123 2024-12-01T14:30:00Z [21.5 40] [lab]
	// SENSOR host=a,region=eu 2024-12-01T14:30:00Z [19 NaN] []
	// line 2: field "temp" is not a field of kind SENSOR
}

func ExampleWriteJSONLines() {
	s := series.Schema{Name: "SENSOR", Fields: []string{"temperature"}, Tags: []string{"location"}}
	b, _ := ingest.CSV(strings.NewReader("series,time,temperature,location\n123,2024-12-01T14:30:00Z,21.5,lab\n"), "SENSOR",
		func(string) (series.Schema, error) { return s, nil }, ingest.Options{})
	for _, sr := range b.Kinds[0].Series {
		ingest.WriteJSONLines(os.Stdout, s, sr.ID, sr.Readings)
	}
	// Output:
	// {"series":"123","time":"2024-12-01T14:30:00.000Z","values":{"temperature":21.5},"tags":{"location":"lab"}}
}

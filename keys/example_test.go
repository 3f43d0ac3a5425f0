package keys_test

import (
	"fmt"
	"time"

	"github.com/timetable-db/timetable/keys"
)

func Example() {
	at := time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC)
	hour, _ := keys.TimeSeries(at, keys.Hour)
	pk, _ := keys.Composite("SENSOR", "123", hour)
	sk, _ := keys.Timestamp(at)
	u, _ := keys.UniqueSeq(at, 42)
	fmt.Println(keys.Entity("SENSOR", "123"))
	fmt.Println(pk)
	fmt.Println(sk)
	fmt.Println(u)
	fmt.Println(keys.TTL(at.AddDate(0, 0, 30)))
	fmt.Println(keys.ShardedEntity("SENSOR", "123", 16))
	// Output:
	// SENSOR#123
	// SENSOR#123#2024-12-01-14
	// 2024-12-01T14:30:00.000Z
	// 2024-12-01T14:30:00.000Z#000000000000002a
	// 1735655400
	// SENSOR#123#S11
}

func ExampleParseTimeSeries() {
	start, g, err := keys.ParseTimeSeries("2024-12-01-14")
	fmt.Println(start, g, err)
	// Output: 2024-12-01 14:00:00 +0000 UTC hour <nil>
}

package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	influxdb2 "github.com/influxdata/influxdb-client-go/v2"
	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/timetable-db/timetable/auth"
)

// TestInfluxDBClient writes with InfluxData's own Go client: single points,
// a batch, and its non-blocking API, with a token, then reads them back.
func TestInfluxDBClient(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	ctx := context.Background()
	admin := e.mintToken("admin", auth.ScopeAdmin, nil)
	e.token = admin
	e.defineSensor()
	writer := e.mintToken("devices", auth.ScopeWrite, []string{"SENSOR"})

	client := influxdb2.NewClientWithOptions(e.http.URL, writer, influxdb2.DefaultOptions().SetBatchSize(50).SetPrecision(time.Millisecond))
	defer client.Close()
	blocking := client.WriteAPIBlocking("any-org", "any-bucket")
	p := influxdb2.NewPoint("SENSOR", map[string]string{"series": "dev1", "location": "lab"},
		map[string]any{"temperature": 21.25, "humidity": int64(40)}, t0.Add(time.Second))
	if err := blocking.WritePoint(ctx, p); err != nil {
		t.Fatal(err)
	}
	var batch []*write.Point
	for i := range 100 {
		batch = append(batch, influxdb2.NewPoint("SENSOR", map[string]string{"series": "dev2"},
			map[string]any{"temperature": float64(i)}, t0.Add(time.Duration(i)*time.Second)))
	}
	if err := blocking.WritePoint(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	// The non-blocking API batches in the background; Flush sends the rest.
	async := client.WriteAPI("any-org", "any-bucket")
	errs := async.Errors()
	for i := range 120 {
		async.WritePoint(influxdb2.NewPoint("SENSOR", map[string]string{"series": "dev3"},
			map[string]any{"temperature": float64(i)}, t0.Add(time.Duration(i)*time.Millisecond)))
	}
	async.Flush()
	select {
	case err := <-errs:
		t.Fatalf("async write: %v", err)
	default:
	}
	// A refused point comes back as the client's error, with our reason.
	bad := influxdb2.NewPoint("SENSOR", map[string]string{"series": "dev1"}, map[string]any{"temperature": "warm"}, t0)
	if err := blocking.WritePoint(ctx, bad); err == nil {
		t.Fatal("a point with a string for a number was accepted")
	} else {
		t.Logf("refused as expected: %v", err)
	}

	var latest struct {
		Values map[string]float64
		Tags   map[string]string
	}
	e.get("/api/v1/kinds/SENSOR/series/dev1/latest").must(t, http.StatusOK).json(t, &latest)
	if latest.Values["temperature"] != 21.25 || latest.Values["humidity"] != 40 || latest.Tags["location"] != "lab" {
		t.Fatalf("dev1: %+v", latest)
	}
	for id, want := range map[string]int{"dev2": 100, "dev3": 120} {
		var page struct{ Readings []any }
		e.get(fmt.Sprintf("/api/v1/kinds/SENSOR/series/%s/readings?from=%d", id, ms(t0))).must(t, http.StatusOK).json(t, &page)
		if len(page.Readings) != want {
			t.Errorf("%s: %d readings, want %d", id, len(page.Readings), want)
		}
	}
}

// TestInfluxDBv1Write: InfluxDB 1.x's /write with db and precision.
func TestInfluxDBv1Write(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	lines := fmt.Sprintf("SENSOR,series=v1 temperature=1 %d\nSENSOR,series=v1 temperature=2 %d\n", t0.Unix(), t0.Unix()+1)
	e.post("/write?db=mydb&precision=s", "text/plain", lines).must(t, http.StatusNoContent)
	var page struct{ Readings []struct{ Time string } }
	e.get(fmt.Sprintf("/api/v1/kinds/SENSOR/series/v1/readings?from=%d", ms(t0))).must(t, http.StatusOK).json(t, &page)
	if len(page.Readings) != 2 || page.Readings[1].Time != t0.Add(time.Second).Format("2006-01-02T15:04:05.000Z07:00") {
		t.Fatalf("readings: %+v", page.Readings)
	}
	e.post("/write?db=mydb&precision=fortnights", "text/plain", lines).must(t, http.StatusBadRequest)
}

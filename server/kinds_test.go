package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestKinds_MetricIndexOverAPI: a kind created, or changed, over the API
// with metric_index answers its metric route at once, without a restart:
// creating the kind adds the metric index to the table.
func TestKinds_MetricIndexOverAPI(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.postJSON("/api/v1/kinds", map[string]any{"name": "METER", "fields": []string{"power"}, "metric_index": true}).must(t, http.StatusCreated)
	from := t0.Add(-time.Hour)
	e.post("/api/v1/write?precision=ms&sync=true", "text/plain", fmt.Sprintf("METER,series=m1 power=3.5 %d\nMETER,series=m2 power=4.5 %d\n", ms(t0), ms(t0.Add(time.Second)))).must(t, http.StatusNoContent)
	var got struct {
		Points []struct {
			Series string
			Value  float64
		}
	}
	path := fmt.Sprintf("/api/v1/kinds/METER/metric/power?from=%d&to=%d", ms(from), ms(t0.Add(time.Hour)))
	e.get(path).must(t, http.StatusOK).json(t, &got)
	if len(got.Points) != 2 || got.Points[0].Series != "m1" || got.Points[1].Value != 4.5 {
		t.Fatalf("points of a created kind: %+v", got)
	}

	// A kind that gains the index by a change.
	e.defineSensor()
	b, _ := json.Marshal(map[string]any{"name": "SENSOR", "fields": []string{"temperature", "humidity"}, "tags": []string{"location"}, "metric_index": true})
	e.do(http.MethodPut, "/api/v1/kinds/SENSOR", "application/json", bytes.NewReader(b)).must(t, http.StatusOK)
	e.post("/api/v1/write?precision=ms&sync=true", "text/plain", fmt.Sprintf("SENSOR,series=s1,location=lab temperature=20 %d\n", ms(t0))).must(t, http.StatusNoContent)
	path = fmt.Sprintf("/api/v1/kinds/SENSOR/metric/temperature?from=%d&to=%d", ms(from), ms(t0.Add(time.Hour)))
	e.get(path).must(t, http.StatusOK).json(t, &got)
	if len(got.Points) != 1 || got.Points[0].Value != 20 {
		t.Fatalf("points of a changed kind: %+v", got)
	}
}

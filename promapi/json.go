package promapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/timetable-db/timetable/internal/httpjson"
)

var sprintf = fmt.Sprintf

// response is the body of every answer, as Prometheus' API has it.
type response struct {
	Status    string   `json:"status"`
	Data      any      `json:"data,omitempty"`
	ErrorType string   `json:"errorType,omitempty"`
	Error     string   `json:"error,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

func writeSuccess(w http.ResponseWriter, data any, warnings []string) {
	httpjson.Write(w, http.StatusOK, response{Status: "success", Data: data, Warnings: warnings})
}

// WriteError answers an error in Prometheus' format: {"status": "error",
// "errorType": typ, "error": msg} with status (499 is sent as 503: no
// client reads a status it closed the connection before).
func WriteError(w http.ResponseWriter, status int, typ, msg string) {
	if status == 499 {
		status = http.StatusServiceUnavailable
	}
	httpjson.Write(w, status, response{Status: "error", ErrorType: typ, Error: msg})
}

// queryData is the data of a query's answer.
type queryData struct {
	Type   parser.ValueType `json:"resultType"`
	Result result           `json:"result"`
}

// result is a promql value, encoded as Prometheus' API encodes it.
type result struct{ v parser.Value }

func (r result) MarshalJSON() ([]byte, error) {
	var b []byte
	switch v := r.v.(type) {
	case promql.Matrix:
		b = append(b, '[')
		for i, s := range v {
			b = appendSeriesStart(b, i, s.Metric, `,"values":[`)
			for j, p := range s.Floats {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendPoint(b, p.T, jsonFloat(p.F))
			}
			b = append(b, "]}"...)
		}
		return append(b, ']'), nil
	case promql.Vector:
		b = append(b, '[')
		for i, s := range v {
			b = appendSeriesStart(b, i, s.Metric, `,"value":`)
			b = appendPoint(b, s.T, jsonFloat(s.F))
			b = append(b, '}')
		}
		return append(b, ']'), nil
	case promql.Scalar:
		return appendPoint(b, v.T, jsonFloat(v.V)), nil
	case promql.String:
		return appendPoint(b, v.T, v.V), nil
	}
	return nil, fmt.Errorf("promapi: a result of type %T", r.v)
}

// appendSeriesStart appends the start of the i-th series of a list: a
// comma after the first, its metric, then key, which opens its points.
func appendSeriesStart(b []byte, i int, metric labels.Labels, key string) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = append(b, `{"metric":`...)
	b = appendLabels(b, metric)
	return append(b, key...)
}

// appendPoint appends [seconds, "value"].
func appendPoint(b []byte, ms int64, v string) []byte {
	b = append(b, '[')
	b = strconv.AppendFloat(b, float64(ms)/1000, 'f', -1, 64)
	b = append(b, ',')
	b, _ = appendString(b, v)
	return append(b, ']')
}

func appendString(b []byte, s string) ([]byte, error) {
	q, err := json.Marshal(s)
	return append(b, q...), err
}

// appendLabels appends ls as a JSON object.
func appendLabels(b []byte, ls labels.Labels) []byte {
	b = append(b, '{')
	first := true
	ls.Range(func(l labels.Label) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b, _ = appendString(b, l.Name)
		b = append(b, ':')
		b, _ = appendString(b, l.Value)
	})
	return append(b, '}')
}

// labelSet is a label set encoded as a JSON object.
type labelSet struct{ ls labels.Labels }

func (l labelSet) MarshalJSON() ([]byte, error) { return appendLabels(nil, l.ls), nil }

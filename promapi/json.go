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
	if d, ok := data.(queryData); ok && d.Result.known() {
		writeQuery(w, d, warnings)
		return
	}
	httpjson.Write(w, http.StatusOK, response{Status: "success", Data: data, Warnings: warnings})
}

// writeQuery writes the answer of a query as httpjson.Write would, its
// result appended a series at a time into a buffer written out as it fills:
// encoding/json would copy and scan again the result's JSON, points by
// the million for a range query.
func writeQuery(w http.ResponseWriter, d queryData, warnings []string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	b := make([]byte, 0, 64<<10)
	flush := func() {
		if len(b) >= 32<<10 {
			_, _ = w.Write(b)
			b = b[:0]
		}
	}
	b = append(b, `{"status":"success","data":{"resultType":`...)
	b, _ = appendString(b, string(d.Type))
	b = append(b, `,"result":`...)
	b = d.Result.append(b, flush)
	b = append(b, '}')
	if len(warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, s := range warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = appendString(b, s)
		}
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	_, _ = w.Write(b)
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
	if !r.known() {
		return nil, fmt.Errorf("promapi: a result of type %T", r.v)
	}
	return r.append(nil, func() {}), nil
}

// known reports whether the result is of a type append encodes.
func (r result) known() bool {
	switch r.v.(type) {
	case promql.Matrix, promql.Vector, promql.Scalar, promql.String:
		return true
	}
	return false
}

// append appends the result to b, calling flush after each series (which
// may write b out and empty it).
func (r result) append(b []byte, flush func()) []byte {
	switch v := r.v.(type) {
	case promql.Matrix:
		b = append(b, '[')
		for i, s := range v {
			b = appendSeriesStart(b, i, s.Metric, `,"values":[`)
			for j, p := range s.Floats {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendPoint(b, p.T, p.F)
			}
			b = append(b, "]}"...)
			flush()
		}
		return append(b, ']')
	case promql.Vector:
		b = append(b, '[')
		for i, s := range v {
			b = appendSeriesStart(b, i, s.Metric, `,"value":`)
			b = appendPoint(b, s.T, s.F)
			b = append(b, '}')
			flush()
		}
		return append(b, ']')
	case promql.Scalar:
		return appendPoint(b, v.T, v.V)
	case promql.String:
		b = append(b, '[')
		b = strconv.AppendFloat(b, float64(v.T)/1000, 'f', -1, 64)
		b = append(b, ',')
		b, _ = appendString(b, v.V)
		return append(b, ']')
	}
	return b
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

// appendPoint appends [seconds, "value"] (appendFloat's value needs no
// escaping).
func appendPoint(b []byte, ms int64, v float64) []byte {
	b = append(b, '[')
	b = strconv.AppendFloat(b, float64(ms)/1000, 'f', -1, 64)
	b = append(b, ',', '"')
	b = appendFloat(b, v)
	return append(b, '"', ']')
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

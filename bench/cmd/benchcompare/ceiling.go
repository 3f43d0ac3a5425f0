package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// ceilingServer is a DynamoDB endpoint that does no work: it answers the
// load generator's operations with fixed, valid responses (a Query returns
// 20 items, a GetItem one). The load generator against it measures what the
// client and HTTP on this machine cost by themselves, so the highest
// throughput, and the highest ratio, any server can show in this benchmark.
type ceilingServer struct {
	srv      *http.Server
	endpoint string

	mu     sync.Mutex
	tables map[string]bool
}

const ceilingItem = `{"pk":{"S":"P#0001"},"sk":{"N":"7"},"n":{"N":"0"},"payload":{"S":"` +
	"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp" + `"}}`

func startCeiling() (*ceilingServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &ceilingServer{endpoint: "http://" + ln.Addr().String(), tables: map[string]bool{}}
	items := strings.TrimSuffix(strings.Repeat(ceilingItem+",", 20), ",")
	query := `{"Count":20,"ScannedCount":20,"Items":[` + items + `]}`
	get := `{"Item":` + ceilingItem + `}`
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		var out string
		switch op {
		case "PutItem":
			out = `{}`
		case "GetItem":
			out = get
		case "Query":
			out = query
		case "BatchWriteItem":
			out = `{"UnprocessedItems":{}}`
		case "ListTables":
			out = `{"TableNames":[]}`
		case "CreateTable", "DescribeTable", "DeleteTable":
			name := tableName(body)
			c.mu.Lock()
			exists := c.tables[name]
			switch op {
			case "CreateTable":
				c.tables[name] = true
			case "DeleteTable":
				delete(c.tables, name)
			}
			c.mu.Unlock()
			if !exists && op != "CreateTable" {
				w.WriteHeader(http.StatusBadRequest)
				out = `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`
				break
			}
			desc := fmt.Sprintf(`{"TableName":%q,"TableStatus":"ACTIVE"}`, name)
			if op == "DescribeTable" {
				out = `{"Table":` + desc + `}`
			} else {
				out = `{"TableDescription":` + desc + `}`
			}
		default:
			w.WriteHeader(http.StatusBadRequest)
			out = `{"__type":"com.amazon.coral.service#UnknownOperationException"}`
		}
		io.WriteString(w, out)
	})}
	go c.srv.Serve(ln)
	return c, nil
}

// tableName finds "TableName":"..." in a request body.
func tableName(body []byte) string {
	_, rest, ok := strings.Cut(string(body), `"TableName":"`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	return name
}

func (c *ceilingServer) close() { c.srv.Close() }

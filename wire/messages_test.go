package wire_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// TestMessages_MatchDynamoDBLocal sends the invalid requests of
// testdata/messages.txt to DynamoDB Local and to the engine behind the
// handler, and fails on every answer whose error type, message or
// cancellation reasons differ, unless the probe is marked "known:" with
// the reason (docs/compat.md lists those). It is the probe that finds
// wording differences systematically; the conformance suite holds one case
// per message family.
//
// The file holds probes separated by blank lines: a line "Operation name",
// the request body as JSON on one line, and optionally "known: reason".
// In a body, {H} is a hash table (pk S) holding item pk=a, and {R} a table
// keyed by pk (S) and sk (N) with a local index "lsi" on lk (S) and a global
// index "gsi" on g (S) and gs (N); {X} names no table.
func TestMessages_MatchDynamoDBLocal(t *testing.T) {
	ref := dynamotest.Require(t)
	db := testenv.MemDB(t, &local.Options{NoSync: true})
	srv := httptest.NewServer(wire.New(db, nil))
	t.Cleanup(srv.Close)

	probes, err := readProbes("testdata/messages.txt")
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	run := hex.EncodeToString(b)
	names := strings.NewReplacer("{H}", "msg_"+run+"_h", "{R}", "msg_"+run+"_r", "{X}", "msg_"+run+"_x")
	for _, endpoint := range []string{ref, srv.URL} {
		for _, f := range probeFixtures {
			if a := probePost(t, endpoint, f.op, names.Replace(f.body)); a.Type != "" {
				t.Fatalf("fixture %s on %s: %s %s", f.op, endpoint, a.Type, a.Message)
			}
		}
		t.Cleanup(func() {
			for _, tbl := range []string{"{H}", "{R}", "{X}"} {
				probePost(t, endpoint, "DeleteTable", names.Replace(`{"TableName":"`+tbl+`"}`))
			}
		})
	}
	differ, known := 0, 0
	for _, p := range probes {
		body := names.Replace(p.body)
		want := probePost(t, ref, p.op, body)
		got := probePost(t, srv.URL, p.op, body)
		if got.String() == want.String() {
			if p.known != "" {
				t.Errorf("%s %s (line %d) is marked known (%s) but answers as DynamoDB Local: %s", p.op, p.name, p.line, p.known, got)
			}
			continue
		}
		differ++
		if p.known != "" {
			known++
			continue
		}
		t.Errorf("%s %s (line %d):\n  DynamoDB Local: %s\n  engine:         %s", p.op, p.name, p.line, want, got)
	}
	t.Logf("%d probes, %d differ from DynamoDB Local, %d of them known", len(probes), differ, known)
}

// probeFixtures create the tables of the probes and the item of {H}.
var probeFixtures = []struct{ op, body string }{
	{"CreateTable", `{"TableName":"{H}","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`},
	{"CreateTable", `{"TableName":"{R}","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"lk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"gs","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"lk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"gs","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`},
	{"PutItem", `{"TableName":"{H}","Item":{"pk":{"S":"a"},"v":{"N":"1"},"s":{"S":"x"},"l":{"L":[{"N":"1"}]},"ss":{"SS":["a"]}}}`},
	{"PutItem", `{"TableName":"{R}","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"N":"1"}}}`},
}

type probe struct {
	op, name, body, known string
	line                  int
}

func readProbes(path string) ([]probe, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []probe
	var cur *probe
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#"):
		case line == "":
			cur = nil
		case cur == nil:
			op, name, _ := strings.Cut(line, " ")
			ps = append(ps, probe{op: op, name: name, line: n})
			cur = &ps[len(ps)-1]
		case cur.body == "":
			cur.body = line
		case strings.HasPrefix(line, "known:"):
			cur.known = strings.TrimSpace(strings.TrimPrefix(line, "known:"))
		default:
			return nil, fmt.Errorf("%s:%d: unexpected line %q", path, n, line)
		}
	}
	for _, p := range ps {
		if p.body == "" {
			return nil, fmt.Errorf("%s:%d: probe without a body", path, p.line)
		}
	}
	return ps, sc.Err()
}

// answer is what a probe compares: the error's type (without its
// namespace) and message, and a cancellation's reasons; all empty for a
// success.
type probeAnswer struct {
	Type    string `json:"__type"`
	Message string
	Reasons json.RawMessage `json:"CancellationReasons"`
}

func (a probeAnswer) String() string {
	if a.Type == "" {
		return "success"
	}
	s := a.Type + ": " + a.Message
	if len(a.Reasons) > 0 {
		s += " " + string(a.Reasons)
	}
	return s
}

func probePost(t testing.TB, endpoint, op, body string) probeAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=messages/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		return probeAnswer{}
	}
	var a probeAnswer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&a); err != nil {
		return probeAnswer{Type: fmt.Sprintf("HTTP %d", resp.StatusCode), Message: string(raw)}
	}
	if len(a.Reasons) > 0 {
		// The order of members differs; Go writes a map's keys sorted.
		var rs []map[string]any
		if err := json.Unmarshal(a.Reasons, &rs); err == nil {
			a.Reasons, _ = json.Marshal(rs)
		}
	}
	if i := strings.LastIndexByte(a.Type, '#'); i >= 0 {
		a.Type = a.Type[i+1:]
	}
	if a.Message == "" {
		var m struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &m)
		a.Message = m.Message
	}
	return a
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/dynamotest"
)

// The fleet test's settings: every server flushes, rolls up, compacts,
// aggregates and forgets what it read of tokens, sites and kinds every
// fleetTick, so a change made through one server is stated to reach the
// others within fleetBound (--cache-ttl plus one interval); the test
// waits for it until fleetPatience.
const (
	fleetTick     = time.Second
	fleetBound    = 2 * fleetTick
	fleetPatience = 10 * fleetBound
	fleetSeries   = 4 // the series the readings' writers write, one each
	fleetBatch    = 20
	fleetItems    = "fleet_items"
	fleetUAs      = 5 // the visitors: hits come from this many user agents
)

// analyticsLease is the least lease of a site's aggregation (analytics
// minLease): when the killed server held it, the aggregation of the site
// waits for it to end.
const analyticsLease = 30 * time.Second

// fleetSpan is the range the readings' times are spread over, ending an
// hour before the current hour, so that the rollup pass computes every
// hour they fall in (their hours ended more than the late window ago).
const fleetSpan = 3 * time.Hour

// TestFleet (issue 23): three `serve` processes on one remote backend
// table, each with its own write-ahead log folder, take writes from
// several concurrent clients: line protocol and JSON readings of a kind
// that keeps every reading of an instant (one instant of series "twin" is
// written through two servers at once), hours in the past so that the
// rollup pass computes them; analytics hits on a site; DynamoDB PutItem
// through the servers' DynamoDB endpoints. One server is killed with
// SIGKILL and restarted on its folder in the middle. Then, through every
// server: each acknowledged reading, hit and item is read back once (and
// nothing that was not sent); the hourly rollups and the daily visitors
// and page views of the Stats API equal a model of what is stored; and a
// kind defined, a token revoked and a site made private through one
// server take effect on the others within fleetBound (waited for until
// fleetPatience). It logs the observed delays and the write units per
// acknowledged reading.
func TestFleet(t *testing.T) {
	eachRemoteBackend(t, func(t *testing.T, url string, tb remoteTables) {
		items := fleetItems
		if url == dynamotest.Endpoint() {
			items = dynamotest.TableName(t, "items")
		}
		runFleet(t, url, tb, items)
	})
}

// fleet is the servers of the test and what the clients sent them.
type fleet struct {
	t              *testing.T
	backend        string
	tables         remoteTables
	token          string // an admin token
	keyID, secret  string // an admin access key
	itemsTable     string
	servers        [3]*child
	dirs           [3]string
	mu             sync.Mutex
	nextInstant    int64
	nextValue      int64
	sentReadings   map[float64]ackedReading // by value, unique to each reading
	ackedReadings  map[float64]bool
	sentHits       map[string]int // page -> user agent
	ackedHits      map[string]bool
	sentItems      map[string]bool
	ackedItems     map[string]bool
	base           time.Time // the start of fleetSpan
	killedUnits    float64   // write units of the killed server before its kill
	killedReadUnit float64
}

func runFleet(t *testing.T, backendURL string, tb remoteTables, itemsTable string) {
	start := time.Now()
	f := &fleet{t: t, backend: backendURL, tables: tb, itemsTable: itemsTable,
		sentReadings: map[float64]ackedReading{}, ackedReadings: map[float64]bool{},
		sentHits: map[string]int{}, ackedHits: map[string]bool{}, sentItems: map[string]bool{}, ackedItems: map[string]bool{},
		base: time.Now().UTC().Truncate(time.Hour).Add(-time.Hour - fleetSpan)}
	cli := append([]string{"--backend", backendURL}, tb.flags(false)...)
	f.token = strings.TrimSpace(mustCLI(t, append([]string{"token", "create", "--name", "fleet-admin", "--scopes", "admin"}, cli...)...))
	f.keyID, f.secret = accessKeyOf(mustCLI(t, append([]string{"token", "create", "--dynamodb", "--name", "fleet-key", "--scopes", "admin"}, cli...)...))
	if f.token == "" || f.keyID == "" {
		t.Fatalf("no admin token or access key: %q %q", f.token, f.keyID)
	}
	for i := range f.servers {
		f.dirs[i] = filepath.Join(t.TempDir(), fmt.Sprintf("s%d", i))
		f.servers[i] = f.start(i)
	}
	t.Logf("three servers up after %v", time.Since(start).Round(time.Millisecond))

	// The kind, the site (public, so that its stats are read without a
	// token) and the items' table, through server 0; the clients start
	// once every server knows them.
	f.mustCall(0, "POST", "/api/v1/kinds", `{"name":"FLEET","fields":["v"],"duplicates":"keep_all"}`, http.StatusCreated)
	f.mustCall(0, "POST", "/api/v1/sites", `{"id":"fleet","domains":["fleet.test"],"public":true}`, http.StatusCreated)
	ctx := context.Background()
	if _, err := f.dynamo(0).CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(f.itemsTable),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatalf("CreateTable through server 0: %v", err)
	}
	for i := range f.servers {
		f.await(fmt.Sprintf("kind FLEET and site fleet on server %d", i), func() bool {
			c1, _ := f.call(i, "GET", "/api/v1/kinds/FLEET", f.token, "")
			c2, _ := f.call(i, "GET", "/api/v1/sites/fleet", "", "")
			return c1 == http.StatusOK && c2 == http.StatusOK
		})
	}

	f.write()
	t.Logf("writes done after %v: %d of %d readings, %d of %d hits, %d of %d items acknowledged", time.Since(start).Round(time.Millisecond),
		len(f.ackedReadings), len(f.sentReadings), len(f.ackedHits), len(f.sentHits), len(f.ackedItems), len(f.sentItems))
	if len(f.ackedReadings) == 0 || len(f.ackedHits) == 0 || len(f.ackedItems) == 0 {
		t.Fatal("a kind of write was never acknowledged")
	}

	f.propagation()
	f.awaitFlushed()
	stored := f.checkReadings()
	f.checkRollups(stored)
	f.checkHits()
	f.checkItems()
	f.privateSite()
	f.logUnits()
	t.Logf("fleet test on %s took %v", backendURL, time.Since(start).Round(time.Millisecond))
}

// start runs server i on its folder and the fleet's backend.
func (f *fleet) start(i int) *child {
	f.t.Helper()
	args := append([]string{"--backend", f.backend}, f.tables.flags(true)...)
	tick := fleetTick.String()
	args = append(args, "--flush-interval", tick, "--aggregate-every", tick, "--cache-ttl", tick,
		"--rollup-interval", tick, "--compact-interval", tick, "--collect-rate-limit", "-1")
	return startServe(f.t, f.dirs[i], args...)
}

// url returns server i's base URL, which changes when it restarts.
func (f *fleet) url(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.servers[i].url
}

// call sends a request to server i with token ("" for none).
func (f *fleet) call(i int, method, path, token, body string) (int, string) {
	f.t.Helper()
	return call(f.t, method, f.url(i)+path, token, "application/json", body)
}

// mustCall sends a request with the admin token and fails the test
// unless it is answered want.
func (f *fleet) mustCall(i int, method, path, body string, want int) string {
	f.t.Helper()
	code, out := f.call(i, method, path, f.token, body)
	if code != want {
		f.t.Fatalf("%s %s on server %d: %d %s, want %d", method, path, i, code, out, want)
	}
	return out
}

// getJSON reads path on server i with the admin token into v.
func (f *fleet) getJSON(i int, path string, v any) {
	f.t.Helper()
	if err := json.Unmarshal([]byte(f.mustCall(i, "GET", path, "", http.StatusOK)), v); err != nil {
		f.t.Fatalf("GET %s on server %d: %v", path, i, err)
	}
}

// dynamo returns a client of server i's DynamoDB endpoint with the admin
// access key.
func (f *fleet) dynamo(i int) *dynamodb.Client { return dynamoClient(f.url(i), f.keyID, f.secret) }

// await polls ok until it holds, and fails the test after fleetPatience;
// it returns how long it took.
func (f *fleet) await(what string, ok func() bool) time.Duration {
	f.t.Helper()
	d, done := poll(fleetPatience, ok)
	if !done {
		f.t.Fatalf("%s: not after %v", what, fleetPatience)
	}
	return d
}

// poll polls ok until it holds or patience has passed, and returns how
// long it took and whether it held.
func poll(patience time.Duration, ok func() bool) (time.Duration, bool) {
	start := time.Now()
	for !ok() {
		if time.Since(start) > patience {
			return time.Since(start), false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start), true
}

// write runs the clients, kills server 1 with SIGKILL in the middle and
// restarts it on its folder, and stops the clients.
func (f *fleet) write() {
	t := f.t
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	span := fleetSpan.Milliseconds()
	// instants returns n new instants; value a new value.
	instants := func(n int) int64 {
		f.mu.Lock()
		defer f.mu.Unlock()
		first := f.nextInstant
		f.nextInstant += int64(n)
		return first
	}
	at := func(instant int64) int64 { return f.base.UnixMilli() + instant*7919%span }
	value := func() float64 {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.nextValue++
		return float64(f.nextValue)
	}
	sent := func(rs []ackedReading) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, r := range rs {
			f.sentReadings[r.value] = r
		}
	}
	acked := func(rs []ackedReading) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, r := range rs {
			f.ackedReadings[r.value] = true
		}
	}
	auth := []string{"Authorization", "Bearer " + f.token}
	// The readings' writers: a series each, batches to each server in
	// turn, line protocol and JSON in turn.
	for w := range fleetSeries {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				first := instants(fleetBatch)
				batch := make([]ackedReading, fleetBatch)
				for i := range batch {
					batch[i] = ackedReading{series: fmt.Sprintf("d%d", w), ms: at(first + int64(i)), value: value()}
				}
				sent(batch)
				if sendBatch(ctx, f.url((w+n)%3), "FLEET", batch, n%2 == 0, auth...) {
					acked(batch)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	// Twins: two readings of series "twin" at one instant, through two
	// servers at once; the kind keeps both.
	wg.Go(func() {
		for n := 0; ctx.Err() == nil; n++ {
			ms := at(instants(1))
			var pair sync.WaitGroup
			for k := range 2 {
				r := []ackedReading{{series: "twin", ms: ms, value: value()}}
				sent(r)
				pair.Go(func() {
					if sendBatch(ctx, f.url((n+k)%3), "FLEET", r, k == 0, auth...) {
						acked(r)
					}
				})
			}
			pair.Wait()
			time.Sleep(5 * time.Millisecond)
		}
	})
	// Hits, a page each, from fleetUAs visitors.
	for w := range 2 {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				f.mu.Lock()
				page, ua := fmt.Sprintf("/f/%d", len(f.sentHits)), len(f.sentHits)%fleetUAs
				f.sentHits[page] = ua
				f.mu.Unlock()
				body := fmt.Sprintf(`{"n":"pageview","u":"http://fleet.test%s","d":"fleet"}`, page)
				if postAcked(ctx, f.url((w+n)%3)+"/api/event", strings.NewReader(body), "Content-Type", "text/plain", "User-Agent", fleetUA(ua)) == http.StatusAccepted {
					f.mu.Lock()
					f.ackedHits[page] = true
					f.mu.Unlock()
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	// Items, PutItem through each server's DynamoDB endpoint in turn.
	for w := range 2 {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				f.mu.Lock()
				pk := fmt.Sprintf("i%d", len(f.sentItems))
				f.sentItems[pk] = true
				f.mu.Unlock()
				rctx, stop := context.WithTimeout(ctx, 10*time.Second)
				_, err := f.dynamo((w+n)%3).PutItem(rctx, &dynamodb.PutItemInput{TableName: aws.String(f.itemsTable),
					Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: pk}}})
				stop()
				if err == nil {
					f.mu.Lock()
					f.ackedItems[pk] = true
					f.mu.Unlock()
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}

	time.Sleep(3 * time.Second)
	// What server 1 consumed before its kill is lost with it: read it
	// just before.
	f.killedUnits, f.killedReadUnit = f.units(1)
	victim := f.servers[1]
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-victim.done
	victim.done <- nil // for startServe's cleanup
	time.Sleep(500 * time.Millisecond)
	restarted := f.start(1)
	f.mu.Lock()
	f.servers[1] = restarted
	f.mu.Unlock()
	time.Sleep(3 * time.Second)
	cancel()
	wg.Wait()
}

// fleetUA returns visitor i's user agent: a browser's, one per visitor.
func fleetUA(i int) string {
	return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", 120+i, 120+i)
}

// propagation makes changes through server 0 and measures how long the
// others take to apply them: a kind defined, a token made, that token
// revoked.
func (f *fleet) propagation() {
	t := f.t
	f.mustCall(0, "POST", "/api/v1/kinds", `{"name":"LATER","fields":["x"]}`, http.StatusCreated)
	for i := 1; i < 3; i++ {
		d := f.await(fmt.Sprintf("kind LATER on server %d", i), func() bool {
			code, _ := f.call(i, "GET", "/api/v1/kinds/LATER", f.token, "")
			return code == http.StatusOK
		})
		t.Logf("kind defined through server 0: on server %d after %v", i, d.Round(time.Millisecond))
	}
	var tok struct{ ID, Token string }
	if err := json.Unmarshal([]byte(f.mustCall(0, "POST", "/api/v1/tokens", `{"name":"fleet-reader","scopes":["read"]}`, http.StatusCreated)), &tok); err != nil || tok.Token == "" {
		t.Fatalf("token through server 0: %v %+v", err, tok)
	}
	reads := func(i int) int {
		code, _ := f.call(i, "GET", "/api/v1/kinds/FLEET", tok.Token, "")
		return code
	}
	for i := 1; i < 3; i++ {
		f.await(fmt.Sprintf("the new token on server %d", i), func() bool { return reads(i) == http.StatusOK })
	}
	f.mustCall(0, "DELETE", "/api/v1/tokens/"+tok.ID, "", http.StatusNoContent)
	if code := reads(0); code != http.StatusUnauthorized {
		t.Fatalf("the revoked token on server 0: %d, want 401", code)
	}
	for i := 1; i < 3; i++ {
		d := f.await(fmt.Sprintf("the token revoked through server 0, refused on server %d", i), func() bool { return reads(i) == http.StatusUnauthorized })
		t.Logf("token revoked through server 0: refused on server %d after %v", i, d.Round(time.Millisecond))
		if d > fleetBound {
			t.Logf("(beyond the stated %v)", fleetBound)
		}
	}
}

// privateSite makes the site private through server 0 and measures how
// long the others take to refuse its stats without a token.
func (f *fleet) privateSite() {
	f.mustCall(0, "PUT", "/api/v1/sites/fleet", `{"id":"fleet","domains":["fleet.test"],"public":false}`, http.StatusOK)
	for i := range f.servers {
		d := f.await(fmt.Sprintf("site made private through server 0, on server %d", i), func() bool {
			code, _ := f.call(i, "GET", "/api/v1/sites/fleet", "", "")
			return code == http.StatusUnauthorized
		})
		f.t.Logf("site made private through server 0: refused without a token on server %d after %v", i, d.Round(time.Millisecond))
	}
}

// metric returns the value of the Prometheus sample line name (labels
// included) that server i exposes, -1 if it has none.
func (f *fleet) metric(i int, name string) float64 {
	f.t.Helper()
	out := f.mustCall(i, "GET", "/metrics", "", http.StatusOK)
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				f.t.Fatalf("metric %s: %v", name, err)
			}
			return x
		}
	}
	return -1
}

// units returns the write and read units server i's series store reports
// consumed.
func (f *fleet) units(i int) (write, read float64) {
	return f.metric(i, `timetable_series_consumed_capacity_units_total{kind="write"}`),
		f.metric(i, `timetable_series_consumed_capacity_units_total{kind="read"}`)
}

// awaitFlushed waits until no server holds a buffered reading.
func (f *fleet) awaitFlushed() {
	for i := range f.servers {
		f.await(fmt.Sprintf("server %d's buffer flushed", i), func() bool { return f.metric(i, "timetable_series_readings_buffered") == 0 })
	}
}

// checkReadings reads every series back through every server: each
// acknowledged reading once, no reading that was not sent, none twice.
// It returns the readings stored (those sent and not acknowledged may be).
func (f *fleet) checkReadings() []ackedReading {
	t := f.t
	ids := map[string]bool{}
	for _, r := range f.sentReadings {
		ids[r.series] = true
	}
	var stored []ackedReading
	for i := range f.servers {
		var got []ackedReading
		for id := range ids {
			for cursor := ""; ; {
				var p struct {
					Readings []servedReading
					Cursor   string
				}
				q := "/api/v1/kinds/FLEET/series/" + id + "/readings?page_size=5000"
				if cursor != "" {
					q += "&cursor=" + cursor
				}
				f.getJSON(i, q, &p)
				for _, r := range p.Readings {
					tm, err := time.Parse(time.RFC3339Nano, r.Time)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ackedReading{series: id, ms: tm.UnixMilli(), value: r.Values["v"]})
				}
				if cursor = p.Cursor; cursor == "" {
					break
				}
			}
		}
		seen := map[float64]bool{}
		for _, r := range got {
			want, ok := f.sentReadings[r.value]
			switch {
			case !ok || want != r:
				t.Fatalf("server %d: reading %+v was never sent", i, r)
			case seen[r.value]:
				t.Fatalf("server %d: reading %+v read twice", i, r)
			}
			seen[r.value] = true
		}
		for v := range f.ackedReadings {
			if !seen[v] {
				t.Fatalf("server %d: the acknowledged reading %+v is lost (%d of %d read)", i, f.sentReadings[v], countSeen(f.ackedReadings, seen), len(f.ackedReadings))
			}
		}
		if i > 0 && len(got) != len(stored) {
			t.Fatalf("server %d reads %d readings, server 0 %d", i, len(got), len(stored))
		}
		stored = got
	}
	twins := map[int64]int{}
	for _, r := range stored {
		if r.series == "twin" {
			twins[r.ms]++
		}
	}
	pairs := 0
	for _, n := range twins {
		if n == 2 {
			pairs++
		}
	}
	if pairs == 0 {
		t.Fatal("no instant of series twin holds both of its readings")
	}
	t.Logf("readings: %d stored (%d acknowledged, %d sent), each once through every server; %d instants of series twin hold both readings sent through two servers",
		len(stored), len(f.ackedReadings), len(f.sentReadings), pairs)
	return stored
}

// servedReading is a reading as the series API answers it.
type servedReading struct {
	Time   string
	Values map[string]float64
}

// countSeen returns how many keys of want are in seen.
func countSeen[K comparable](want map[K]bool, seen map[K]bool) int {
	n := 0
	for k := range want {
		if seen[k] {
			n++
		}
	}
	return n
}

// timeLayoutMs is the series API's time format.
const timeLayoutMs = "2006-01-02T15:04:05.000Z07:00"

// hourMarker matches the sort key of an hour's rollup marker.
var hourMarker = regexp.MustCompile(`#\d{4}-\d\d-\d\d-\d\d$`)

// checkRollups waits until the rollup pass has computed every hour the
// readings touched (no hour marker left), then checks through every
// server that the hourly aggregates, read from the rollups, equal the
// model of the stored readings, and that the rollup items exist.
func (f *fleet) checkRollups(stored []ackedReading) {
	t := f.t
	ctx := context.Background()
	d := f.await("the rollups of every hour written", func() bool {
		out, err := f.dynamo(0).Query(ctx, &dynamodb.QueryInput{TableName: aws.String(f.tables.series),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "~DIRTY#FLEET"}},
			ConsistentRead:            aws.Bool(true)})
		if err != nil {
			t.Fatalf("Query of the rollup markers: %v", err)
		}
		for _, it := range out.Items {
			if sk, ok := it["sk"].(*types.AttributeValueMemberS); ok && hourMarker.MatchString(sk.Value) {
				return false
			}
		}
		return out.LastEvaluatedKey == nil
	})
	t.Logf("rollups: every hour computed %v after the writes were flushed", d.Round(time.Millisecond))

	type agg struct {
		count         int64
		sum, min, max float64
	}
	model := map[string]map[string]*agg{} // series -> hour (as the API gives it) -> aggregate
	for _, r := range stored {
		h := time.UnixMilli(r.ms).UTC().Truncate(time.Hour).Format(timeLayoutMs)
		if model[r.series] == nil {
			model[r.series] = map[string]*agg{}
		}
		a := model[r.series][h]
		if a == nil {
			a = &agg{min: math.Inf(1), max: math.Inf(-1)}
			model[r.series][h] = a
		}
		a.count++
		a.sum += r.value
		a.min, a.max = min(a.min, r.value), max(a.max, r.value)
	}
	from, to := f.base.Format(time.RFC3339), f.base.Add(fleetSpan).Format(time.RFC3339)
	for id, hours := range model {
		out, err := f.dynamo(0).Query(ctx, &dynamodb.QueryInput{TableName: aws.String(f.tables.series),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "FLEET#" + id + "#H"}},
			ConsistentRead:            aws.Bool(true)})
		if err != nil || len(out.Items) != len(hours) {
			t.Fatalf("series %s: %d hourly rollup items (%v), want %d", id, len(out.Items), err, len(hours))
		}
		for i := range f.servers {
			var a struct {
				Tier    string
				Periods []struct {
					Start  string
					Count  int64
					Fields map[string]struct {
						Count         int64
						Sum, Min, Max float64
					}
				}
			}
			f.getJSON(i, "/api/v1/kinds/FLEET/series/"+id+"/aggregate?tier=hour&step=1h&from="+from+"&to="+to, &a)
			if a.Tier != "hour" || len(a.Periods) != len(hours) {
				t.Fatalf("series %s on server %d: %d hourly periods of tier %q, want %d of tier hour", id, i, len(a.Periods), a.Tier, len(hours))
			}
			for _, p := range a.Periods {
				want, v := hours[p.Start], p.Fields["v"]
				if want == nil || p.Count != want.count || v.Count != want.count || v.Sum != want.sum || v.Min != want.min || v.Max != want.max {
					t.Fatalf("series %s on server %d, hour %s: count %d, %+v; the model: %+v", id, i, p.Start, p.Count, v, want)
				}
			}
		}
	}
	t.Logf("rollups: the hourly aggregates of %d series equal the model through every server", len(model))
}

// checkHits reads the hits back through every server (each page's once,
// from the raw hits) and waits until the daily visitors and page views of
// the aggregates equal the model of the hits stored.
func (f *fleet) checkHits() {
	t := f.t
	var stored map[string]int64
	for i := range f.servers {
		got := pageViews(t, f.url(i), "fleet", "/f/", true)
		for page, n := range got {
			if _, ok := f.sentHits[page]; !ok || n != 1 {
				t.Fatalf("server %d: %d page views of %s (sent: %v)", i, n, page, ok)
			}
		}
		for page := range f.ackedHits {
			if got[page] != 1 {
				t.Fatalf("server %d: the acknowledged hit of %s is lost", i, page)
			}
		}
		if i > 0 && len(got) != len(stored) {
			t.Fatalf("server %d reads %d hits, server 0 %d", i, len(got), len(stored))
		}
		stored = got
	}
	visitors := map[int]bool{}
	for page := range stored {
		visitors[f.sentHits[page]] = true
	}
	today := time.Now().UTC().Format(time.DateOnly)
	q := func(metric string) map[string]any {
		return map[string]any{"site_id": "fleet", "metrics": []string{metric}, "dimensions": []string{"time:day"},
			"date_range": []string{time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly), time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)}}
	}
	start := time.Now()
	for i := range f.servers {
		var last string
		_, done := poll(analyticsLease+fleetPatience, func() bool {
			pv, vis := queryStats(t, f.url(i), q("pageviews"), "aggregates"), queryStats(t, f.url(i), q("visitors"), "aggregates")
			var sum int64
			for _, n := range pv {
				sum += n
			}
			last = fmt.Sprintf("page views %v, visitors %v", pv, vis)
			if sum > int64(len(stored)) {
				t.Fatalf("server %d: the aggregates count %d page views, %d hits are stored: %s", i, sum, len(stored), last)
			}
			if len(pv) > 1 || len(vis) > 1 {
				return sum == int64(len(stored)) // the hits straddle midnight: totals only
			}
			return pv[today] == int64(len(stored)) && vis[today] == int64(len(visitors))
		})
		if !done {
			t.Fatalf("server %d: the aggregates do not count the %d hits stored from %d visitors after %v: %s",
				i, len(stored), len(visitors), analyticsLease+fleetPatience, last)
		}
		t.Logf("analytics on server %d: %s", i, last)
	}
	t.Logf("analytics: %d hits stored (%d acknowledged, %d sent) from %d visitors, each once through every server; the aggregates equal them %v after the rollups",
		len(stored), len(f.ackedHits), len(f.sentHits), len(visitors), time.Since(start).Round(time.Millisecond))
}

// checkItems scans the items' table through every server: each
// acknowledged item once, none that was not sent.
func (f *fleet) checkItems() {
	t := f.t
	ctx := context.Background()
	for i := range f.servers {
		seen := map[string]bool{}
		p := dynamodb.NewScanPaginator(f.dynamo(i), &dynamodb.ScanInput{TableName: aws.String(f.itemsTable), ConsistentRead: aws.Bool(true)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatalf("Scan through server %d: %v", i, err)
			}
			for _, it := range page.Items {
				pk := it["pk"].(*types.AttributeValueMemberS).Value
				if v, ok := it["v"].(*types.AttributeValueMemberS); !ok || v.Value != pk || !f.sentItems[pk] || seen[pk] {
					t.Fatalf("server %d: item %v: never sent, or scanned twice", i, it)
				}
				seen[pk] = true
			}
		}
		for pk := range f.ackedItems {
			if !seen[pk] {
				t.Fatalf("server %d: the acknowledged item %s is lost (%d of %d scanned)", i, pk, countSeen(f.ackedItems, seen), len(f.ackedItems))
			}
		}
		got, err := f.dynamo(i).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.itemsTable), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "i0"}}})
		if f.ackedItems["i0"] && (err != nil || got.Item == nil) {
			t.Fatalf("GetItem i0 through server %d: %v %v", i, got, err)
		}
	}
	t.Logf("items: %d acknowledged of %d sent, each once through every server", len(f.ackedItems), len(f.sentItems))
}

// logUnits logs the write and read units the fleet's series stores
// report (the killed server's up to just before its kill, then its
// restart's), per acknowledged reading.
func (f *fleet) logUnits() {
	write, read := f.killedUnits, f.killedReadUnit
	for i := range f.servers {
		w, r := f.units(i)
		write, read = write+w, read+r
	}
	n := float64(len(f.ackedReadings))
	f.t.Logf("units: the fleet's series stores consumed %.1f write and %.1f read units, flushes, rollups, compaction and read-backs included: %.4f write units per acknowledged reading (%d readings)",
		write, read, write/n, len(f.ackedReadings))
}

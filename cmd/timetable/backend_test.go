package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/backend"
	"github.com/timetable-db/timetable/internal/dynamotest"
)

// eachRemoteBackend runs fn on the remote backends a test can reach: the
// DynamoDB endpoint of a `timetable serve` started here on a folder of
// its own (always), and the server of dynamotest.EndpointEnv (DynamoDB
// Local under make test) when it is set. The AWS default chain of this
// process (which the CLI and serve read) is set to an admin access key of
// the backend; tables names the series, analytics and auth tables, unique
// to the run.
func eachRemoteBackend(t *testing.T, fn func(t *testing.T, url string, tables remoteTables)) {
	awsEnv := func(t *testing.T, id, secret string) {
		t.Setenv("AWS_ACCESS_KEY_ID", id)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
		t.Setenv("AWS_SESSION_TOKEN", "")
		t.Setenv("AWS_PROFILE", "")
		t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	}
	t.Run("serve", func(t *testing.T) {
		var stdout syncBuffer
		addr := serveInProcess(t, &ServeCommand{Stdout: &stdout}, "--data", filepath.Join(t.TempDir(), "a"), "--addr", "127.0.0.1:0")
		id, secret := firstAccessKey(t, &stdout)
		awsEnv(t, id, secret)
		fn(t, "http://"+addr, remoteTables{series: "tt_series", analytics: "tt_analytics", auth: "tt_auth"})
	})
	t.Run("dynamodb", func(t *testing.T) {
		url := dynamotest.Require(t)
		awsEnv(t, "test", "test")
		fn(t, url, remoteTables{series: dynamotest.TableName(t, "series"), analytics: dynamotest.TableName(t, "analytics"),
			auth: dynamotest.TableName(t, "auth")})
	})
}

// remoteTables are the tables of a test on a remote backend.
type remoteTables struct{ series, analytics, auth string }

// flags returns the flags naming the tables; analytics only for the
// commands (and serve) that take --analytics-table.
func (r remoteTables) flags(analytics bool) []string {
	f := []string{"--table", r.series, "--auth-table", r.auth}
	if analytics {
		f = append(f, "--analytics-table", r.analytics)
	}
	return f
}

// accessKeyOf returns the access key that `timetable token create
// --dynamodb` printed.
func accessKeyOf(out string) (id, secret string) {
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(line, "access key id:"); ok {
			id = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "secret access key:"); ok {
			secret = strings.TrimSpace(v)
		}
	}
	return id, secret
}

// call sends a request with a bearer token (none if "") and returns the
// answer's status and body.
func call(t *testing.T, method, url, token, ctype, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCLI_Backend: two servers (B with --sync-writes, C without) and the
// CLI on one remote backend. A kind defined by the CLI is served by both;
// readings written through B (line protocol and JSON) are read back by
// the CLI at once; readings the CLI writes are read through B; a kind
// defined through B is listed by the CLI; tokens made by the CLI and
// through B, kept in the backend's auth table, authenticate on C; B's
// DynamoDB endpoint is a proxy to the backend that keeps the auth table
// from a key that is not an admin's.
func TestCLI_Backend(t *testing.T) {
	eachRemoteBackend(t, func(t *testing.T, url string, tb remoteTables) {
		cli := func(args ...string) string {
			t.Helper()
			return mustCLI(t, append(args, append([]string{"--backend", url}, tb.flags(false)...)...)...)
		}
		cli("kinds", "create", "--name", "SENSOR", "--fields", "temperature", "--tags", "location")

		serveArgs := func(dir string, extra ...string) []string {
			return append(append([]string{"--backend", url, "--data", dir, "--addr", "127.0.0.1:0"}, tb.flags(true)...), extra...)
		}
		var bOut, cOut syncBuffer
		dirB, dirC := filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "c")
		b := "http://" + serveInProcess(t, &ServeCommand{Stdout: &bOut}, serveArgs(dirB, "--sync-writes")...)
		admin := firstToken(t, &bOut) // B's first start made it, in the backend
		c := "http://" + serveInProcess(t, &ServeCommand{Stdout: &cOut}, serveArgs(dirC)...)

		// Readings written through B are in the backend once acknowledged
		// (--sync-writes): a new process reads them.
		base := time.Now().UTC().Truncate(time.Minute).Add(-time.Hour)
		if code, body := call(t, "POST", b+"/api/v1/write", admin, "text/plain",
			fmt.Sprintf("SENSOR,series=s1,location=lab temperature=21.5 %d\n", base.UnixNano())); code != http.StatusNoContent {
			t.Fatalf("line protocol through B: %d %s", code, body)
		}
		if code, body := call(t, "POST", b+"/api/v1/kinds/SENSOR/readings", admin, "application/json",
			fmt.Sprintf(`[{"series":"s1","time":%q,"values":{"temperature":22.5}}]`, base.Add(time.Minute).Format(time.RFC3339))); code != http.StatusNoContent {
			t.Fatalf("JSON through B: %d %s", code, body)
		}
		out := cli("query", "SENSOR", "s1", "--from", base.Add(-time.Minute).Format(time.RFC3339), "--format", "csv")
		if !strings.Contains(out, "21.5") || !strings.Contains(out, "22.5") {
			t.Fatalf("query --backend after writes through B:\n%s", out)
		}
		// B keeps nothing locally: --sync-writes on a fresh folder.
		if _, err := os.Stat(dirB); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("B with --sync-writes made its local folder: %v", err)
		}
		// C keeps its series log locally, in a folder it claims for the backend.
		if _, err := os.Stat(filepath.Join(dirC, walDir)); err != nil {
			t.Errorf("C's write-ahead log: %v", err)
		}

		// The CLI writes; B reads.
		lp := filepath.Join(t.TempDir(), "in.lp")
		if err := os.WriteFile(lp, []byte(fmt.Sprintf("SENSOR,series=s2 temperature=30.25 %d\n", base.UnixNano())), 0o644); err != nil {
			t.Fatal(err)
		}
		cli("write", lp)
		if code, body := call(t, "GET", b+"/api/v1/kinds/SENSOR/series/s2/latest", admin, "", ""); code != http.StatusOK || !strings.Contains(body, "30.25") {
			t.Fatalf("latest through B of the CLI's write: %d %s", code, body)
		}

		// A kind defined through B is the backend's.
		if code, body := call(t, "POST", b+"/api/v1/kinds", admin, "application/json", `{"name":"METER","fields":["kwh"]}`); code != http.StatusCreated && code != http.StatusOK {
			t.Fatalf("define METER through B: %d %s", code, body)
		}
		if out := cli("kinds"); !strings.Contains(out, "METER") || !strings.Contains(out, "SENSOR") {
			t.Fatalf("kinds --backend:\n%s", out)
		}

		// Tokens live in the backend's auth table: made by the CLI or
		// through B, they authenticate on C.
		fromCLI := strings.TrimSpace(cli("token", "create", "--name", "cli-reader", "--scopes", "read"))
		code, body := call(t, "POST", b+"/api/v1/tokens", admin, "application/json", `{"name":"b-reader","scopes":["read"]}`)
		if code != http.StatusCreated && code != http.StatusOK {
			t.Fatalf("token through B: %d %s", code, body)
		}
		_, fromB, _ := strings.Cut(body, `"token":"`)
		fromB, _, _ = strings.Cut(fromB, `"`)
		for name, tok := range map[string]string{"made by the CLI": fromCLI, "made through B": fromB} {
			if code, body := call(t, "GET", c+"/api/v1/kinds/SENSOR/series/s2/latest", tok, "", ""); code != http.StatusOK || !strings.Contains(body, "30.25") {
				t.Errorf("token %s, on C: %d %s", name, code, body)
			}
		}
		if code, _ := call(t, "GET", c+"/api/v1/kinds/SENSOR/series/s2/latest", "tt_nosuchtoken", "", ""); code != http.StatusUnauthorized {
			t.Errorf("an unknown token on C: %d, want 401", code)
		}
		if out := cli("token", "list"); !strings.Contains(out, "cli-reader") || !strings.Contains(out, "b-reader") {
			t.Errorf("token list --backend:\n%s", out)
		}

		// A site made by the CLI in the backend's analytics table takes
		// hits on C, and B's dashboard API lists it.
		mustCLI(t, append([]string{"sites", "create", "blog", "--domains", "blog.example", "--backend", url}, tb.flags(true)...)...)
		hit, _ := http.NewRequest("POST", c+"/api/event", strings.NewReader(`{"n":"pageview","u":"https://blog.example/","d":"blog.example"}`))
		hit.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
		if r, err := http.DefaultClient.Do(hit); err != nil || r.StatusCode != http.StatusAccepted {
			t.Errorf("a hit on C for the CLI's site: %v %v", r, err)
		} else {
			r.Body.Close()
		}
		if code, body := call(t, "GET", b+"/api/v1/sites", admin, "", ""); code != http.StatusOK || !strings.Contains(body, "blog.example") {
			t.Errorf("sites through B: %d %s", code, body)
		}

		// B's DynamoDB endpoint proxies the backend behind B's access
		// check: a read key scans the series table, not the auth table.
		keyID, secret := accessKeyOf(cli("token", "create", "--dynamodb", "--name", "reader", "--scopes", "read"))
		ddb := dynamoClient(b, keyID, secret)
		ctx := context.Background()
		if _, err := ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tb.series), Limit: aws.Int32(1)}); err != nil {
			t.Errorf("Scan of the series table through B with a read key: %v", err)
		}
		for _, protected := range []string{tb.auth, tb.analytics} {
			_, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(protected),
				Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}, "sk": &types.AttributeValueMemberS{Value: "x"}}})
			wantRefused(t, "GetItem of "+protected+" through B with a read key", err, "AccessDeniedException")
		}
	})
}

// TestCLI_BackendErrors: a --data that is a URL, a --backend that is none,
// and flags that do not go together are refused, naming the flags; none
// makes a folder.
func TestCLI_BackendErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	engineDir := filepath.Join(t.TempDir(), "engine")
	mustCLI(t, "kinds", "--data", engineDir) // an embedded engine's data folder
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"query", "SENSOR", "s1", "--data", "http://127.0.0.1:1"}, 1, "--backend"},
		{[]string{"latest", "SENSOR", "s1", "--data", "dynamodb://eu-west-1"}, 1, "is a URL"},
		{[]string{"kinds", "--data", "mem:"}, 1, "is a URL"},
		{[]string{"kinds", "--backend", "nonsense:x"}, 1, `unknown scheme "nonsense"`},
		{[]string{"kinds", "--backend", "nothing"}, 1, "want file:DIR"},
		{[]string{"kinds", "--backend", "file:"}, 1, "empty folder name"},
		{[]string{"kinds", "--backend", "file:x", "--data", "y"}, 1, "give one"},
		{[]string{"kinds", "--backend", "http://127.0.0.1:1", "--data", "y"}, 1, "keeps nothing locally"},
		{[]string{"kinds", "--backend", "http://127.0.0.1:1", "--server", "http://127.0.0.1:1"}, 1, "give one"},
		{[]string{"demo", "--backend", "http://127.0.0.1:1", "--days", "31"}, 2, "30 days"},
		{[]string{"serve", "--data", "https://127.0.0.1:1"}, 2, "--backend"},
		{[]string{"serve", "--backend", "nonsense:x"}, 2, "unknown scheme"},
		{[]string{"serve", "--backend", "file:"}, 2, "empty folder name"},
		{[]string{"serve", "--backend", "mem:", "--in-memory"}, 2, "give one"},
		{[]string{"serve", "--backend", "http://127.0.0.1:1", "--no-sync"}, 2, "--no-sync applies to a data folder"},
		{[]string{"serve", "--backend", "http://127.0.0.1:1", "--min-free-bytes", "1"}, 2, "--min-free-bytes applies"},
		{[]string{"serve", "--backend", "http://127.0.0.1:1", "--cache-ttl", "0s"}, 2, "--cache-ttl"},
		{[]string{"serve", "--backend", "http://127.0.0.1:1", "--data", engineDir}, 1, "embedded engine"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("timetable %s: exit %d, want %d and %q:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, errs)
		}
	}
	if es, err := os.ReadDir("."); err != nil || len(es) != 0 {
		t.Errorf("the refused commands left %v in the working folder (%v)", es, err)
	}
}

// TestServe_BackendLocalFolder: the local folder of a server on a remote
// backend belongs to that backend and table; another one is refused (its
// write-ahead log's readings belong to the first).
func TestServe_BackendLocalFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "local")
	if err := claimLocalDir(dir, "http://127.0.0.1:1", "t"); err != nil {
		t.Fatal(err)
	}
	if err := claimLocalDir(dir, "http://127.0.0.1:1", "t"); err != nil {
		t.Errorf("the same backend again: %v", err)
	}
	for _, other := range [][2]string{{"http://127.0.0.1:2", "t"}, {"http://127.0.0.1:1", "u"}} {
		if err := claimLocalDir(dir, other[0], other[1]); err == nil || !strings.Contains(err.Error(), "another backend or table") {
			t.Errorf("claim by %v: %v", other, err)
		}
	}
}

func TestParseStorage(t *testing.T) {
	for _, tc := range []struct {
		data      string
		dataSet   bool
		backend   string
		keepLocal bool
		want      storage
	}{
		{"d", false, "", false, storage{dir: "d"}},
		{"d", false, "file:x", false, storage{dir: "x"}},
		{"d", false, "file://x/y", false, storage{dir: "x/y"}},
		{"d", false, "mem:", false, storage{inMemory: true}},
		{"d", false, "dynamodb://eu-west-1", false, storage{remote: "dynamodb://eu-west-1"}},
		{"d", false, "https://h:1", true, storage{remote: "https://h:1", dir: "d"}},
		{"d", true, "http://h:1", true, storage{remote: "http://h:1", dir: "d"}},
		{"./a:b", true, "", false, storage{dir: "./a:b"}}, // a colon alone is a folder's
	} {
		got, err := parseStorage(tc.data, tc.dataSet, tc.backend, tc.keepLocal)
		if err != nil || got != tc.want {
			t.Errorf("parseStorage(%q, %v, %q, %v) = %+v, %v; want %+v", tc.data, tc.dataSet, tc.backend, tc.keepLocal, got, err, tc.want)
		}
	}
}

// TestSourceExpiry_OnRemoteDynamoDBOnly: serve leaves merged chunk items
// to expire (saving a write unit each) on a DynamoDB-compatible endpoint
// when it runs the compaction passes, never on the embedded engine
// (backend file: or mem:), where a delete costs nothing.
func TestSourceExpiry_OnRemoteDynamoDBOnly(t *testing.T) {
	ctx := context.Background()
	mem, err := backend.Open(ctx, "mem:")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	remote, err := backend.Open(ctx, "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	on := engineOptions{sourceExpiry: suggestedSourceExpiry, compactInterval: time.Minute}
	for _, c := range []struct {
		name string
		b    timetable.Backend
		o    engineOptions
		want time.Duration
	}{
		{"embedded", mem, on, 0},
		{"dynamodb", remote, on, suggestedSourceExpiry},
		{"dynamodb, no compaction", remote, engineOptions{sourceExpiry: suggestedSourceExpiry, compactInterval: -1}, 0},
		{"dynamodb, --source-expiry 0", remote, engineOptions{compactInterval: time.Minute}, 0},
	} {
		if got := sourceExpiry(c.b, c.o); got != c.want {
			t.Errorf("%s: source expiry %v, want %v", c.name, got, c.want)
		}
	}
}

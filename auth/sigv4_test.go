package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// recorder is the handler behind SigV4 in tests: it records the body and
// the access key id it was handed.
type recorder struct {
	calls int
	body  []byte
	keyID string
}

func (h *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.calls++
	h.body, _ = io.ReadAll(r.Body)
	h.keyID, _ = AccessKeyID(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

// sign signs r with k as aws-sdk-go-v2 does, at t.
func sign(t testing.TB, r *http.Request, k AccessKey, region string, at time.Time) {
	t.Helper()
	testenv.SignV4(t, r, k.ID, k.Secret, region, at)
}

// sigv4Store returns a Store with one access key, its SigV4 handler in front
// of a recorder, and the clock.
func sigv4Store(t testing.TB) (*Store, AccessKey, http.Handler, *recorder, *clock) {
	t.Helper()
	clk := newClock()
	s := openStore(t, memDB(t), clk, &Options{MaxBodyBytes: 1 << 10})
	k, err := s.CreateAccessKey(context.Background(), "test", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	return s, k, s.SigV4(rec), rec, clk
}

// awsError decodes an error answer: status, code (from x-amzn-ErrorType)
// and the body's __type and Message.
func awsError(t testing.TB, w *httptest.ResponseRecorder) (status int, code, typ, msg string) {
	t.Helper()
	var body struct {
		Type    string `json:"__type"`
		Message string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("answer %d %q is not DynamoDB's error JSON: %v", w.Code, w.Body, err)
	}
	return w.Code, w.Header().Get("X-Amzn-Errortype"), body.Type, body.Message
}

// TestSigV4_Signer: requests signed by aws-sdk-go-v2's signer pass, with
// their bodies intact, whatever their path, query and headers; changing
// any signed part after signing fails.
func TestSigV4_Signer(t *testing.T) {
	_, k, h, rec, clk := sigv4Store(t)
	type request struct {
		method, target, body string
		header               http.Header
		region               string
	}
	cases := []request{
		{"POST", "http://127.0.0.1:8000/", `{"TableName":"t"}`, http.Header{"X-Amz-Target": {"DynamoDB_20120810.DescribeTable"}, "Content-Type": {"application/x-amz-json-1.0"}}, "us-east-1"},
		{"POST", "http://127.0.0.1:8000/", ``, nil, "eu-west-3"},
		{"GET", "http://localhost/?b=2&a=1&a=0&sp=a%20b&plus=a%2Bb&slash=a/b&empty=&t=%E2%82%AC~", ``, nil, "local"},
		{"POST", "http://127.0.0.1:9/some%20path/x~y/%C3%A9", `x`, nil, "us-west-2"},
		{"POST", "http://127.0.0.1:9/", `{}`, http.Header{"X-Multi": {"a", "  b   c  "}, "X-Empty": {""}, "User-Agent": {"test"}}, "us-east-1"},
	}
	for _, c := range cases {
		mk := func() *http.Request {
			r := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
			r.Header.Set("X-Extra", "v")
			for name, vs := range c.header {
				r.Header[name] = append([]string(nil), vs...)
			}
			sign(t, r, k, c.region, clk.Now())
			return r
		}
		w := httptest.NewRecorder()
		rec.calls = 0
		h.ServeHTTP(w, mk())
		if w.Code != http.StatusNoContent || rec.calls != 1 {
			t.Fatalf("%s %s: answer %d %s, want it passed", c.method, c.target, w.Code, w.Body)
		}
		if string(rec.body) != c.body || rec.keyID != k.ID {
			t.Fatalf("%s %s: next got body %q and key %q, want %q and %q", c.method, c.target, rec.body, rec.keyID, c.body, k.ID)
		}
		// A header added after signing is not covered, as in SigV4.
		r := mk()
		r.Header.Set("X-Unsigned", "x")
		r.Header.Set("X-Amz-Cf-Id", "added by a proxy")
		w = httptest.NewRecorder()
		if h.ServeHTTP(w, r); w.Code != http.StatusNoContent {
			t.Fatalf("%s %s with an unsigned header: %d %s", c.method, c.target, w.Code, w.Body)
		}

		// Positive controls: each change after signing is caught.
		for name, change := range map[string]func(*http.Request){
			"body":   func(r *http.Request) { r.Body = io.NopCloser(strings.NewReader(c.body + " ")); r.ContentLength++ },
			"method": func(r *http.Request) { r.Method = "PUT" },
			"query":  func(r *http.Request) { r.URL.RawQuery += "&z=1" },
			"path":   func(r *http.Request) { r.URL.Path += "x"; r.URL.RawPath = "" },
			"host":   func(r *http.Request) { r.Host = "example.test" },
			"date": func(r *http.Request) {
				r.Header.Set("X-Amz-Date", clk.Now().Add(time.Second).Format(amzDateLayout))
			},
			"signed header":      func(r *http.Request) { r.Header.Set("X-Extra", "w") },
			"signed header more": func(r *http.Request) { r.Header.Add("X-Extra", "v") },
		} {
			r := mk()
			change(r)
			w := httptest.NewRecorder()
			rec.calls = 0
			h.ServeHTTP(w, r)
			if w.Code == http.StatusNoContent {
				t.Errorf("%s %s with a changed %s: passed", c.method, c.target, name)
				continue
			}
			status, code, _, msg := awsError(t, w)
			if rec.calls != 0 || status != http.StatusBadRequest || code != "InvalidSignatureException" || msg != errBadSignature.Message {
				t.Errorf("%s %s with a changed %s: %d %s %q, want 400 InvalidSignatureException", c.method, c.target, name, status, code, msg)
			}
		}
	}
}

func TestSigV4_Errors(t *testing.T) {
	_, k, h, rec, clk := sigv4Store(t)
	now := clk.Now()
	signed := func(change func(*http.Request)) *http.Request {
		r := httptest.NewRequest("POST", "http://127.0.0.1:8000/", strings.NewReader(`{}`))
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		sign(t, r, k, "us-east-1", now)
		if change != nil {
			change(r)
		}
		return r
	}
	setAuth := func(old, new string) func(*http.Request) {
		return func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), old, new, 1))
		}
	}
	resign := func(k AccessKey, at time.Time) func(*http.Request) {
		return func(r *http.Request) { r.Header.Del("Authorization"); sign(t, r, k, "us-east-1", at) }
	}
	bigBody := func(r *http.Request) {
		r.Body = io.NopCloser(strings.NewReader(strings.Repeat(" ", 1<<10+1)))
		r.ContentLength = -1 // streamed: the cap, not the header, refuses it
	}
	amz := func(t time.Time) string { return t.Format(amzDateLayout) }
	cases := []struct {
		name   string
		req    *http.Request
		status int
		code   string
		msg    string // a prefix of the message
	}{
		{"no Authorization", signed(func(r *http.Request) { r.Header.Del("Authorization") }), 400,
			"MissingAuthenticationTokenException", "Request is missing Authentication Token"},
		{"unknown key", signed(setAuth(k.ID, "TTAKAAAAAAAAAAAAAAAA")), 400,
			"UnrecognizedClientException", "The security token included in the request is invalid."},
		{"wrong secret", signed(resign(AccessKey{ID: k.ID, Secret: k.Secret + "x"}, now)), 400,
			"InvalidSignatureException", errBadSignature.Message},
		{"stale", signed(resign(k, now.Add(-16*time.Minute))), 400, "InvalidSignatureException",
			"Signature expired: " + amz(now.Add(-16*time.Minute)) + " is now earlier than " + amz(now.Add(-15*time.Minute)) + " (" + amz(now) + " - 15 min.)"},
		{"future", signed(resign(k, now.Add(16*time.Minute))), 400, "InvalidSignatureException",
			"Signature not yet current: " + amz(now.Add(16*time.Minute)) + " is still later than " + amz(now.Add(15*time.Minute)) + " (" + amz(now) + " + 15 min.)"},
		{"other service", signed(setAuth("/dynamodb/", "/s3/")), 400, "InvalidSignatureException",
			"Credential should be scoped to correct service: 'dynamodb'. "},
		{"scope date", signed(setAuth("/"+now.Format("20060102")+"/", "/20000101/")), 400, "InvalidSignatureException",
			"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20000101' != '" + now.Format("20060102") + "'"},
		{"terminator", signed(setAuth("/aws4_request", "/aws5_request")), 400, "InvalidSignatureException",
			"Credential should be scoped with a valid terminator: 'aws4_request', not 'aws5_request'. "},
		{"no signature", signed(setAuth(", Signature=", ", Sig=")), 400, "IncompleteSignatureException",
			"Authorization header requires 'Signature' parameter. Authorization="},
		{"no date", signed(func(r *http.Request) { r.Header.Del("X-Amz-Date"); r.Header.Set("Date", http.TimeFormat) }), 400, "IncompleteSignatureException",
			"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "},
		{"bad date", signed(func(r *http.Request) { r.Header.Set("X-Amz-Date", "yesterday") }), 400, "IncompleteSignatureException",
			"Date must be in ISO-8601 'basic format'. Got 'yesterday'."},
		{"bearer", signed(func(r *http.Request) { r.Header.Set("Authorization", "Bearer tt_x_y") }), 400, "IncompleteSignatureException",
			"'tt_x_y' not a valid key=value pair (missing equal-sign) in Authorization header: 'Bearer tt_x_y'."},
		{"other algorithm", signed(setAuth("AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256")), 400, "IncompleteSignatureException",
			"Unsupported AWS 'algorithm': 'AWS4-ECDSA-P256-SHA256'."},
		{"host unsigned", signed(setAuth("SignedHeaders=content-length;host;", "SignedHeaders=content-length;")), 400, "IncompleteSignatureException",
			"'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."},
		{"target unsigned", signed(setAuth(";x-amz-target", "")), 400, "IncompleteSignatureException",
			"'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization."},
		{"date unsigned", signed(setAuth(";x-amz-date", "")), 400, "IncompleteSignatureException",
			"'X-Amz-Date' must be a 'SignedHeader' in the AWS Authorization."},
		{"target added", func() *http.Request {
			r := httptest.NewRequest("POST", "http://127.0.0.1:8000/", strings.NewReader(`{}`))
			sign(t, r, k, "us-east-1", now)
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DeleteTable")
			return r
		}(), 400, "IncompleteSignatureException", "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization."},
		{"signed header gone", signed(func(r *http.Request) { r.Header.Del("X-Amz-Target") }), 400, "IncompleteSignatureException",
			"'x-amz-target' is named as a SignedHeader, but it does not exist in the HTTP request."},
		{"presigned", signed(func(r *http.Request) {
			a := r.Header.Get("Authorization")
			r.Header.Del("Authorization")
			r.URL.RawQuery = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + k.ID + "&X-Amz-SignedHeaders=host&X-Amz-Signature=" + a[strings.LastIndex(a, "=")+1:]
		}), 400, "MissingAuthenticationTokenException", "Request is missing Authentication Token"},
		{"body over the cap", signed(bigBody), 413, "RequestEntityTooLargeException", "Request payload size exceeds the limit of 1024 bytes"},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		rec.calls = 0
		h.ServeHTTP(w, c.req)
		status, code, typ, msg := awsError(t, w)
		if rec.calls != 0 || status != c.status || code != c.code || typ != "com.amazon.coral.service#"+c.code || !strings.HasPrefix(msg, c.msg) {
			t.Errorf("%s: passed %d times, answer %d %s (%s) %q; want %d %s %q...", c.name, rec.calls, status, code, typ, msg, c.status, c.code, c.msg)
		}
	}
	// The window holds at its edges.
	for _, r := range []*http.Request{
		signed(resign(k, now.Add(-15*time.Minute))),
		signed(resign(k, now.Add(15*time.Minute))),
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNoContent {
			t.Errorf("%v: %d %s, want it passed", r.Header, w.Code, w.Body)
		}
	}
}

// TestSigV4_NoKeys: without access keys nothing passes, as DynamoDB
// refuses an unknown key (finding 1: the endpoint served anyone until a
// key existed); a key created by another Store is known within CacheTTL,
// a key created or revoked through this Store at once.
func TestSigV4_NoKeys(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	clk := newClock()
	s := openStore(t, db, clk, nil)
	other := openStore(t, db, clk, nil)
	rec := &recorder{}
	h := s.SigV4(rec)
	send := func(k *AccessKey) int {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
		if k != nil {
			sign(t, r, *k, "us-east-1", clk.Now())
		} else {
			r.Header.Set("Authorization", "anything")
		}
		h.ServeHTTP(w, r)
		return w.Code
	}
	ghost := AccessKey{ID: "TTAKAAAAAAAAAAAAAAAA", Secret: "x"}
	if c := send(nil); c != http.StatusBadRequest {
		t.Fatalf("without keys, any Authorization: %d, want 400", c)
	}
	if c := send(&ghost); c != http.StatusBadRequest {
		t.Fatalf("without keys, a signed request: %d, want 400", c)
	}
	k, err := other.CreateAccessKey(ctx, "elsewhere", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := send(&k); c != http.StatusBadRequest {
		t.Fatalf("a key made elsewhere, within CacheTTL: %d, want 400", c)
	}
	clk.Advance(DefaultCacheTTL)
	if c := send(&k); c != http.StatusNoContent {
		t.Fatalf("a key made elsewhere, after CacheTTL: %d, want passed", c)
	}
	if err := s.RevokeAccessKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if c := send(&k); c != http.StatusBadRequest {
		t.Fatalf("after revoking the only key here: %d, want 400 at once", c)
	}
	if err := s.RevokeAccessKey(ctx, k.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking it again: %v, want ErrNotFound", err)
	}
	here, err := s.CreateAccessKey(ctx, "here", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := send(&here); c != http.StatusNoContent {
		t.Fatalf("a key made here: %d, want passed at once", c)
	}
}

func TestStore_AccessKeys(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openStore(t, memDB(t), clk, nil)
	a, err := s.CreateAccessKey(ctx, "a", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	b, err := s.CreateAccessKey(ctx, "b", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []AccessKey{a, b} {
		if len(k.ID) != 20 || !strings.HasPrefix(k.ID, "TTAK") || strings.ToUpper(k.ID) != k.ID || len(k.Secret) != 40 {
			t.Fatalf("access key %q secret %q: want 20 upper-case characters starting TTAK and 40", k.ID, k.Secret)
		}
	}
	if a.ID == b.ID || a.Secret == b.Secret {
		t.Fatal("two access keys alike")
	}
	ks, err := s.AccessKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 2 || ks[0].ID != a.ID || ks[1].ID != b.ID || ks[0].Name != "a" || !ks[1].Created.Equal(clk.Now()) {
		t.Fatalf("AccessKeys = %+v", ks)
	}
	for _, k := range ks {
		if k.Secret != "" {
			t.Fatalf("AccessKeys returned the secret of %s", k.ID)
		}
	}
	if _, err := s.CreateAccessKey(ctx, "", []Scope{ScopeAdmin}, nil); err == nil {
		t.Fatal("an access key without a name was made")
	}
}

// sigv4Engine serves wire over an in-memory engine behind the SigV4 check
// of a store with one access key, on the real clock (the SDK signs with
// it).
func sigv4Engine(t *testing.T) (*local.DB, *Store, *clock, AccessKey, *httptest.Server) {
	t.Helper()
	db := memDB(t)
	clk := newClock()
	clk.Set(time.Now().UTC())
	s := openStore(t, db, clk, nil)
	k, err := s.CreateAccessKey(context.Background(), "sdk", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.SigV4(wire.New(db, nil)))
	t.Cleanup(srv.Close)
	return db, s, clk, k, srv
}

// TestSigV4_Client: aws-sdk-go-v2's DynamoDB client against wire over the
// engine behind SigV4: the right key works, a wrong secret, an unknown or
// revoked key and a stale date get DynamoDB's errors.
func TestSigV4_Client(t *testing.T) {
	ctx := context.Background()
	_, s, clk, k, srv := sigv4Engine(t)
	client := func(id, secret string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{
			Region:           "eu-central-1",
			BaseEndpoint:     aws.String(srv.URL),
			Credentials:      credentials.NewStaticCredentialsProvider(id, secret, ""),
			RetryMaxAttempts: 1,
		})
	}
	good := client(k.ID, k.Secret)
	testenv.CreateTable(t, good, "auth_t", "")
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "v": &types.AttributeValueMemberS{Value: strings.Repeat("é ", 1000)}}
	if _, err := good.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("auth_t"), Item: item}); err != nil {
		t.Fatal(err)
	}
	out, err := good.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("auth_t"), Key: map[string]types.AttributeValue{"pk": item["pk"]}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := out.Item["v"].(*types.AttributeValueMemberS); v == nil || v.Value != strings.Repeat("é ", 1000) {
		t.Fatalf("GetItem = %v", out.Item)
	}

	wantErr := func(name string, c *dynamodb.Client, code, msg string) {
		t.Helper()
		_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		var ae smithy.APIError
		var re *awshttp.ResponseError
		if !errors.As(err, &ae) || !errors.As(err, &re) {
			t.Fatalf("%s: %v, want an API error", name, err)
		}
		if ae.ErrorCode() != code || !strings.HasPrefix(ae.ErrorMessage(), msg) || re.HTTPStatusCode() != http.StatusBadRequest {
			t.Fatalf("%s: %d %s %q, want 400 %s %q", name, re.HTTPStatusCode(), ae.ErrorCode(), ae.ErrorMessage(), code, msg)
		}
	}
	wantErr("wrong secret", client(k.ID, k.Secret[1:]+"A"), "InvalidSignatureException", errBadSignature.Message)
	wantErr("unknown key", client("TTAKAAAAAAAAAAAAAAAA", k.Secret), "UnrecognizedClientException", errUnknownKey.Message)
	wantErr("test/test", client("test", "test"), "UnrecognizedClientException", errUnknownKey.Message)

	clk.Advance(time.Hour) // the server's clock, not the client's
	wantErr("stale", good, "InvalidSignatureException", "Signature expired: ")
	clk.Advance(-2 * time.Hour)
	wantErr("future", good, "InvalidSignatureException", "Signature not yet current: ")
	clk.Advance(time.Hour)

	if _, err := good.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("with the clock back: %v", err)
	}
	if err := s.RevokeAccessKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAccessKey(ctx, "another", []Scope{ScopeAdmin}, nil); err != nil { // keys still exist
		t.Fatal(err)
	}
	wantErr("revoked", good, "UnrecognizedClientException", errUnknownKey.Message)
}

// FuzzParseSigV4: any Authorization header is parsed without panic into a
// header with a key and signed headers, or IncompleteSignatureException.
func FuzzParseSigV4(f *testing.F) {
	for _, s := range []string{
		"AWS4-HMAC-SHA256 Credential=TTAKAAAAAAAAAAAAAAAA/20260301/us-east-1/dynamodb/aws4_request, SignedHeaders=content-length;host;x-amz-date, Signature=00ff",
		"AWS4-HMAC-SHA256 Credential=a/b/c/d/e,SignedHeaders=host,Signature=x",
		"AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host;;, Signature=",
		"AWS4-HMAC-SHA256 Credential=, SignedHeaders=, Signature=",
		"AWS4-HMAC-SHA256", "Bearer x", "", ",,,", "= = =", "AWS4-HMAC-SHA256 Credential==/==/",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, h string, hasDate bool) {
		a, err := parseSigV4(h, hasDate)
		if (a == nil) == (err == nil) {
			t.Fatalf("parseSigV4(%q) = %v, %v: want one of them", h, a, err)
		}
		if err != nil {
			if err.Code != "IncompleteSignatureException" || err.Status != http.StatusBadRequest {
				t.Fatalf("parseSigV4(%q): %v", h, err)
			}
			return
		}
		if !hasDate || a.algorithm != sigAlgorithm || a.keyID == "" || len(a.signedHeaders) == 0 || strings.Contains(a.scope(), "//") && a.region != "" && a.date != "" && a.service != "" {
			t.Fatalf("parseSigV4(%q, %v) = %+v", h, hasDate, a)
		}
		for _, hd := range a.signedHeaders {
			if hd == "" || strings.ToLower(hd) != hd {
				t.Fatalf("parseSigV4(%q): signed header %q", h, hd)
			}
		}
	})
}

// TestSigV4_ReplayAsOtherOperation: a GetItem whose signature covers only
// host and x-amz-date, re-sent with the same body and signature as
// DeleteItem, is refused and deletes nothing, as is the GetItem itself:
// X-Amz-Target must be signed.
func TestSigV4_ReplayAsOtherOperation(t *testing.T) {
	ctx := context.Background()
	db, _, clk, k, srv := sigv4Engine(t)
	testenv.CreateTable(t, db, "replay", "")
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("replay"), Item: key}); err != nil {
		t.Fatal(err)
	}
	body := `{"TableName":"replay","Key":{"pk":{"S":"a"}}}`
	// Signed as a client that names only host and x-amz-date would sign it.
	now := clk.Now().UTC()
	amzDate := now.Format(amzDateLayout)
	a := &sigAuth{algorithm: sigAlgorithm, keyID: k.ID, date: amzDate[:8], region: "us-east-1", service: sigService,
		terminator: sigTerminator, signedHeaders: []string{"host", "x-amz-date"}}
	req := func(op string) *http.Request {
		r, err := http.NewRequest("POST", srv.URL+"/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("X-Amz-Date", amzDate)
		sum := sha256.Sum256([]byte(body))
		a.signature = signature(k.Secret, a, amzDate, canonicalRequest(r, a.signedHeaders, hex.EncodeToString(sum[:])))
		r.Header.Set("Authorization", sigAlgorithm+" Credential="+k.ID+"/"+a.scope()+", SignedHeaders=host;x-amz-date, Signature="+a.signature)
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		return r
	}
	for _, op := range []string{"GetItem", "DeleteItem"} {
		resp, err := http.DefaultClient.Do(req(op))
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		w.Code = resp.StatusCode
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		_, _ = io.Copy(w.Body, resp.Body)
		_ = resp.Body.Close()
		status, code, _, msg := awsError(t, w)
		if status != http.StatusBadRequest || code != "IncompleteSignatureException" || msg != "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization." {
			t.Errorf("%s with X-Amz-Target unsigned: %d %s %q, want 400 IncompleteSignatureException", op, status, code, msg)
		}
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("replay"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		t.Fatal("the replayed DeleteItem deleted the item")
	}
}

package auth

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/smithy-go/encoding/httpbinding"

	"github.com/timetable-db/timetable/wire"
)

// The signing algorithm SigV4 verifies, and the service its credential
// scope must name.
const (
	sigAlgorithm  = "AWS4-HMAC-SHA256"
	sigService    = "dynamodb"
	sigTerminator = "aws4_request"
	amzDateLayout = "20060102T150405Z"
)

// Answers of DynamoDB to requests it cannot authenticate.
var (
	errMissingToken = &wire.Error{Code: "MissingAuthenticationTokenException", Message: "Request is missing Authentication Token", Status: http.StatusBadRequest}
	errUnknownKey   = &wire.Error{Code: "UnrecognizedClientException", Message: "The security token included in the request is invalid.", Status: http.StatusBadRequest}
	errBadSignature = &wire.Error{Code: "InvalidSignatureException", Message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.", Status: http.StatusBadRequest}
	errInternal     = &wire.Error{Code: "InternalServerError", Message: "Internal server error", Status: http.StatusInternalServerError}
	errReadBody     = &wire.Error{Code: "SerializationException", Message: "Cannot read request body", Status: http.StatusBadRequest}
)

func invalidSignature(format string, args ...any) *wire.Error {
	return &wire.Error{Code: "InvalidSignatureException", Message: fmt.Sprintf(format, args...), Status: http.StatusBadRequest}
}

func incompleteSignature(msg string) *wire.Error {
	return &wire.Error{Code: "IncompleteSignatureException", Message: msg, Status: http.StatusBadRequest}
}

type accessKeyIDKey struct{}

// AccessKeyID returns the id of the access key whose signature SigV4
// verified for the request of ctx, if any.
func AccessKeyID(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(accessKeyIDKey{}).(string)
	return id, ok
}

// SigV4 returns a handler that verifies the AWS Signature Version 4 of each
// request (AWS4-HMAC-SHA256 in the Authorization header, as the AWS SDKs
// and the AWS CLI send it) before handing it to next, the DynamoDB
// endpoint. Every request must be signed with an access key, from the
// first one on: with no key, every request is refused
// (UnrecognizedClientException), as DynamoDB refuses an unknown key.
//
// It rebuilds the canonical request from the request itself and the headers
// its signature names, hashes the body (which stays readable for next;
// bodies over Options.MaxBodyBytes are answered 413), and checks the
// credential scope (its date that of X-Amz-Date, its service "dynamodb",
// any region), the date within Options.MaxClockSkew of the clock either
// way, that the signed headers cover Host, X-Amz-Date and X-Amz-Target
// (which names the operation) and are all present, and the signature,
// compared in constant time. Failures get DynamoDB's answers, written with
// wire.WriteError: 400 MissingAuthenticationTokenException without an
// Authorization header, IncompleteSignatureException for a malformed one
// or one that leaves a required header unsigned,
// UnrecognizedClientException for an unknown key, InvalidSignatureException
// for a wrong scope, a stale date or a wrong signature.
// X-Amz-Security-Token is not checked (this server issues no session
// tokens), and presigned URLs (the signature in the query) are not
// accepted: such a request has no Authorization header. AccessKeyID tells
// next which key signed, and
// FromContext gives its Principal.
func (s *Store) SigV4(next http.Handler) http.Handler { return s.sigV4(next, nil) }

// sigV4 is SigV4 whose copy of each body is held in budget, when not nil,
// from before it is read until next has answered; a request the budget
// cannot hold is answered ThrottlingException, its body unread.
func (s *Store) sigV4(next http.Handler, budget wire.Budget) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wire.IsPreflight(r) {
			// A browser's preflight carries no credentials, by design.
			next.ServeHTTP(w, r)
			return
		}
		keys, err := s.cachedKeys(r.Context())
		if err != nil {
			s.opts.Logger.Error("auth: cannot read access keys", "err", err)
			wire.WriteError(w, errInternal)
			return
		}
		if budget != nil && r.Body != nil && r.Body != http.NoBody {
			n := s.opts.MaxBodyBytes + 1
			if r.ContentLength >= 0 && r.ContentLength < n {
				n = r.ContentLength + 1
			}
			if err := budget.Acquire(r.Context(), n); err != nil {
				wire.WriteError(w, wire.Throttled())
				return
			}
			defer budget.Release(n)
		}
		id, werr := s.verify(r, keys)
		if werr != nil {
			wire.WriteError(w, werr)
			return
		}
		ctx := context.WithValue(r.Context(), accessKeyIDKey{}, id)
		next.ServeHTTP(w, r.WithContext(NewContext(ctx, newKeyPrincipal(keys[id]))))
	})
}

// sigAuth is a parsed SigV4 Authorization header.
type sigAuth struct {
	algorithm     string
	keyID         string
	date          string // the credential scope's YYYYMMDD
	region        string
	service       string
	terminator    string
	signedHeaders []string
	signature     string
}

// scope returns the credential scope, "date/region/service/aws4_request".
func (a *sigAuth) scope() string {
	return a.date + "/" + a.region + "/" + a.service + "/" + a.terminator
}

// parseSigV4 parses an Authorization header of the form
//
//	AWS4-HMAC-SHA256 Credential=KEY/YYYYMMDD/REGION/SERVICE/aws4_request, SignedHeaders=a;b, Signature=HEX
//
// and returns it, or DynamoDB's IncompleteSignatureException naming what is
// wrong. hasDate tells whether the request has an X-Amz-Date header, whose
// absence DynamoDB reports with the missing parameters.
func parseSigV4(h string, hasDate bool) (*sigAuth, *wire.Error) {
	a := &sigAuth{}
	algorithm, params, _ := strings.Cut(strings.TrimSpace(h), " ")
	a.algorithm = algorithm
	var cred, signed, sig string
	var haveCred, haveSigned, haveSig bool
	for p := range strings.SplitSeq(params, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, incompleteSignature(fmt.Sprintf("'%s' not a valid key=value pair (missing equal-sign) in Authorization header: '%s'.", p, h))
		}
		switch k {
		case "Credential":
			cred, haveCred = v, true
		case "SignedHeaders":
			signed, haveSigned = v, true
		case "Signature":
			sig, haveSig = v, true
		}
	}
	var missing strings.Builder
	for _, m := range []struct {
		ok   bool
		name string
	}{{haveCred, "Credential"}, {haveSig, "Signature"}, {haveSigned, "SignedHeaders"}} {
		if !m.ok {
			missing.WriteString("Authorization header requires '" + m.name + "' parameter. ")
		}
	}
	if !hasDate {
		missing.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
	}
	if missing.Len() > 0 {
		return nil, incompleteSignature(missing.String() + "Authorization=" + h)
	}
	if algorithm != sigAlgorithm {
		return nil, incompleteSignature(fmt.Sprintf("Unsupported AWS 'algorithm': '%s'.", algorithm))
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[0] == "" {
		return nil, incompleteSignature(fmt.Sprintf("Credential should be of the form 'KEY/YYYYMMDD/REGION/SERVICE/aws4_request', not '%s'.", cred))
	}
	a.keyID, a.date, a.region, a.service, a.terminator = parts[0], parts[1], parts[2], parts[3], parts[4]
	for hd := range strings.SplitSeq(signed, ";") {
		if hd == "" {
			return nil, incompleteSignature(fmt.Sprintf("Invalid SignedHeaders '%s' in Authorization header.", signed))
		}
		a.signedHeaders = append(a.signedHeaders, strings.ToLower(hd))
	}
	a.signature = sig
	return a, nil
}

// verify checks the signature of r and returns the id of the key that
// signed it, or DynamoDB's error for it.
func (s *Store) verify(r *http.Request, keys map[string]AccessKey) (string, *wire.Error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", errMissingToken
	}
	amzDate := r.Header.Get("X-Amz-Date") // a Date header alone is not accepted
	a, werr := parseSigV4(h, amzDate != "")
	if werr != nil {
		return "", werr
	}
	t, err := time.Parse(amzDateLayout, amzDate)
	if err != nil {
		return "", incompleteSignature(fmt.Sprintf("Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601", amzDate))
	}
	switch {
	case a.terminator != sigTerminator:
		return "", invalidSignature("Credential should be scoped with a valid terminator: '%s', not '%s'. ", sigTerminator, a.terminator)
	case a.service != sigService:
		return "", invalidSignature("Credential should be scoped to correct service: '%s'. ", sigService)
	case a.region == "":
		return "", invalidSignature("Credential should be scoped to a valid region. ")
	case a.date != amzDate[:8]:
		return "", invalidSignature("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'.", a.date, amzDate[:8], amzDate)
	}
	if werr := checkSignedHeaders(r, a.signedHeaders); werr != nil {
		return "", werr
	}
	key, ok := keys[a.keyID]
	if !ok {
		return "", errUnknownKey
	}
	now := s.opts.Now().UTC()
	skew := s.opts.MaxClockSkew
	mins := strconv.FormatInt(int64(skew/time.Minute), 10)
	if t.Before(now.Add(-skew)) {
		return "", invalidSignature("Signature expired: %s is now earlier than %s (%s - %s min.)",
			amzDate, now.Add(-skew).Format(amzDateLayout), now.Format(amzDateLayout), mins)
	}
	if t.After(now.Add(skew)) {
		return "", invalidSignature("Signature not yet current: %s is still later than %s (%s + %s min.)",
			amzDate, now.Add(skew).Format(amzDateLayout), now.Format(amzDateLayout), mins)
	}
	payload, werr := s.hashBody(r)
	if werr != nil {
		return "", werr
	}
	want := signature(key.Secret, a, amzDate, canonicalRequest(r, a.signedHeaders, payload))
	if !hmac.Equal([]byte(want), []byte(a.signature)) {
		return "", errBadSignature
	}
	return key.ID, nil
}

// mustSign are the headers a signature must cover when the request has
// them, besides Host: the date, and the target, which names the operation
// (a signature that left it out could be replayed as another operation on
// the same body). Other headers may go unsigned, as SigV4 allows: a proxy
// may add its own (CloudFront adds X-Amz-Cf-Id), and none changes what the
// endpoint does with a body.
var mustSign = []string{"X-Amz-Date", "X-Amz-Target"}

// checkSignedHeaders checks that the signature covers Host and the headers
// of mustSign the request has, and that each header it names is in the
// request. The AWS SDKs and the AWS CLI sign every header they send but a
// few (Authorization, User-Agent, X-Amzn-Trace-Id, Expect,
// Transfer-Encoding), so their requests pass. The payload is always
// covered: the canonical request holds the hash of the body as received,
// whatever X-Amz-Content-Sha256 says.
func checkSignedHeaders(r *http.Request, signed []string) *wire.Error {
	if !slices.Contains(signed, "host") {
		return incompleteSignature("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
	}
	for _, name := range mustSign {
		if r.Header.Values(name) != nil && !slices.Contains(signed, strings.ToLower(name)) {
			return incompleteSignature(fmt.Sprintf("'%s' must be a 'SignedHeader' in the AWS Authorization.", name))
		}
	}
	for _, name := range signed {
		switch name {
		case "host", "content-length":
			// net/http keeps them out of r.Header.
		default:
			if r.Header.Values(name) == nil {
				return incompleteSignature(fmt.Sprintf("'%s' is named as a SignedHeader, but it does not exist in the HTTP request.", name))
			}
		}
	}
	return nil
}

// hashBody reads r's body, at most MaxBodyBytes, and returns its SHA-256 in
// hex; the body is replaced by what was read, for the next handler.
func (s *Store) hashBody(r *http.Request) (string, *wire.Error) {
	limit := s.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return "", wire.TooLarge(limit)
	}
	sum := sha256.New()
	if r.Body == nil || r.Body == http.NoBody {
		return hex.EncodeToString(sum.Sum(nil)), nil
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + 1)
	}
	n, err := io.Copy(io.MultiWriter(&buf, sum), io.LimitReader(r.Body, limit+1))
	_ = r.Body.Close()
	if n > limit {
		return "", wire.TooLarge(limit)
	}
	if err != nil {
		return "", errReadBody
	}
	r.Body = io.NopCloser(&buf)
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// canonicalRequest returns SigV4's canonical request for r: method, URI,
// query, the signed headers and their values, their names, the payload
// hash, each on a line.
func canonicalRequest(r *http.Request, signed []string, payloadHash string) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(httpbinding.EscapePath(path, false))
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.RawQuery))
	b.WriteByte('\n')
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		var vals []string
		switch name {
		case "host":
			vals = []string{r.Host}
		case "content-length":
			vals = r.Header.Values(name)
			if len(vals) == 0 && r.ContentLength >= 0 {
				vals = []string{strconv.FormatInt(r.ContentLength, 10)}
			}
		default:
			vals = r.Header.Values(name)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(trimSpaces(v))
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String()
}

// canonicalQuery returns SigV4's canonical query string: each name and
// value percent-encoded (RFC 3986, a space as %20), the pairs sorted after
// encoding.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, _ := url.ParseQuery(raw) // keeps what parses; a bad pair fails the signature
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, queryEscape(k)+"="+queryEscape(v))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func queryEscape(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// trimSpaces trims a header value and folds each run of spaces into one.
func trimSpaces(v string) string {
	v = strings.TrimSpace(v)
	if !strings.Contains(v, "  ") {
		return v
	}
	var b strings.Builder
	space := false
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// signature returns the hex HMAC-SHA256 signature of the canonical request
// with the key derived from secret and a's scope.
func signature(secret string, a *sigAuth, amzDate, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	toSign := sigAlgorithm + "\n" + amzDate + "\n" + a.scope() + "\n" + hex.EncodeToString(sum[:])
	k := hmacSHA256([]byte("AWS4"+secret), a.date)
	k = hmacSHA256(k, a.region)
	k = hmacSHA256(k, a.service)
	k = hmacSHA256(k, a.terminator)
	return hex.EncodeToString(hmacSHA256(k, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// Package auth authenticates the requests of timetable serve and holds its
// one access rule: API tokens for the series API, the InfluxDB endpoints
// and the analytics routes, access keys and SigV4 signatures for the
// DynamoDB endpoint, shared links of web-analytics sites, and per-token
// rate limits.
//
// A Store keeps tokens and access keys in a table of their own
// (DefaultTable, "timetable_auth", created by Open if missing) on any
// timetable.API, so the same code runs on the embedded engine and on
// DynamoDB:
//
//	store, err := auth.Open(ctx, api, nil)
//	secret, tok, err := store.CreateToken(ctx, "sensors", []auth.Scope{auth.ScopeWrite}, []string{"SENSOR"})
//	...
//	secret, ok := auth.TokenFromRequest(r)
//	p, err := store.Authenticate(ctx, secret) // ErrUnauthenticated: 401
//	if !p.Allows(auth.ScopeWrite, auth.Kind("SENSOR")) { ... } // 403
//
// # Principals and the access rule
//
// A Principal is who makes a request: a token (Store.Authenticate), an
// access key (Store.SigV4, which puts it in the request's context:
// FromContext) or a shared link (SharedLink). It carries scopes and the
// kinds, sites and tables it is limited to. Principal.Allows(need,
// resource) is the one decision every face of the server asks:
//
//   - the principal needs the scope, or ScopeAdmin, which implies the
//     others; ScopeWrite does not imply ScopeRead;
//   - an unlimited principal reaches every Kind, Site, Table and
//     Everything;
//   - a limited one reaches only what its limits name: a token limited to
//     kinds reaches no site, one limited to sites no kind, a key limited
//     to tables those tables; Kind(""), Site("") and Table("") (listings)
//     need one of them; Everything (tokens, access keys, new kinds and
//     sites, metrics) is never reached.
//
// Principal.Covers says whether a principal may mint a credential: one
// that can do nothing it cannot. docs/security.md states the rules route by
// route.
//
// # Tokens
//
// A token's secret is "tt_<id>_<random>": 80 random bits of id and 256
// random bits from crypto/rand, in lower-case base32. CreateToken returns
// it once; the table keeps only its SHA-256. A fast hash is the right one
// here: slow password hashes (bcrypt, Argon2) make guessing low-entropy
// passwords costly, but no one can guess 256 random bits, however fast the
// hash, and a slow hash would cost every request. Authenticate finds the
// token by its id and compares the hashes in constant time
// (crypto/subtle).
//
// Scopes are read, write and admin; admin implies the other two, write does
// not imply read. A token may be limited to kinds and to sites. Tokens are
// sent as
// "Authorization: Bearer <token>", "Authorization: Token <token>" (InfluxDB
// v2 clients) or HTTP Basic with the token as password (TokenFromRequest);
// InfluxDB v1 clients may send it as the query parameter p, which a server
// accepts on their write route only (TokenFromQuery).
//
// # Caching and revocation
//
// An authenticated token is kept in memory for Options.CacheTTL (10 s by
// default), so most requests cost no read. RevokeToken takes effect at once
// in the Store that revoked the token; a Store in another process, which
// may hold the token in its cache, refuses it within its CacheTTL. A
// token's LastUsed is written at most once a minute, not once per request.
// The same holds for access keys: the set of keys is read at most once per
// CacheTTL.
//
// So any number of servers may share one auth table, each with its own
// Store, within these bounds (CacheTTL, 10 s by default): a token made
// through one server is accepted by every server at once (a token not in
// a cache is read from the table); a token revoked through one is refused
// by that one at once and by the others within CacheTTL; an access key
// made through one is accepted by the others within CacheTTL (each holds
// the set of keys it last read), and one revoked is refused by the others
// within CacheTTL.
//
// # Access keys and SigV4
//
// The DynamoDB endpoint speaks DynamoDB's protocol, whose clients (the AWS
// SDKs, the AWS CLI) sign requests with an access key id and secret using
// AWS Signature Version 4. CreateAccessKey makes such a pair: an id of 20
// upper-case characters starting "TTAK", as AWS's look, and a secret of 40
// characters. Unlike a token's, an access key's secret is stored as it is
// in the auth table: SigV4 is an HMAC, and any server that verifies one
// must hold the key, as AWS itself does. Whoever can read the auth table
// can use every access key.
//
// Store.SigV4 wraps the DynamoDB endpoint (a wire.Handler). Every request
// must carry a valid signature by a known key, from the first start (with
// no key, every request is refused, unlike DynamoDB Local); a failure is
// answered with DynamoDB's own error (UnrecognizedClientException,
// InvalidSignatureException, IncompleteSignatureException,
// MissingAuthenticationTokenException; status 400). The signed request is
// rebuilt from the request itself (no library verifies SigV4 on the server
// side); the tests check it against aws-sdk-go-v2's signer and client.
//
// A signature must cover Host, X-Amz-Date and X-Amz-Target: the target
// names the operation, and a signature that left it out could be replayed,
// within the clock skew allowed, as another operation on the same body. The body is always covered, by the
// hash of the bytes received. The AWS SDKs and the AWS CLI sign every
// header they send but a few that carry no meaning (User-Agent,
// X-Amzn-Trace-Id, Expect, Transfer-Encoding).
//
// An access key has scopes and may be limited to tables
// (CreateAccessKey). Store.DynamoDB builds the endpoint with SigV4 and,
// through wire.Options.Authorize, asks the key's Principal for the scope
// each operation needs (read, write, or admin for table administration)
// on each table its body names; the auth table and the tables given as
// protected (the web analytics') need an admin key. A refusal is
// AccessDeniedException. A key stored before keys had scopes acts as an
// unlimited admin.
//
// # Rate limits
//
// Limiter is a token bucket per token id (golang.org/x/time/rate). Its
// memory is bounded by the tokens active recently: the bucket of a token
// idle long enough to be full again is dropped.
package auth

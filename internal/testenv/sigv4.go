package testenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// SignV4 signs r for DynamoDB in region, at the time at, with the access
// key id and secret, as the AWS SDKs do. It reads r's body, if any, to
// hash it and puts back a reader of the same bytes; it fails t when the
// signer does.
func SignV4(t testing.TB, r *http.Request, id, secret, region string, at time.Time) {
	t.Helper()
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: id, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, hex.EncodeToString(sum[:]), "dynamodb", region, at); err != nil {
		t.Fatal(err)
	}
}

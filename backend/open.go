// Package backend opens a timetable.API from a URL: the embedded engine of
// package local, on disk or in memory, or any DynamoDB-compatible endpoint,
// Amazon DynamoDB itself included.
//
// It is a package of its own so that the root package, which the layers
// above the API import, links no backend: only a program that imports this
// package or package local links the embedded engine and Pebble.
package backend

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local"
)

// Open returns the backend that rawURL names:
//
//	file:PATH            the embedded engine, data in the folder PATH
//	mem:                 the embedded engine, in memory (lost on Close)
//	http://HOST:PORT     any DynamoDB-compatible endpoint (DynamoDB Local,
//	https://HOST:PORT    ScyllaDB Alternator, timetable serve); credentials
//	                     from the default chain, or "local"/"local" if none
//	dynamodb://REGION    Amazon DynamoDB in REGION, default credential chain
//
// The caller closes the returned Backend. Errors begin "backend: ".
func Open(ctx context.Context, rawURL string) (timetable.Backend, error) {
	return OpenWith(ctx, rawURL, nil)
}

// Options are the options of OpenWith. The zero value is valid.
type Options struct {
	// SDKLogger, when set, receives the AWS SDK's log lines (retries,
	// connections closed by the server) of a DynamoDB endpoint's client
	// instead of the standard error. The embedded engine ignores it.
	SDKLogger logging.Logger
}

// OpenWith is Open with options; o may be nil.
func OpenWith(ctx context.Context, rawURL string, o *Options) (timetable.Backend, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	scheme, rest, ok := strings.Cut(rawURL, ":")
	if !ok {
		return nil, fmt.Errorf("backend: cannot open %q: want file:PATH, mem:, http://HOST:PORT or dynamodb://REGION", rawURL)
	}
	switch scheme {
	case "file":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return nil, fmt.Errorf("backend: cannot open %q: empty path", rawURL)
		}
		return local.Open(path, nil)
	case "mem":
		return local.Open("", &local.Options{InMemory: true})
	case "http", "https":
		u, err := url.Parse(rawURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("backend: cannot open %q: bad endpoint URL", rawURL)
		}
		return openRemote(ctx, "us-east-1", rawURL, true, opts)
	case "dynamodb":
		region := strings.Trim(strings.TrimPrefix(rest, "//"), "/")
		if region == "" {
			return nil, fmt.Errorf("backend: cannot open %q: want dynamodb://REGION", rawURL)
		}
		return openRemote(ctx, region, "", false, opts)
	}
	return nil, fmt.Errorf("backend: cannot open %q: unknown scheme %q", rawURL, scheme)
}

func openRemote(ctx context.Context, region, endpoint string, fallbackCreds bool, opts Options) (timetable.Backend, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		return nil, fmt.Errorf("backend: cannot load AWS configuration: %w", err)
	}
	if fallbackCreds {
		if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		}
	}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		if opts.SDKLogger != nil {
			o.Logger = opts.SDKLogger
		}
	})
	return remote{client}, nil
}

type remote struct{ *dynamodb.Client }

func (remote) Close() error { return nil }

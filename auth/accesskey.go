package auth

import (
	"context"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/timetable-db/timetable/table"
)

// AccessKey is an access key id and secret for the DynamoDB endpoint,
// which the AWS SDKs and the AWS CLI sign requests with (SigV4).
type AccessKey struct {
	// ID looks like an AWS access key id: 20 upper-case letters and digits
	// starting "TTAK".
	ID string
	// Secret is 40 characters of base64 (240 random bits). It is set only
	// by CreateAccessKey.
	Secret string
	// Name says what the key is for.
	Name string
	// Scopes are what the key may do on the DynamoDB endpoint (see
	// Store.DynamoDB): read reads items and describes tables, write
	// writes items, admin does everything, tables included. A key stored
	// before keys had scopes has none here and acts as an admin.
	Scopes []Scope
	// Tables limits the key to these tables; empty means every table.
	Tables []string
	// Created is when the key was made.
	Created time.Time
}

const (
	accessKeyPrefix = "TTAK"
	accessKeyBytes  = 10 // 16 characters of base32
	secretKeyBytes  = 30 // 40 characters of base64
)

var b32Upper = base32.StdEncoding.WithPadding(base32.NoPadding)

// accessKeyItem is an access key as the auth table stores it.
type accessKeyItem struct {
	PK      string   `dynamodbav:"pk"`
	SK      string   `dynamodbav:"sk"`
	Name    string   `dynamodbav:"name"`
	Secret  string   `dynamodbav:"secret"`
	Scopes  []string `dynamodbav:"scopes,omitempty"`
	Tables  []string `dynamodbav:"tables,omitempty"`
	Created int64    `dynamodbav:"created"`
}

func (it *accessKeyItem) key() AccessKey {
	k := AccessKey{ID: it.SK, Secret: it.Secret, Name: it.Name, Tables: it.Tables, Created: fromMillis(it.Created)}
	if len(it.Scopes) > 0 {
		k.Scopes = scopesOf(it.Scopes)
	}
	return k
}

// CreateAccessKey makes an access key for the DynamoDB endpoint with the
// given scopes (at least one), limited to tables unless tables is empty,
// and returns it with its secret. The secret is stored as it is in the
// auth table, as any SigV4 server must hold it to compute signatures:
// whoever can read the table can use the key. Repeated scopes and tables
// are kept once.
func (s *Store) CreateAccessKey(ctx context.Context, name string, scopes []Scope, tables []string) (AccessKey, error) {
	if err := checkName(name); err != nil {
		return AccessKey{}, err
	}
	it := accessKeyItem{
		PK:      pkAccessKey,
		SK:      accessKeyPrefix + randomString(b32Upper, accessKeyBytes),
		Name:    name,
		Secret:  randomString(base64.StdEncoding, secretKeyBytes),
		Created: millis(s.opts.Now()),
	}
	var err error
	if it.Scopes, err = cleanScopes(scopes); err != nil {
		return AccessKey{}, err
	}
	if it.Tables, err = cleanLimits("table", tables); err != nil {
		return AccessKey{}, err
	}
	if _, err := s.t.Put(ctx, it, &table.PutOptions{If: table.Attr(attrPK).NotExists()}); err != nil {
		return AccessKey{}, fmt.Errorf("auth: cannot store access key %q: %w", name, err)
	}
	s.forgetKeys()
	return it.key(), nil
}

// AccessKeys returns every access key, oldest first, without their
// secrets.
func (s *Store) AccessKeys(ctx context.Context) ([]AccessKey, error) {
	its, err := readAll[accessKeyItem](ctx, s, pkAccessKey)
	if err != nil {
		return nil, err
	}
	ks := make([]AccessKey, len(its))
	for i := range its {
		ks[i] = its[i].key()
		ks[i].Secret = ""
	}
	oldestFirst(ks, func(k AccessKey) (time.Time, string) { return k.Created, k.ID })
	return ks, nil
}

// RevokeAccessKey deletes the access key with the given id, or returns
// ErrNotFound. SigV4 in this Store refuses the key as soon as
// RevokeAccessKey returns; other Stores within their CacheTTL.
func (s *Store) RevokeAccessKey(ctx context.Context, id string) error {
	old, err := s.t.Delete(ctx, table.K(pkAccessKey, id), nil)
	s.forgetKeys()
	if err != nil {
		return fmt.Errorf("auth: cannot revoke access key %s: %w", id, err)
	}
	if old == nil {
		return fmt.Errorf("auth: access key %s: %w", id, ErrNotFound)
	}
	return nil
}

// loadKeys reads every access key from the table.
func (s *Store) loadKeys(ctx context.Context) (map[string]AccessKey, error) {
	its, err := readAll[accessKeyItem](ctx, s, pkAccessKey)
	if err != nil {
		return nil, err
	}
	m := make(map[string]AccessKey, len(its))
	for i := range its {
		m[its[i].SK] = its[i].key()
	}
	return m, nil
}

// cachedKeys returns the access keys, read from the table at most once per
// CacheTTL. The map is shared: not to be modified.
func (s *Store) cachedKeys(ctx context.Context) (map[string]AccessKey, error) {
	now := s.opts.Now()
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if s.keys != nil && s.fresh(s.keysAt, now) {
		return s.keys, nil
	}
	m, err := s.loadKeys(ctx)
	if err != nil {
		return nil, err
	}
	s.keys, s.keysAt = m, now
	return m, nil
}

// forgetKeys drops the cached access keys after a change through this
// Store. A load in progress holds keysMu, so it finishes first and is
// dropped too.
func (s *Store) forgetKeys() {
	s.keysMu.Lock()
	s.keys = nil
	s.keysMu.Unlock()
}

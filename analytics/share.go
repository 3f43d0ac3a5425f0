package analytics

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// SharedLink is a secret link to a site's stats, read-only. Its slug is
// "{ID}_{secret}"; only the slug's SHA-256 is stored, so the slug is shown
// once, by CreateSharedLink.
type SharedLink struct {
	// ID identifies the link within its site: 16 hex digits, not secret.
	ID string
	// Name says what the link is for.
	Name string
	// CreatedAt is when it was made.
	CreatedAt time.Time
}

// Shape of a slug: the id (8 random bytes in hex), '_', 32 random bytes in
// hex.
const (
	linkIDBytes     = 8
	linkSecretBytes = 32
)

// CreateSharedLink makes a shared link to the existing site site and
// returns its slug, which cannot be shown again, with its description.
// name is at most 200 bytes.
func (s *Store) CreateSharedLink(ctx context.Context, site, name string) (slug string, l SharedLink, err error) {
	if len(name) > 200 || !printable(name) {
		return "", SharedLink{}, invalidField("Name", "%w shared link name: want at most 200 printable bytes", ErrInvalid)
	}
	if _, err := s.Site(ctx, site); err != nil {
		return "", SharedLink{}, err
	}
	id, err := s.randomID(linkIDBytes)
	if err != nil {
		return "", SharedLink{}, err
	}
	secret, err := s.randomID(linkSecretBytes)
	if err != nil {
		return "", SharedLink{}, err
	}
	slug = id + "_" + secret
	l = SharedLink{ID: id, Name: name, CreatedAt: s.now().Truncate(time.Millisecond)}
	it, err := keyItem(entShare, map[string]string{"siteId": site, "linkId": id})
	if err != nil {
		return "", SharedLink{}, err
	}
	sum := sha256.Sum256([]byte(slug))
	it["siteId"] = sAttr(site)
	it["linkId"] = sAttr(id)
	it["name"] = sAttr(name)
	it["hash"] = &types.AttributeValueMemberB{Value: sum[:]}
	it["createdAt"] = sAttr(timestamp(l.CreatedAt))
	if _, err := s.t.Put(ctx, it, &table.PutOptions{If: table.Attr(attrPK).NotExists()}); err != nil {
		return "", SharedLink{}, fmt.Errorf("analytics: cannot store a shared link of site %q: %w", site, err)
	}
	return slug, l, nil
}

// SharedLinks returns the shared links of site, ordered by id (none for
// an unknown site).
func (s *Store) SharedLinks(ctx context.Context, site string) ([]SharedLink, error) {
	return siteItems(ctx, s, site, entShare, "shared links", func(it table.Item) SharedLink {
		l := SharedLink{ID: getS(it, "linkId"), Name: getS(it, "name")}
		l.CreatedAt, _ = time.Parse(layoutTimestamp, getS(it, "createdAt"))
		return l
	})
}

// DeleteSharedLink revokes the shared link id of site at once;
// timetable.ErrNotFound if there is none.
func (s *Store) DeleteSharedLink(ctx context.Context, site, id string) error {
	return s.deleteItem(ctx, entShare, site, "linkId", id, "shared link")
}

// CheckSharedLink reports whether slug is a live shared link of site. A
// malformed or unknown slug is false with a nil error; the error is a
// failure to read the table. The slug's hash is compared in constant
// time; a revoked link is refused at once (the link is read strongly
// consistent, not cached).
func (s *Store) CheckSharedLink(ctx context.Context, site, slug string) (bool, error) {
	id, secret, ok := strings.Cut(slug, "_")
	if !ok || len(id) != 2*linkIDBytes || len(secret) != 2*linkSecretBytes || !isHex(id) || !isHex(secret) || !validID(site) {
		return false, nil
	}
	k, err := primaryKey(entShare, map[string]string{"siteId": site, "linkId": id})
	if err != nil {
		return false, err
	}
	it, err := s.t.Get(ctx, k, &table.GetOptions{Consistent: true})
	if errors.Is(err, timetable.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("analytics: cannot read shared link %q of site %q: %w", id, site, err)
	}
	sum := sha256.Sum256([]byte(slug))
	return subtle.ConstantTimeCompare(getB(it, "hash"), sum[:]) == 1, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

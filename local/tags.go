package local

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Tags: TagResource, UntagResource and ListTagsOfResource. A table's tags
// are part of its description in the catalog (tableMeta.Tags, sorted by
// key), so they are written in the same batch as the rest of it, survive a
// restart and go with the table when it is deleted. CreateTable's Tags are
// checked and kept the same way.
//
// DynamoDB Local 3.3.0 answers every tagging operation with
// UnknownOperationException ("Tagging is not currently supported in
// DynamoDB Local."); the engine follows Amazon DynamoDB's rules and words.

// tag is one tag of a table.
type tag struct {
	Key   string `json:"k"`
	Value string `json:"v"`
}

// Tag limits of DynamoDB: 50 tags per resource, keys of 1 to 128 characters
// and values of up to 256, made of letters, digits, white space and
// _ . : / = + - @.
const (
	maxTags        = 50
	maxTagKeyLen   = 128
	maxTagValueLen = 256
)

var tagChars = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

const (
	msgTooManyTags = "Number of Tags exceed the current limit for the provided ResourceArn"
	msgNoArn       = "Invalid TableArn"
)

// TagResource adds tags to a table, or changes the values of tags it has.
// The ResourceArn is a table's ARN (as DescribeTable reports it; any region
// and account are accepted). The request is applied whole or not at all.
func (db *DB) TagResource(ctx context.Context, in *dynamodb.TagResourceInput, _ ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error) {
	return operation(db, "TagResource", func() (*dynamodb.TagResourceOutput, error) {
		name, err := tagRequest(in.ResourceArn, in.Tags == nil, len(in.Tags), "tags", "Atleast one Tag needs to be provided as Input.")
		if err != nil {
			return nil, err
		}
		add, err := checkTags(in.Tags)
		if err != nil {
			return nil, err
		}
		err = db.changeTags(name, *in.ResourceArn, func(old []tag) ([]tag, error) {
			return mergeTags(old, add)
		})
		if err != nil {
			return nil, err
		}
		return &dynamodb.TagResourceOutput{}, nil
	})
}

// UntagResource removes tags from a table by key; keys the table does not
// have are ignored.
func (db *DB) UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, _ ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error) {
	return operation(db, "UntagResource", func() (*dynamodb.UntagResourceOutput, error) {
		name, err := tagRequest(in.ResourceArn, in.TagKeys == nil, len(in.TagKeys), "tagKeys", "Atleast one Tag Key needs to be provided as Input.")
		if err != nil {
			return nil, err
		}
		for _, k := range in.TagKeys {
			if err := checkTagKey(&k); err != nil {
				return nil, err
			}
		}
		if len(in.TagKeys) > maxTags {
			return nil, validationError(msgTooManyTags)
		}
		err = db.changeTags(name, *in.ResourceArn, func(old []tag) ([]tag, error) {
			return slices.DeleteFunc(slices.Clone(old), func(t tag) bool { return slices.Contains(in.TagKeys, t.Key) }), nil
		})
		if err != nil {
			return nil, err
		}
		return &dynamodb.UntagResourceOutput{}, nil
	})
}

// tagRequest checks the ResourceArn of a TagResource or UntagResource
// request and its list (member, absent when missing, of n entries), in
// DynamoDB Local's order, and returns the table's name; empty is the error
// for an empty list.
func tagRequest(arn *string, missing bool, n int, member, empty string) (string, error) {
	if arn == nil {
		return "", validationError(msgNoArn)
	}
	if missing {
		return "", validationError("1 validation error detected: Value null at '" + member + "' failed to satisfy constraint: Member must not be null")
	}
	name, err := tableOfARN(*arn)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", validationError(empty)
	}
	return name, nil
}

// ListTagsOfResource returns all the tags of a table, sorted by key, in one
// page (a table has at most 50); NextToken is ignored.
func (db *DB) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	return operation(db, "ListTagsOfResource", func() (*dynamodb.ListTagsOfResourceOutput, error) {
		if in.ResourceArn == nil {
			return nil, validationError(msgNoArn)
		}
		name, err := tableOfARN(*in.ResourceArn)
		if err != nil {
			return nil, err
		}
		t, err := db.table(name)
		if err != nil {
			return nil, resourceArnNotFound(*in.ResourceArn)
		}
		out := &dynamodb.ListTagsOfResourceOutput{Tags: []types.Tag{}}
		for _, tg := range t.m().Tags {
			out.Tags = append(out.Tags, types.Tag{Key: aws.String(tg.Key), Value: aws.String(tg.Value)})
		}
		return out, nil
	})
}

// tableOfARN returns the name of the table a table ARN names:
// arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME. The ARN of an index, or
// of anything else, is a ValidationException.
func tableOfARN(arn string) (string, error) {
	invalid := validationError("Invalid TableArn: Invalid ResourceArn provided as input " + arn)
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || !strings.HasPrefix(parts[1], "aws") ||
		parts[2] != "dynamodb" || parts[3] == "" || parts[4] == "" || strings.Trim(parts[4], "0123456789") != "" {
		return "", invalid
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || !validName(name) {
		return "", invalid
	}
	return name, nil
}

func resourceArnNotFound(arn string) error {
	// "ResourcArn" is DynamoDB's spelling.
	return notFound("Requested resource not found: ResourcArn: " + arn + " not found")
}

// changeTags replaces the tags of the table name (named by arn in the
// request) with what change makes of them, in the table's description.
func (db *DB) changeTags(name, arn string, change func(old []tag) ([]tag, error)) error {
	t, err := db.table(name)
	if err != nil {
		return resourceArnNotFound(arn)
	}
	if err := db.writable(); err != nil {
		return err
	}
	m, err := t.lock()
	if err != nil {
		return resourceArnNotFound(arn)
	}
	defer t.mu.Unlock()
	tags, err := change(m.Tags)
	if err != nil {
		return err
	}
	nm := m.clone()
	nm.Tags = tags
	b := db.pdb.NewBatch()
	defer b.Close()
	return db.commitMeta(b, t, nm)
}

// checkTags checks the tags of a request (TagResource or CreateTable) and
// returns them sorted by key.
func checkTags(in []types.Tag) ([]tag, error) {
	out := make([]tag, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, t := range in {
		if err := checkTagKey(t.Key); err != nil {
			return nil, err
		}
		if t.Value == nil {
			return nil, validationError("The Tag Value provided is invalid, Value: null")
		}
		if utf8.RuneCountInString(*t.Value) > maxTagValueLen || !tagChars.MatchString(*t.Value) {
			return nil, validationError("The Tag Value provided is invalid, Value: " + *t.Value)
		}
		if strings.HasPrefix(*t.Key, "aws:") {
			return nil, validationError("Tag Key cannot be prefixed with aws:, Key: " + *t.Key)
		}
		if seen[*t.Key] {
			return nil, validationError("Duplicate Tag Keys provided as input: Duplicate Tag Key found " + *t.Key)
		}
		seen[*t.Key] = true
		out = append(out, tag{Key: *t.Key, Value: *t.Value})
	}
	if len(out) > maxTags {
		return nil, validationError(msgTooManyTags)
	}
	slices.SortFunc(out, func(a, b tag) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func checkTagKey(k *string) error {
	if k == nil {
		return validationError("The Tag Key provided is invalid, Key: null")
	}
	if n := utf8.RuneCountInString(*k); n < 1 || n > maxTagKeyLen || !tagChars.MatchString(*k) {
		return validationError("The Tag Key provided is invalid, Key: " + *k)
	}
	return nil
}

// mergeTags returns old with the tags of add set (both sorted by key), or
// an error when the table would have more than 50 tags.
func mergeTags(old, add []tag) ([]tag, error) {
	out := slices.Clone(old)
	for _, a := range add {
		i, found := slices.BinarySearchFunc(out, a.Key, func(t tag, k string) int { return strings.Compare(t.Key, k) })
		if found {
			out[i].Value = a.Value
		} else {
			out = slices.Insert(out, i, a)
		}
	}
	if len(out) > maxTags {
		return nil, validationError(msgTooManyTags)
	}
	return out, nil
}

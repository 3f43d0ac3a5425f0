package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Table management: CreateTable, DescribeTable, ListTables, DeleteTable,
// UpdateTable and the TimeToLive settings.

const (
	msgBadName     = "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
	msgNoTable     = "Cannot do operations on a non-existent table"
	msgPreexisting = "Cannot create preexisting table"
)

func keyNames(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return strings.Join(parts, ",")
}

func defNames(ds []types.AttributeDefinition) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// createError is a CreateTable case: creating a copy of in (with
// CreateTable's defaults) must fail with a ValidationException with message
// msg.
func createError(name string, in dynamodb.CreateTableInput, msg string) Case {
	return Case{"CreateTable/" + name, func(t *testing.T, h *H) {
		in := in
		h.WantError(h.createErr(&in), "ValidationException", msg)
	}}
}

// updateTableError is an UpdateTable case that must fail with an error of
// code and msg: in, on the table that create makes.
func updateTableError(name string, create func(*H) string, in dynamodb.UpdateTableInput, code, msg string) Case {
	return Case{Name: "UpdateTable/" + name, Run: func(t *testing.T, h *H) {
		in.TableName = aws.String(create(h))
		_, err := h.UpdateTable(&in)
		h.WantError(err, code, msg)
	}}
}

func init() {
	register(
		// CreateTable
		Case{"CreateTable/HashKey", func(t *testing.T, h *H) {
			name := h.TableName()
			out, err := h.API.CreateTable(h.Ctx, &dynamodb.CreateTableInput{
				TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"),
				KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest,
			})
			h.Must(err)
			t.Cleanup(func() {
				_, _ = h.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			})
			d := out.TableDescription
			if aws.ToString(d.TableName) != name || keyNames(d.KeySchema) != "pk:HASH" || defNames(d.AttributeDefinitions) != "pk:S" {
				t.Fatalf("description: name %q keys %s defs %s", aws.ToString(d.TableName), keyNames(d.KeySchema), defNames(d.AttributeDefinitions))
			}
			if d.TableStatus != types.TableStatusActive && d.TableStatus != types.TableStatusCreating {
				t.Fatalf("TableStatus = %s", d.TableStatus)
			}
			if aws.ToInt64(d.ItemCount) != 0 || aws.ToInt64(d.TableSizeBytes) != 0 {
				t.Fatalf("new table has ItemCount %d TableSizeBytes %d", aws.ToInt64(d.ItemCount), aws.ToInt64(d.TableSizeBytes))
			}
			if !strings.HasSuffix(aws.ToString(d.TableArn), ":table/"+name) {
				t.Fatalf("TableArn = %q", aws.ToString(d.TableArn))
			}
		}},
		Case{"CreateTable/HashAndRangeKey", func(t *testing.T, h *H) {
			name := h.RangeTable(types.ScalarAttributeTypeN)
			d := h.Describe(name)
			if keyNames(d.KeySchema) != "pk:HASH,sk:RANGE" || defNames(d.AttributeDefinitions) != "pk:S,sk:N" {
				t.Fatalf("keys %s defs %s", keyNames(d.KeySchema), defNames(d.AttributeDefinitions))
			}
		}},
		Case{"CreateTable/BinaryAndNumberKeys", func(t *testing.T, h *H) {
			name := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("h", "B", "r", "N"), KeySchema: keySchema("h", "r")})
			h.Put(name, Item{"h": B([]byte{0, 1}), "r": N("-1.5"), "v": S("x")})
			h.WantItem(h.Get(name, Item{"h": B([]byte{0, 1}), "r": N("-1.50")}), Item{"h": B([]byte{0, 1}), "r": N("-1.5"), "v": S("x")})
		}},
		Case{"CreateTable/Provisioned", func(t *testing.T, h *H) {
			name := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
				BillingMode:           types.BillingModeProvisioned,
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)},
			})
			pt := h.Describe(name).ProvisionedThroughput
			if pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 3 || aws.ToInt64(pt.WriteCapacityUnits) != 4 {
				t.Fatalf("ProvisionedThroughput = %+v", pt)
			}
		}},
		Case{"CreateTable/Preexisting", func(t *testing.T, h *H) {
			name := h.HashTable()
			err := h.createErr(&dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			h.WantError(err, "ResourceInUseException", msgPreexisting)
		}},
		createError("NameTooShort", dynamodb.CreateTableInput{TableName: aws.String("ab"), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")}, msgBadName),
		createError("NameTooLong", dynamodb.CreateTableInput{TableName: aws.String(strings.Repeat("a", 256)), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")}, msgBadName),
		Case{"CreateTable/NameInvalidCharacters", func(t *testing.T, h *H) {
			err := h.createErr(&dynamodb.CreateTableInput{TableName: aws.String(h.TableName() + " bad!"), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			h.WantError(err, "ValidationException", msgBadName)
		}},
		Case{"CreateTable/NameAllowedCharacters", func(t *testing.T, h *H) {
			name := h.TableName() + "-A.z_9"
			h.CreateTable(&dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			h.Put(name, Item{"pk": S("a")})
		}},
		createError("KeyNotInAttributeDefinitions", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("id")}, "Hash Key not specified in Attribute Definitions.  Type unknown."),
		createError("UnusedAttributeDefinition", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "x", "S"), KeySchema: keySchema("pk")}, "The number of attributes in key schema must match the number of attributes defined in attribute definitions."),
		createError("DuplicateAttributeDefinition", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "pk", "S"), KeySchema: keySchema("pk")}, "Cannot have two attributes with the same name"),
		createError("InvalidAttributeType", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "BOOL"), KeySchema: keySchema("pk")}, "~Member must satisfy enum value set: [B, N, S]"),
		createError("NoHashKey", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeRange}}}, "No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key"),
		createError("TwoHashKeys", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "sk", "S"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeHash}}}, "Too many hash keys specified.  All Dynamo DB tables must have exactly one hash key"),
		createError("EmptyKeySchema", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: []types.KeySchemaElement{}}, "No defined key schema.  A key schema containing at least a hash key must be defined for all tables"),
		Case{"CreateTable/KeySchemaTooBig", func(t *testing.T, h *H) {
			ks := append(keySchema("pk", "a"), types.KeySchemaElement{AttributeName: aws.String("b"), KeyType: types.KeyTypeRange})
			err := h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "a", "S", "b", "S"), KeySchema: ks})
			h.WantError(err, "ValidationException", "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table")
		}},
		Case{"CreateTable/RangeKeyFirst", func(t *testing.T, h *H) {
			ks := []types.KeySchemaElement{{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}, {AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
			err := h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "sk", "S"), KeySchema: ks})
			h.WantError(err, "ValidationException", "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second")
		}},
		createError("SameAttributeHashAndRange", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk", "pk")}, "Two keys can not have the same name"),
		createError("ProvisionedWithoutThroughput", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), BillingMode: types.BillingModeProvisioned}, "No provisioned throughput specified for the table"),
		Case{"CreateTable/GlobalSecondaryIndex", func(t *testing.T, h *H) {
			name := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions:   attrDefs("pk", "S", "g", "S", "n", "N"),
				KeySchema:              keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "n", types.ProjectionTypeAll)},
			})
			d := h.Describe(name)
			if len(d.GlobalSecondaryIndexes) != 1 {
				t.Fatalf("GlobalSecondaryIndexes = %d, want 1", len(d.GlobalSecondaryIndexes))
			}
			g := d.GlobalSecondaryIndexes[0]
			if aws.ToString(g.IndexName) != "by_g" || keyNames(g.KeySchema) != "g:HASH,n:RANGE" || g.Projection.ProjectionType != types.ProjectionTypeAll || g.IndexStatus != types.IndexStatusActive {
				t.Fatalf("index %s keys %s projection %s status %s", aws.ToString(g.IndexName), keyNames(g.KeySchema), g.Projection.ProjectionType, g.IndexStatus)
			}
			if !strings.HasSuffix(aws.ToString(g.IndexArn), ":table/"+name+"/index/by_g") {
				t.Fatalf("IndexArn = %q", aws.ToString(g.IndexArn))
			}
		}},
		Case{"CreateTable/LocalSecondaryIndex", func(t *testing.T, h *H) {
			name := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions:  attrDefs("pk", "S", "sk", "S", "l", "N"),
				KeySchema:             keySchema("pk", "sk"),
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("by_l", "pk", "l", types.ProjectionTypeKeysOnly)},
			})
			d := h.Describe(name)
			if len(d.LocalSecondaryIndexes) != 1 {
				t.Fatalf("LocalSecondaryIndexes = %d, want 1", len(d.LocalSecondaryIndexes))
			}
			l := d.LocalSecondaryIndexes[0]
			if aws.ToString(l.IndexName) != "by_l" || keyNames(l.KeySchema) != "pk:HASH,l:RANGE" || l.Projection.ProjectionType != types.ProjectionTypeKeysOnly {
				t.Fatalf("index %s keys %s projection %s", aws.ToString(l.IndexName), keyNames(l.KeySchema), l.Projection.ProjectionType)
			}
		}},
		Case{"CreateTable/IncludeProjection", func(t *testing.T, h *H) {
			g := gsi("by_g", "g", "", types.ProjectionTypeInclude, "a", "b")
			name := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"), GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{g}})
			p := h.Describe(name).GlobalSecondaryIndexes[0].Projection
			if p.ProjectionType != types.ProjectionTypeInclude || strings.Join(p.NonKeyAttributes, ",") != "a,b" {
				t.Fatalf("projection %s %v", p.ProjectionType, p.NonKeyAttributes)
			}
		}},
		createError("DuplicateIndexNames", dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
			KeySchema:              keySchema("pk"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("dup", "g", "", types.ProjectionTypeAll), gsi("dup", "g", "", types.ProjectionTypeKeysOnly)},
		}, "Two global secondary indices have the same name"),
		createError("SameLocalAndGlobalIndexName", dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs("pk", "S", "sk", "S", "g", "S"),
			KeySchema:              keySchema("pk", "sk"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("idx", "g", "", types.ProjectionTypeAll)},
			LocalSecondaryIndexes:  []types.LocalSecondaryIndex{lsi("idx", "pk", "g", types.ProjectionTypeAll)},
		}, "Local Secondary Indices AND Global Secondary Indices must have different names"),
		createError("IndexKeyNotDefined", dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs("pk", "S"),
			KeySchema:              keySchema("pk"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeAll)},
		}, "Attribute g is not defined in AttributeDefinitions"),
		createError("IndexNameInvalid", dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
			KeySchema:              keySchema("pk"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("g!", "g", "", types.ProjectionTypeAll)},
		}, msgBadName),
		createError("LocalIndexOnHashTable", dynamodb.CreateTableInput{
			AttributeDefinitions:  attrDefs("pk", "S", "l", "S"),
			KeySchema:             keySchema("pk"),
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("by_l", "pk", "l", types.ProjectionTypeAll)},
		}, "Local Secondary indices are not allowed on hash tables, only hash and range tables"),
		createError("LocalIndexOtherHashKey", dynamodb.CreateTableInput{
			AttributeDefinitions:  attrDefs("pk", "S", "sk", "S", "l", "S"),
			KeySchema:             keySchema("pk", "sk"),
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("by_l", "l", "sk", types.ProjectionTypeAll)},
		}, "Local Secondary indices must have the same hash key as the main table"),
		Case{"CreateTable/LocalIndexWithoutRangeKey", func(t *testing.T, h *H) {
			l := types.LocalSecondaryIndex{IndexName: aws.String("by_l"), KeySchema: keySchema("pk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}
			err := h.createErr(&dynamodb.CreateTableInput{
				AttributeDefinitions:   attrDefs("pk", "S", "sk", "S", "g", "S"),
				KeySchema:              keySchema("pk", "sk"),
				LocalSecondaryIndexes:  []types.LocalSecondaryIndex{l},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeAll)},
			})
			h.WantError(err, "ValidationException", "Local secondary indices must have a range key")
		}},
		createError("IncludeWithoutAttributes", dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
			KeySchema:              keySchema("pk"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeInclude)},
		}, "If Projection type INCLUDE is specified, some non-key attributes to include in the projection must be specified as well"),
		Case{"CreateTable/NonKeyAttributesWithoutInclude", func(t *testing.T, h *H) {
			g := gsi("by_g", "g", "", types.ProjectionTypeKeysOnly, "a")
			err := h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"), GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{g}})
			h.WantError(err, "ValidationException", "No attributes should be specified to be projected unless projection type is INCLUDE")
		}},
		createError("ProvisionedIndexWithoutThroughput", dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
			KeySchema:              keySchema("pk"),
			BillingMode:            types.BillingModeProvisioned,
			ProvisionedThroughput:  &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeAll)},
		}, "No provisioned throughput specified for the global secondary index"),

		// DescribeTable
		Case{"DescribeTable/NotFound", func(t *testing.T, h *H) {
			_, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(h.TableName())})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"DescribeTable/InvalidName", func(t *testing.T, h *H) {
			_, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ab")})
			h.WantError(err, "ValidationException", msgBadName)
		}},
		Case{"DescribeTable/ItemCountAndSize", func(t *testing.T, h *H) {
			// DynamoDB refreshes ItemCount and TableSizeBytes about every six
			// hours; DynamoDB Local reports them at once, as the engine does.
			name := h.RangeTable(types.ScalarAttributeTypeS)
			h.Put(name, Item{"pk": S("a"), "sk": S("b"), "x": N("5")}) // 3 + 3 + 1+2 = 9 bytes
			h.Put(name, Item{"pk": S("a"), "sk": S("c")})              // 6 bytes
			d := h.Describe(name)
			if aws.ToInt64(d.ItemCount) != 2 || aws.ToInt64(d.TableSizeBytes) != 15 {
				t.Fatalf("ItemCount %d TableSizeBytes %d, want 2 and 15", aws.ToInt64(d.ItemCount), aws.ToInt64(d.TableSizeBytes))
			}
		}},
		Case{"DescribeTable/CreationDateTime", func(t *testing.T, h *H) {
			d := h.Describe(h.HashTable())
			if d.CreationDateTime == nil || d.CreationDateTime.IsZero() {
				t.Fatalf("CreationDateTime not set")
			}
		}},

		// ListTables
		Case{"ListTables/IncludesCreated", func(t *testing.T, h *H) {
			name := h.HashTable()
			if !listed(h, name) {
				t.Fatalf("ListTables does not list %s", name)
			}
		}},
		Case{"ListTables/Paging", func(t *testing.T, h *H) {
			// "d" keeps a table after "c" whatever else the server holds, so
			// the second page is full and must name where it stopped.
			prefix := h.TableName() + "_"
			for _, s := range []string{"c", "a", "d", "b"} {
				h.CreateTable(&dynamodb.CreateTableInput{TableName: aws.String(prefix + s), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			}
			out, err := h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String(prefix), Limit: aws.Int32(2)})
			h.Must(err)
			if strings.Join(out.TableNames, " ") != prefix+"a "+prefix+"b" || aws.ToString(out.LastEvaluatedTableName) != prefix+"b" {
				t.Fatalf("page 1 = %v, last %q", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
			}
			out, err = h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: out.LastEvaluatedTableName, Limit: aws.Int32(1)})
			h.Must(err)
			if strings.Join(out.TableNames, " ") != prefix+"c" || aws.ToString(out.LastEvaluatedTableName) != prefix+"c" {
				t.Fatalf("page 2 = %v, last %q", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
			}
		}},
		Case{"ListTables/SortedByName", func(t *testing.T, h *H) {
			h.HashTable()
			h.HashTable()
			var names []string
			in := &dynamodb.ListTablesInput{}
			for {
				out, err := h.API.ListTables(h.Ctx, in)
				h.Must(err)
				names = append(names, out.TableNames...)
				if out.LastEvaluatedTableName == nil {
					break
				}
				in.ExclusiveStartTableName = out.LastEvaluatedTableName
			}
			if !slices.IsSorted(names) {
				t.Fatalf("ListTables not sorted: %v", names)
			}
		}},
		Case{"ListTables/StartAfterLast", func(t *testing.T, h *H) {
			out, err := h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String(strings.Repeat("z", 255))})
			h.Must(err)
			if len(out.TableNames) != 0 || out.LastEvaluatedTableName != nil {
				t.Fatalf("got %v, last %v", out.TableNames, out.LastEvaluatedTableName)
			}
		}},
		Case{"ListTables/LimitZero", func(t *testing.T, h *H) {
			_, err := h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(0)})
			h.WantError(err, "ValidationException", "Limit must be greater than or equal to 1")
		}},
		Case{"ListTables/LimitTooLarge", func(t *testing.T, h *H) {
			_, err := h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
			h.WantError(err, "ValidationException", "Limit in ListTables must be <= 100")
		}},
		Case{"ListTables/InvalidStartName", func(t *testing.T, h *H) {
			_, err := h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String("ab")})
			h.WantError(err, "ValidationException", msgBadName)
		}},
		Case{"ListTables/OmitsDeleted", func(t *testing.T, h *H) {
			name := h.HashTable()
			_, err := h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			h.Must(err)
			waitGone(h, name)
			if listed(h, name) {
				t.Fatalf("ListTables lists deleted table %s", name)
			}
		}},

		// DeleteTable
		Case{"DeleteTable/Basic", func(t *testing.T, h *H) {
			name := h.HashTable()
			h.Put(name, Item{"pk": S("a")})
			out, err := h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			h.Must(err)
			if aws.ToString(out.TableDescription.TableName) != name || keyNames(out.TableDescription.KeySchema) != "pk:HASH" {
				t.Fatalf("TableDescription = %s %s", aws.ToString(out.TableDescription.TableName), keyNames(out.TableDescription.KeySchema))
			}
			waitGone(h, name)
			_, err = h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"DeleteTable/NotFound", func(t *testing.T, h *H) {
			_, err := h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(h.TableName())})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"DeleteTable/RecreateIsEmpty", func(t *testing.T, h *H) {
			name := h.HashTable()
			h.Put(name, Item{"pk": S("a")})
			_, err := h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			h.Must(err)
			waitGone(h, name)
			h.CreateTable(&dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			h.WantItem(h.Get(name, Item{"pk": S("a")}), nil)
		}},
		Case{"DeleteTable/ItemOperationsFail", func(t *testing.T, h *H) {
			name := h.HashTable()
			_, err := h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			h.Must(err)
			waitGone(h, name)
			_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"pk": S("a")}})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
			_, err = h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"pk": S("a")}})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},

		// UpdateTable
		Case{"UpdateTable/AddGlobalIndexBackfills", func(t *testing.T, h *H) {
			name := h.HashTable()
			h.Put(name, Item{"pk": S("1"), "g": S("x"), "v": N("1")})
			h.Put(name, Item{"pk": S("2"), "g": S("y"), "v": N("2")})
			h.Put(name, Item{"pk": S("3"), "v": N("3")}) // sparse: not indexed
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{
				TableName:                   aws.String(name),
				AttributeDefinitions:        attrDefs("g", "S"),
				GlobalSecondaryIndexUpdates: createGSI("by_g", "g", "", types.ProjectionTypeAll),
			})
			h.Must(err)
			h.WaitActive(name)
			h.Put(name, Item{"pk": S("4"), "g": S("x"), "v": N("4")}) // maintained after the backfill
			got := h.QueryAll(&dynamodb.QueryInput{
				TableName: aws.String(name), IndexName: aws.String("by_g"),
				KeyConditionExpression:    aws.String("g = :g"),
				ExpressionAttributeValues: Item{":g": S("x")},
			})
			slices.SortFunc(got, func(a, b Item) int { return strings.Compare(FormatItem(a), FormatItem(b)) })
			h.WantItems(got, []Item{{"pk": S("1"), "g": S("x"), "v": N("1")}, {"pk": S("4"), "g": S("x"), "v": N("4")}})
			if defNames(h.Describe(name).AttributeDefinitions) != "g:S,pk:S" {
				t.Fatalf("AttributeDefinitions = %s", defNames(h.Describe(name).AttributeDefinitions))
			}
		}},
		Case{"UpdateTable/DeleteGlobalIndex", func(t *testing.T, h *H) {
			name := h.HashTableByG()
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{
				TableName:                   aws.String(name),
				GlobalSecondaryIndexUpdates: deleteGSI("by_g"),
			})
			h.Must(err)
			h.WaitIndexGone(name, "by_g")
			h.Put(name, Item{"pk": S("a"), "g": S("x")})
		}},
		updateTableError("CreateExistingIndex", (*H).HashTableByG, dynamodb.UpdateTableInput{
			AttributeDefinitions:        attrDefs("g", "S"),
			GlobalSecondaryIndexUpdates: createGSI("by_g", "g", "", types.ProjectionTypeAll),
		}, "ValidationException", "Attempting to create an index which already exists"),
		updateTableError("CreateIndexWithoutDefinition", (*H).HashTable, dynamodb.UpdateTableInput{
			GlobalSecondaryIndexUpdates: createGSI("by_g", "g", "", types.ProjectionTypeAll),
		}, "ValidationException", "No Attribute Schema Defined"),
		updateTableError("DeleteMissingIndex", (*H).HashTable, dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: deleteGSI("nope")},
			"ResourceNotFoundException", "Requested resource not found"),
		updateTableError("NothingToUpdate", (*H).HashTable, dynamodb.UpdateTableInput{}, "ValidationException", "Nothing to update"),
		Case{"UpdateTable/ProvisionedThroughput", func(t *testing.T, h *H) {
			name := h.HashTable()
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{
				TableName:             aws.String(name),
				BillingMode:           types.BillingModeProvisioned,
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(6)},
			})
			h.Must(err)
			pt := h.WaitActive(name).ProvisionedThroughput
			if pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 5 || aws.ToInt64(pt.WriteCapacityUnits) != 6 {
				t.Fatalf("ProvisionedThroughput = %+v", pt)
			}
		}},
		Case{"UpdateTable/NotFound", func(t *testing.T, h *H) {
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(h.TableName()), BillingMode: types.BillingModePayPerRequest})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},

		// TimeToLive
		Case{"TimeToLive/DisabledByDefault", func(t *testing.T, h *H) {
			out, err := h.API.DescribeTimeToLive(h.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(h.HashTable())})
			h.Must(err)
			d := out.TimeToLiveDescription
			if d == nil || d.TimeToLiveStatus != types.TimeToLiveStatusDisabled || d.AttributeName != nil {
				t.Fatalf("TimeToLiveDescription = %+v", d)
			}
		}},
		Case{"TimeToLive/Enable", func(t *testing.T, h *H) {
			name := h.HashTable()
			spec, err := updateTTL(h, name, true, "expires")
			h.Must(err)
			if s := spec; s == nil || !aws.ToBool(s.Enabled) || aws.ToString(s.AttributeName) != "expires" {
				t.Fatalf("TimeToLiveSpecification = %+v", s)
			}
			d, err := h.API.DescribeTimeToLive(h.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			h.Must(err)
			// DynamoDB reports ENABLING for a while; DynamoDB Local ENABLED at once.
			st := d.TimeToLiveDescription.TimeToLiveStatus
			if (st != types.TimeToLiveStatusEnabled && st != types.TimeToLiveStatusEnabling) || aws.ToString(d.TimeToLiveDescription.AttributeName) != "expires" {
				t.Fatalf("TimeToLiveDescription = %+v", d.TimeToLiveDescription)
			}
		}},
		Case{"TimeToLive/AlreadyEnabled", func(t *testing.T, h *H) {
			_, err := updateTTL(h, ttlTable(h), true, "expires")
			h.WantError(err, "ValidationException", "TimeToLive is already enabled")
		}},
		Case{"TimeToLive/OtherAttribute", func(t *testing.T, h *H) {
			_, err := updateTTL(h, ttlTable(h), true, "other")
			h.WantError(err, "ValidationException", "TimeToLive is active on a different AttributeName")
		}},
		Case{"TimeToLive/Disable", func(t *testing.T, h *H) {
			name := ttlTable(h)
			spec, err := updateTTL(h, name, false, "expires")
			h.Must(err)
			if aws.ToBool(spec.Enabled) {
				t.Fatalf("TimeToLiveSpecification.Enabled = true")
			}
			d, err := h.API.DescribeTimeToLive(h.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			h.Must(err)
			if st := d.TimeToLiveDescription.TimeToLiveStatus; st != types.TimeToLiveStatusDisabled && st != types.TimeToLiveStatusDisabling {
				t.Fatalf("TimeToLiveStatus = %s", st)
			}
		}},
		Case{"TimeToLive/AlreadyDisabled", func(t *testing.T, h *H) {
			_, err := updateTTL(h, h.HashTable(), false, "expires")
			h.WantError(err, "ValidationException", "TimeToLive is already disabled")
		}},
		Case{"TimeToLive/EmptyAttributeName", func(t *testing.T, h *H) {
			_, err := updateTTL(h, h.HashTable(), true, "")
			h.WantError(err, "ValidationException", "Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive")
		}},
		Case{"TimeToLive/TableNotFound", func(t *testing.T, h *H) {
			name := h.TableName()
			_, err := h.API.DescribeTimeToLive(h.Ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
			_, err = updateTTL(h, name, true, "expires")
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
	)
}

// ttlTable creates a hash table with TimeToLive enabled on "expires".
func ttlTable(h *H) string {
	h.t.Helper()
	name := h.HashTable()
	_, err := updateTTL(h, name, true, "expires")
	h.Must(err)
	return name
}

// updateTTL enables or disables TimeToLive on attribute attr of table and
// returns the specification the answer reports.
func updateTTL(h *H, table string, enabled bool, attr string) (*types.TimeToLiveSpecification, error) {
	out, err := h.API.UpdateTimeToLive(h.Ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(enabled), AttributeName: aws.String(attr)}})
	if err != nil {
		return nil, err
	}
	return out.TimeToLiveSpecification, nil
}

// waitGone waits until DescribeTable reports the table missing.
func waitGone(h *H, name string) {
	h.t.Helper()
	for i := 0; i < 600; i++ {
		_, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if ErrorCode(err) == "ResourceNotFoundException" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.t.Fatalf("table %s still exists after 30s", name)
}

// listed reports whether ListTables lists name, paging from just before it
// so that the other tables of a shared backend do not matter.
func listed(h *H, name string) bool {
	h.t.Helper()
	start := name[:len(name)-1]
	for {
		out, err := h.API.ListTables(h.Ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String(start), Limit: aws.Int32(100)})
		h.Must(err)
		for _, n := range out.TableNames {
			if n >= name {
				return n == name
			}
		}
		if out.LastEvaluatedTableName == nil {
			return false
		}
		start = *out.LastEvaluatedTableName
	}
}

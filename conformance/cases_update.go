package conformance

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UpdateItem: the operation, every ReturnValues mode, and the update
// expression language (SET, REMOVE, ADD, DELETE) with its errors.

const (
	msgBadPath      = "The document path provided in the update expression is invalid for update"
	msgWrongType    = "An operand in the update expression has an incorrect data type"
	msgMissingAttr  = "The provided expression refers to an attribute that does not exist in the item"
	msgKeyAttribute = "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
)

var updKey = Item{"pk": S("u")}

// updItem is the item the update cases start from.
func updItem() Item {
	return Item{
		"pk": S("u"),
		"n":  N("10"),
		"s":  S("abc"),
		"l":  L(S("a"), S("b"), S("c")),
		"m":  M(Item{"a": M(Item{"b": N("1")}), "s": S("x")}),
		"ss": SS("a", "b"),
		"ns": NS("1", "2"),
		"bs": BS([]byte{1}),
	}
}

// updTable stores updItem in a fresh table and returns the table.
func updTable(h *H) string {
	h.t.Helper()
	table := h.HashTable()
	h.Put(table, updItem())
	return table
}

// upd applies expr to updItem in a fresh table and wants the result to be
// want, both as returned (ALL_NEW) and as read back.
func upd(h *H, expr string, values Item, want Item) {
	h.t.Helper()
	table := updTable(h)
	h.WantItem(h.Update(table, updKey, expr, nil, values), want)
	h.WantItem(h.Get(table, updKey), want)
}

// updErr applies expr to updItem in a fresh table and wants a
// ValidationException with message msg and the item unchanged.
func updErr(h *H, expr string, values Item, msg string) {
	h.t.Helper()
	table := updTable(h)
	h.WantUpdateError(table, updKey, expr, nil, values, msg)
	h.WantItem(h.Get(table, updKey), updItem())
}

// updRV applies expr to updItem with ReturnValues rv and wants Attributes to
// be want (nil: none).
func updRV(h *H, expr string, values Item, rv types.ReturnValue, want Item) {
	h.t.Helper()
	table := updTable(h)
	out, err := h.UpdateErr(table, updKey, expr, nil, values, rv)
	h.Must(err)
	if want == nil && len(out.Attributes) == 0 {
		return
	}
	h.WantItem(out.Attributes, want)
}

func init() {
	register(
		// UpdateItem
		Case{"UpdateItem/CreatesItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			got := h.Update(table, Item{"pk": S("new")}, "SET a = :v, b = :w", nil, Item{":v": N("1"), ":w": L(S("x"))})
			want := Item{"pk": S("new"), "a": N("1"), "b": L(S("x"))}
			h.WantItem(got, want)
			h.WantItem(h.Get(table, Item{"pk": S("new")}), want)
		}},
		Case{"UpdateItem/CreatesItemCompositeKey", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeN)
			key := Item{"pk": S("a"), "sk": N("1.50")}
			h.WantItem(h.Update(table, key, "ADD c :one", nil, Item{":one": N("1")}), Item{"pk": S("a"), "sk": N("1.5"), "c": N("1")})
			h.WantItem(h.Update(table, key, "ADD c :one", nil, Item{":one": N("1")}), Item{"pk": S("a"), "sk": N("1.5"), "c": N("2")})
		}},
		Case{"UpdateItem/NoExpressionCreatesKeyOnly", func(t *testing.T, h *H) {
			table := h.HashTable()
			out, err := h.UpdateErr(table, Item{"pk": S("new")}, "", nil, nil, types.ReturnValueAllNew)
			h.Must(err)
			h.WantItem(out.Attributes, Item{"pk": S("new")})
			h.WantItem(h.Get(table, Item{"pk": S("new")}), Item{"pk": S("new")})
		}},
		Case{"UpdateItem/NoExpressionKeepsItem", func(t *testing.T, h *H) {
			table := updTable(h)
			_, err := h.UpdateErr(table, updKey, "", nil, nil, types.ReturnValueNone)
			h.Must(err)
			h.WantItem(h.Get(table, updKey), updItem())
		}},
		Case{"UpdateItem/RemoveLeavesKey", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1")})
			h.WantItem(h.Update(table, Item{"pk": S("a")}, "REMOVE x", nil, nil), Item{"pk": S("a")})
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a")})
		}},
		Case{"UpdateItem/SetKeyError", func(t *testing.T, h *H) { updErr(h, "SET pk = :v", v1(S("x")), msgKeyAttribute) }},
		Case{"UpdateItem/RemoveKeyError", func(t *testing.T, h *H) { updErr(h, "REMOVE pk", nil, msgKeyAttribute) }},
		Case{"UpdateItem/AddKeyError", func(t *testing.T, h *H) { updErr(h, "ADD pk :v", v1(N("1")), msgKeyAttribute) }},
		Case{"UpdateItem/SetRangeKeyError", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			h.WantUpdateError(table, Item{"pk": S("a"), "sk": S("b")}, "SET sk = :v", nil, v1(S("c")), "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")
		}},
		Case{"UpdateItem/SetKeyNameNested", func(t *testing.T, h *H) {
			// Only the top-level key attributes are protected.
			table := updTable(h)
			h.WantItem(h.Update(table, updKey, "SET m.pk = :v", nil, v1(S("x"))),
				with(updItem(), "m", M(Item{"a": M(Item{"b": N("1")}), "s": S("x"), "pk": S("x")})))
		}},
		Case{"UpdateItem/MissingKey", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.WantUpdateError(table, Item{"x": S("y")}, "SET a = :v", nil, v1(N("1")), msgMissingKey)
		}},
		Case{"UpdateItem/ExtraKeyAttribute", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.WantUpdateError(table, Item{"pk": S("a"), "x": S("y")}, "SET a = :v", nil, v1(N("1")), msgKeyConditions)
		}},
		Case{"UpdateItem/KeyTypeMismatch", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.WantUpdateError(table, Item{"pk": N("1")}, "SET a = :v", nil, v1(N("1")), msgKeyTypeMismatch)
		}},
		Case{"UpdateItem/TableNotFound", func(t *testing.T, h *H) {
			_, err := h.UpdateErr(h.TableName(), Item{"pk": S("a")}, "SET a = :v", nil, v1(N("1")), types.ReturnValueNone)
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"UpdateItem/LegacyAttributeUpdates", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "n": N("1"), "ss": SS("a", "b"), "x": S("gone")})
			out, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ReturnValues: types.ReturnValueAllNew,
				AttributeUpdates: map[string]types.AttributeValueUpdate{
					"n":  {Action: types.AttributeActionAdd, Value: N("2")},
					"ss": {Action: types.AttributeActionDelete, Value: SS("a")},
					"x":  {Action: types.AttributeActionDelete},
					"y":  {Action: types.AttributeActionPut, Value: S("new")},
				}})
			h.Must(err)
			h.WantItem(out.Attributes, Item{"pk": S("a"), "n": N("3"), "ss": SS("b"), "y": S("new")})
		}},
		Case{"UpdateItem/LegacyWithExpressionError", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				AttributeUpdates:    map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionPut, Value: N("1")}},
				ConditionExpression: aws.String("attribute_not_exists(a)")})
			h.WantError(err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {ConditionExpression}")
		}},

		// ReturnValues of UpdateItem
		Case{"ReturnValues/UpdateNone", func(t *testing.T, h *H) {
			updRV(h, "SET n = :v", v1(N("1")), types.ReturnValueNone, nil)
		}},
		Case{"ReturnValues/UpdateAllOld", func(t *testing.T, h *H) {
			updRV(h, "SET n = :v REMOVE s", v1(N("1")), types.ReturnValueAllOld, updItem())
		}},
		Case{"ReturnValues/UpdateAllNew", func(t *testing.T, h *H) {
			updRV(h, "SET n = :v REMOVE s", v1(N("1")), types.ReturnValueAllNew, with(updItem(), "n", N("1"), "s", nil))
		}},
		Case{"ReturnValues/UpdateUpdatedOld", func(t *testing.T, h *H) {
			updRV(h, "SET n = :v, x = :v REMOVE s", v1(N("1")), types.ReturnValueUpdatedOld, Item{"n": N("10"), "s": S("abc")})
		}},
		Case{"ReturnValues/UpdateUpdatedNew", func(t *testing.T, h *H) {
			updRV(h, "SET n = :v, x = :v REMOVE s", v1(N("1")), types.ReturnValueUpdatedNew, Item{"n": N("1"), "x": N("1")})
		}},
		Case{"ReturnValues/UpdatedNewUnchangedValue", func(t *testing.T, h *H) {
			updRV(h, "SET n = :v", v1(N("10")), types.ReturnValueUpdatedNew, Item{"n": N("10")})
		}},
		Case{"ReturnValues/UpdatedOldNestedPath", func(t *testing.T, h *H) {
			// DynamoDB Local returns the whole top-level attribute that holds
			// an updated nested path ({"m": {"a": {"b": 1}, "s": "x"}}), where
			// the API reference describes only the updated path.
			updRV(h, "SET m.a.b = :v", v1(N("7")), types.ReturnValueUpdatedOld, Item{"m": updItem()["m"]})
		}},
		Case{"ReturnValues/UpdatedNewNestedPath", func(t *testing.T, h *H) {
			// As UpdatedOldNestedPath: the whole top-level attribute.
			updRV(h, "SET m.a.b = :v", v1(N("7")), types.ReturnValueUpdatedNew, Item{"m": M(Item{"a": M(Item{"b": N("7")}), "s": S("x")})})
		}},
		Case{"ReturnValues/UpdatedNewNestedPaths", func(t *testing.T, h *H) {
			updRV(h, "SET m.a.b = :v, m.s = :w", Item{":v": N("7"), ":w": S("y")}, types.ReturnValueUpdatedNew,
				Item{"m": M(Item{"a": M(Item{"b": N("7")}), "s": S("y")})})
		}},
		Case{"ReturnValues/UpdatedOldNewAttribute", func(t *testing.T, h *H) {
			updRV(h, "SET x = :v", v1(N("1")), types.ReturnValueUpdatedOld, nil)
		}},
		Case{"ReturnValues/UpdatedNewRemove", func(t *testing.T, h *H) {
			updRV(h, "REMOVE s, nope", nil, types.ReturnValueUpdatedNew, nil)
		}},
		Case{"ReturnValues/UpdatedNewAddAndDelete", func(t *testing.T, h *H) {
			updRV(h, "ADD n :one, ss :c DELETE ns :two", Item{":one": N("1"), ":c": SS("c"), ":two": NS("2")}, types.ReturnValueUpdatedNew,
				Item{"n": N("11"), "ss": SS("a", "b", "c"), "ns": NS("1")})
		}},
		Case{"ReturnValues/UpdatedOldAddAndDelete", func(t *testing.T, h *H) {
			updRV(h, "ADD n :one, ss :c DELETE ns :two", Item{":one": N("1"), ":c": SS("c"), ":two": NS("2")}, types.ReturnValueUpdatedOld,
				Item{"n": N("10"), "ss": SS("a", "b"), "ns": NS("1", "2")})
		}},
		Case{"ReturnValues/UpdateAbsentItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			for rv, want := range map[types.ReturnValue]Item{
				types.ReturnValueAllOld:     nil,
				types.ReturnValueUpdatedOld: nil,
				types.ReturnValueUpdatedNew: {"a": N("1")},
				types.ReturnValueAllNew:     {"pk": S(string(types.ReturnValueAllNew)), "a": N("1")},
			} {
				out, err := h.UpdateErr(table, Item{"pk": S(string(rv))}, "SET a = :v", nil, v1(N("1")), rv)
				h.Must(err)
				if want == nil && len(out.Attributes) == 0 {
					continue
				}
				h.WantItem(out.Attributes, want)
			}
		}},
		Case{"ReturnValues/UpdateInvalid", func(t *testing.T, h *H) {
			table := updTable(h)
			_, err := h.UpdateErr(table, updKey, "SET n = :v", nil, v1(N("1")), "FOO")
			h.WantError(err, "ValidationException", msgBadReturnValues)
			h.WantItem(h.Get(table, updKey), updItem())
		}},

		// SET
		Case{"UpdateExpression/SetValue", func(t *testing.T, h *H) {
			upd(h, "SET n = :v", v1(S("now a string")), with(updItem(), "n", S("now a string")))
		}},
		Case{"UpdateExpression/SetMultiple", func(t *testing.T, h *H) {
			upd(h, "SET a = :v, b = :w, n = :v", Item{":v": N("1"), ":w": M(Item{"x": NULL()})}, with(updItem(), "a", N("1"), "b", M(Item{"x": NULL()}), "n", N("1")))
		}},
		Case{"UpdateExpression/SetCopyAttribute", func(t *testing.T, h *H) {
			upd(h, "SET x = m, y = l[0]", nil, with(updItem(), "x", updItem()["m"], "y", S("a")))
		}},
		Case{"UpdateExpression/SetCopyMissingError", func(t *testing.T, h *H) {
			updErr(h, "SET x = nope", nil, msgMissingAttr)
		}},
		Case{"UpdateExpression/SetEmptyString", func(t *testing.T, h *H) {
			upd(h, "SET s = :v", v1(S("")), with(updItem(), "s", S("")))
		}},
		Case{"UpdateExpression/SetPlus", func(t *testing.T, h *H) {
			upd(h, "SET n = n + :v", v1(N("5")), with(updItem(), "n", N("15")))
		}},
		Case{"UpdateExpression/SetMinus", func(t *testing.T, h *H) {
			upd(h, "SET n = n - :v", v1(N("15")), with(updItem(), "n", N("-5")))
		}},
		Case{"UpdateExpression/SetValueMinusAttribute", func(t *testing.T, h *H) {
			upd(h, "SET n = :v - n", v1(N("15")), with(updItem(), "n", N("5")))
		}},
		Case{"UpdateExpression/SetNestedArithmetic", func(t *testing.T, h *H) {
			upd(h, "SET m.a.b = m.a.b + :v", v1(N("1")), with(updItem(), "m", M(Item{"a": M(Item{"b": N("2")}), "s": S("x")})))
		}},
		Case{"UpdateExpression/SetDecimalArithmetic", func(t *testing.T, h *H) {
			table := updTable(h)
			// DynamoDB Local returns "3.00" and "0.0" here, keeping the scale of
			// the operands; DynamoDB returns canonical numbers. Compare values.
			got := h.Update(table, updKey, "SET x = :v + :w, y = :v - :v", nil, Item{":v": N("1.5"), ":w": N("1.50")})
			h.WantItemNumeric(got, with(updItem(), "x", N("3"), "y", N("0")))
		}},
		Case{"UpdateExpression/SetArithmeticPrecisionError", func(t *testing.T, h *H) {
			updErr(h, "SET n = n + :v", v1(N("99999999999999999999999999999999999999")), "DynamoDB only supports precision up to 38 digits")
		}},
		Case{"UpdateExpression/SetArithmeticNotNumberError", func(t *testing.T, h *H) {
			updErr(h, "SET n = n + s", nil, msgWrongType)
		}},
		Case{"UpdateExpression/SetArithmeticMissingError", func(t *testing.T, h *H) {
			updErr(h, "SET n = nope + :v", v1(N("1")), msgMissingAttr)
		}},
		Case{"UpdateExpression/SetArithmeticValueTypeError", func(t *testing.T, h *H) {
			updErr(h, "SET n = n + :v", v1(S("5")), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S")
		}},
		Case{"UpdateExpression/SetChainedArithmeticError", func(t *testing.T, h *H) {
			updErr(h, "SET n = n + :v + :v", v1(N("1")), `Invalid UpdateExpression: Syntax error; token: "+", near: ":v + :v"`)
		}},
		Case{"UpdateExpression/SetUnaryMinusError", func(t *testing.T, h *H) {
			updErr(h, "SET n = -n", nil, `Invalid UpdateExpression: Syntax error; token: "-", near: "= -n"`)
		}},
		Case{"UpdateExpression/IfNotExistsMissing", func(t *testing.T, h *H) {
			upd(h, "SET x = if_not_exists(x, :v)", v1(N("5")), with(updItem(), "x", N("5")))
		}},
		Case{"UpdateExpression/IfNotExistsPresent", func(t *testing.T, h *H) {
			upd(h, "SET n = if_not_exists(n, :v)", v1(N("5")), updItem())
		}},
		Case{"UpdateExpression/IfNotExistsOtherAttribute", func(t *testing.T, h *H) {
			upd(h, "SET x = if_not_exists(s, :v), y = if_not_exists(nope, s)", v1(S("d")), with(updItem(), "x", S("abc"), "y", S("abc")))
		}},
		Case{"UpdateExpression/IfNotExistsPlus", func(t *testing.T, h *H) {
			table := updTable(h)
			h.WantItem(h.Update(table, updKey, "SET c = if_not_exists(c, :zero) + :one", nil, Item{":zero": N("0"), ":one": N("1")}), with(updItem(), "c", N("1")))
			h.WantItem(h.Update(table, updKey, "SET c = if_not_exists(c, :zero) + :one", nil, Item{":zero": N("0"), ":one": N("1")}), with(updItem(), "c", N("2")))
		}},
		Case{"UpdateExpression/IfNotExistsNested", func(t *testing.T, h *H) {
			upd(h, "SET m.a.b = if_not_exists(m.a.b, :v), m.c = if_not_exists(m.c, :v)", v1(N("9")),
				with(updItem(), "m", M(Item{"a": M(Item{"b": N("1")}), "s": S("x"), "c": N("9")})))
		}},
		Case{"UpdateExpression/IfNotExistsValueFirstError", func(t *testing.T, h *H) {
			updErr(h, "SET n = if_not_exists(:v, n)", v1(N("1")), "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists")
		}},
		Case{"UpdateExpression/IfNotExistsArityError", func(t *testing.T, h *H) {
			updErr(h, "SET n = if_not_exists(n)", nil, "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1")
		}},
		Case{"UpdateExpression/ListAppendEnd", func(t *testing.T, h *H) {
			upd(h, "SET l = list_append(l, :v)", v1(L(S("d"), S("e"))), with(updItem(), "l", L(S("a"), S("b"), S("c"), S("d"), S("e"))))
		}},
		Case{"UpdateExpression/ListAppendFront", func(t *testing.T, h *H) {
			upd(h, "SET l = list_append(:v, l)", v1(L(S("d"))), with(updItem(), "l", L(S("d"), S("a"), S("b"), S("c"))))
		}},
		Case{"UpdateExpression/ListAppendSelf", func(t *testing.T, h *H) {
			upd(h, "SET l = list_append(l, l)", nil, with(updItem(), "l", L(S("a"), S("b"), S("c"), S("a"), S("b"), S("c"))))
		}},
		Case{"UpdateExpression/ListAppendEmpty", func(t *testing.T, h *H) {
			upd(h, "SET x = list_append(:v, :w)", Item{":v": L(), ":w": L(N("1"))}, with(updItem(), "x", L(N("1"))))
		}},
		Case{"UpdateExpression/ListAppendIfNotExists", func(t *testing.T, h *H) {
			upd(h, "SET x = list_append(if_not_exists(x, :e), :v)", Item{":e": L(), ":v": L(S("d"))}, with(updItem(), "x", L(S("d"))))
		}},
		Case{"UpdateExpression/ListAppendNotListError", func(t *testing.T, h *H) {
			updErr(h, "SET l = list_append(l, :v)", v1(S("d")), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S")
		}},
		Case{"UpdateExpression/ListAppendAttributeNotListError", func(t *testing.T, h *H) {
			updErr(h, "SET l = list_append(s, :v)", v1(L(S("d"))), msgWrongType)
		}},
		Case{"UpdateExpression/ListAppendMissingError", func(t *testing.T, h *H) {
			updErr(h, "SET x = list_append(x, :v)", v1(L(S("d"))), msgMissingAttr)
		}},
		Case{"UpdateExpression/ListAppendArityError", func(t *testing.T, h *H) {
			updErr(h, "SET n = list_append(l)", nil, "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1")
		}},
		Case{"UpdateExpression/SetNestedMap", func(t *testing.T, h *H) {
			upd(h, "SET m.a.b = :v", v1(N("5")), with(updItem(), "m", M(Item{"a": M(Item{"b": N("5")}), "s": S("x")})))
		}},
		Case{"UpdateExpression/SetNestedNewKey", func(t *testing.T, h *H) {
			upd(h, "SET m.c = :v, m.a.d = :v", v1(N("5")), with(updItem(), "m", M(Item{"a": M(Item{"b": N("1"), "d": N("5")}), "s": S("x"), "c": N("5")})))
		}},
		Case{"UpdateExpression/SetNestedMissingParentError", func(t *testing.T, h *H) {
			updErr(h, "SET m.q.r = :v", v1(N("5")), msgBadPath)
		}},
		Case{"UpdateExpression/SetMissingTopParentError", func(t *testing.T, h *H) {
			updErr(h, "SET nope.r = :v", v1(N("5")), msgBadPath)
		}},
		Case{"UpdateExpression/SetFieldOfScalarError", func(t *testing.T, h *H) {
			updErr(h, "SET s.x = :v", v1(N("5")), msgBadPath)
		}},
		Case{"UpdateExpression/SetListIndex", func(t *testing.T, h *H) {
			upd(h, "SET l[1] = :v", v1(S("B")), with(updItem(), "l", L(S("a"), S("B"), S("c"))))
		}},
		Case{"UpdateExpression/SetListIndexPastEnd", func(t *testing.T, h *H) {
			// An index past the end appends.
			upd(h, "SET l[10] = :v", v1(S("z")), with(updItem(), "l", L(S("a"), S("b"), S("c"), S("z"))))
		}},
		Case{"UpdateExpression/SetListIndexesDistinct", func(t *testing.T, h *H) {
			upd(h, "SET l[0] = :v, l[2] = :w", Item{":v": N("0"), ":w": N("2")}, with(updItem(), "l", L(N("0"), S("b"), N("2"))))
		}},
		Case{"UpdateExpression/SetListElementFromElement", func(t *testing.T, h *H) {
			upd(h, "SET l[1] = l[0]", nil, with(updItem(), "l", L(S("a"), S("a"), S("c"))))
		}},
		Case{"UpdateExpression/SetIndexOfNonListError", func(t *testing.T, h *H) {
			updErr(h, "SET s[0] = :v", v1(S("z")), msgBadPath)
		}},
		Case{"UpdateExpression/SetIndexOfMissingError", func(t *testing.T, h *H) {
			updErr(h, "SET nope[0] = :v", v1(S("z")), msgBadPath)
		}},
		Case{"UpdateExpression/SetFieldOfListError", func(t *testing.T, h *H) {
			updErr(h, "SET l.x = :v", v1(S("z")), msgBadPath)
		}},

		// REMOVE
		Case{"UpdateExpression/Remove", func(t *testing.T, h *H) {
			upd(h, "REMOVE s, n", nil, with(updItem(), "s", nil, "n", nil))
		}},
		Case{"UpdateExpression/RemoveMissing", func(t *testing.T, h *H) {
			upd(h, "REMOVE nope", nil, updItem())
		}},
		Case{"UpdateExpression/RemoveListElement", func(t *testing.T, h *H) {
			upd(h, "REMOVE l[1]", nil, with(updItem(), "l", L(S("a"), S("c"))))
		}},
		Case{"UpdateExpression/RemoveListElements", func(t *testing.T, h *H) {
			// Indexes refer to the list before the update.
			upd(h, "REMOVE l[0], l[2]", nil, with(updItem(), "l", L(S("b"))))
		}},
		Case{"UpdateExpression/RemoveListIndexPastEnd", func(t *testing.T, h *H) {
			upd(h, "REMOVE l[5]", nil, updItem())
		}},
		Case{"UpdateExpression/RemoveNested", func(t *testing.T, h *H) {
			upd(h, "REMOVE m.a.b, m.zz", nil, with(updItem(), "m", M(Item{"a": M(nil), "s": S("x")})))
		}},
		Case{"UpdateExpression/RemoveNestedMissingParentError", func(t *testing.T, h *H) {
			updErr(h, "REMOVE nope.zz", nil, msgBadPath)
		}},

		// ADD
		Case{"UpdateExpression/AddNumber", func(t *testing.T, h *H) {
			upd(h, "ADD n :v", v1(N("-3")), with(updItem(), "n", N("7")))
		}},
		Case{"UpdateExpression/AddCreatesNumber", func(t *testing.T, h *H) {
			upd(h, "ADD x :v", v1(N("-3")), with(updItem(), "x", N("-3")))
		}},
		Case{"UpdateExpression/AddNested", func(t *testing.T, h *H) {
			upd(h, "ADD m.a.b :v, m.c :v", v1(N("1")), with(updItem(), "m", M(Item{"a": M(Item{"b": N("2")}), "s": S("x"), "c": N("1")})))
		}},
		Case{"UpdateExpression/AddStringSet", func(t *testing.T, h *H) {
			upd(h, "ADD ss :v", v1(SS("c", "a")), with(updItem(), "ss", SS("a", "b", "c")))
		}},
		Case{"UpdateExpression/AddNumberSet", func(t *testing.T, h *H) {
			upd(h, "ADD ns :v", v1(NS("3", "1.0")), with(updItem(), "ns", NS("1", "2", "3")))
		}},
		Case{"UpdateExpression/AddBinarySet", func(t *testing.T, h *H) {
			upd(h, "ADD bs :v", v1(BS([]byte{2})), with(updItem(), "bs", BS([]byte{1}, []byte{2})))
		}},
		Case{"UpdateExpression/AddCreatesSet", func(t *testing.T, h *H) {
			upd(h, "ADD xs :v", v1(SS("c", "a")), with(updItem(), "xs", SS("a", "c")))
		}},
		Case{"UpdateExpression/AddSetTypeMismatchError", func(t *testing.T, h *H) {
			updErr(h, "ADD ss :v", v1(NS("3")), msgWrongType)
		}},
		Case{"UpdateExpression/AddNumberToStringError", func(t *testing.T, h *H) {
			updErr(h, "ADD s :v", v1(N("1")), msgWrongType)
		}},
		Case{"UpdateExpression/AddToListElementError", func(t *testing.T, h *H) {
			updErr(h, "ADD l[0] :v", v1(N("1")), msgWrongType)
		}},
		Case{"UpdateExpression/AddStringOperandError", func(t *testing.T, h *H) {
			updErr(h, "ADD n :v", v1(S("x")), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND")
		}},
		Case{"UpdateExpression/AddListOperandError", func(t *testing.T, h *H) {
			updErr(h, "ADD l :v", v1(L(S("x"))), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND")
		}},
		Case{"UpdateExpression/AddBoolOperandError", func(t *testing.T, h *H) {
			updErr(h, "ADD x :v", v1(BOOL(true)), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN, typeSet: ALLOWED_FOR_ADD_OPERAND")
		}},
		Case{"UpdateExpression/AddPrecisionError", func(t *testing.T, h *H) {
			updErr(h, "ADD n :v", v1(N("99999999999999999999999999999999999999")), "DynamoDB only supports precision up to 38 digits")
		}},

		// DELETE
		Case{"UpdateExpression/DeleteFromSet", func(t *testing.T, h *H) {
			upd(h, "DELETE ss :v", v1(SS("a", "z")), with(updItem(), "ss", SS("b")))
		}},
		Case{"UpdateExpression/DeleteToEmptyRemoves", func(t *testing.T, h *H) {
			upd(h, "DELETE ss :v", v1(SS("a", "b")), with(updItem(), "ss", nil))
		}},
		Case{"UpdateExpression/DeleteNumberSet", func(t *testing.T, h *H) {
			upd(h, "DELETE ns :v", v1(NS("1.0")), with(updItem(), "ns", NS("2")))
		}},
		Case{"UpdateExpression/DeleteBinarySetToEmpty", func(t *testing.T, h *H) {
			upd(h, "DELETE bs :v", v1(BS([]byte{1})), with(updItem(), "bs", nil))
		}},
		Case{"UpdateExpression/DeleteFromMissing", func(t *testing.T, h *H) {
			upd(h, "DELETE xs :v, m.q :v", v1(SS("z")), updItem())
		}},
		Case{"UpdateExpression/DeleteScalarOperandError", func(t *testing.T, h *H) {
			updErr(h, "DELETE ss :v", v1(S("a")), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND")
		}},
		Case{"UpdateExpression/DeleteTypeMismatchError", func(t *testing.T, h *H) {
			updErr(h, "DELETE ss :v", v1(NS("1")), msgWrongType)
		}},
		Case{"UpdateExpression/DeleteFromNonSetError", func(t *testing.T, h *H) {
			updErr(h, "DELETE s :v", v1(SS("a")), msgWrongType)
		}},

		// Several clauses
		Case{"UpdateExpression/AllClauses", func(t *testing.T, h *H) {
			upd(h, "SET n = :v REMOVE s ADD ns :w DELETE ss :x", Item{":v": N("1"), ":w": NS("9"), ":x": SS("a")},
				with(updItem(), "n", N("1"), "s", nil, "ns", NS("1", "2", "9"), "ss", SS("b")))
		}},
		Case{"UpdateExpression/ClausesAnyOrder", func(t *testing.T, h *H) {
			upd(h, "DELETE ss :x ADD ns :w REMOVE s SET n = :v", Item{":v": N("1"), ":w": NS("9"), ":x": SS("a")},
				with(updItem(), "n", N("1"), "s", nil, "ns", NS("1", "2", "9"), "ss", SS("b")))
		}},
		Case{"UpdateExpression/KeywordsCaseInsensitive", func(t *testing.T, h *H) {
			upd(h, "set n = :v remove s add x :v", v1(N("1")), with(updItem(), "n", N("1"), "s", nil, "x", N("1")))
		}},
		Case{"UpdateExpression/ReadsSeeOldItem", func(t *testing.T, h *H) {
			// Every operand is read from the item as it was before the update.
			upd(h, "SET n = :v, x = n", v1(N("1")), with(updItem(), "n", N("1"), "x", N("10")))
		}},
		Case{"UpdateExpression/OverlappingPathsError", func(t *testing.T, h *H) {
			updErr(h, "SET m = :v REMOVE m.a", v1(N("1")), "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, a]")
		}},
		Case{"UpdateExpression/OverlappingNestedPathsError", func(t *testing.T, h *H) {
			updErr(h, "SET m.a.b = :v, m.a = :v", v1(N("1")), "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m, a, b], path two: [m, a]")
		}},
		Case{"UpdateExpression/SamePathTwiceError", func(t *testing.T, h *H) {
			updErr(h, "SET n = :v, n = :v", v1(N("1")), "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [n], path two: [n]")
		}},
		Case{"UpdateExpression/SameListIndexTwiceError", func(t *testing.T, h *H) {
			updErr(h, "SET l[0] = :v REMOVE l[0]", v1(N("1")), "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, [0]]")
		}},
		Case{"UpdateExpression/ClauseRepeatedError", func(t *testing.T, h *H) {
			updErr(h, "SET n = :v SET s = :v", v1(N("1")), `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`)
		}},
		Case{"UpdateExpression/RemoveRepeatedError", func(t *testing.T, h *H) {
			updErr(h, "REMOVE n REMOVE s", nil, `Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;`)
		}},
		Case{"UpdateExpression/EmptyError", func(t *testing.T, h *H) {
			table := updTable(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: updKey, UpdateExpression: aws.String("")})
			h.WantError(err, "ValidationException", "Invalid UpdateExpression: The expression can not be empty;")
		}},
		Case{"UpdateExpression/SyntaxErrors", func(t *testing.T, h *H) {
			table := updTable(h)
			for expr, msg := range map[string]string{
				"SET":              `Syntax error; token: "<EOF>", near: "SET"`,
				"SET n :v":         `Syntax error; token: ":v", near: "n :v"`,
				"SET n = :v,":      `Syntax error; token: "<EOF>", near: ","`,
				"SET l[1], n = :v": `Syntax error; token: ",", near: "], n"`,
			} {
				values := v1(N("1"))
				if expr == "SET" {
					values = nil
				}
				h.WantUpdateError(table, updKey, expr, nil, values, "Invalid UpdateExpression: "+msg)
			}
		}},
		Case{"UpdateExpression/ReservedWordError", func(t *testing.T, h *H) {
			updErr(h, "SET name = :v", v1(N("1")), "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: name")
		}},
		Case{"UpdateExpression/FunctionNotAllowedError", func(t *testing.T, h *H) {
			updErr(h, "SET x = size(s)", nil, "Invalid UpdateExpression: The function is not allowed in an update expression; function: size")
		}},
		Case{"UpdateExpression/UnknownFunctionError", func(t *testing.T, h *H) {
			updErr(h, "SET n = bogus(n)", nil, "Invalid UpdateExpression: Invalid function name; function: bogus")
		}},
		Case{"UpdateExpression/UndefinedNameError", func(t *testing.T, h *H) {
			updErr(h, "SET #a = :v", v1(N("1")), "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #a")
		}},
		Case{"UpdateExpression/NamesAndValues", func(t *testing.T, h *H) {
			table := updTable(h)
			got := h.Update(table, updKey, "SET #name = :v, #m.#s = :v REMOVE #dot", Names{"#name": "name", "#m": "m", "#s": "s", "#dot": "a.b"}, v1(S("y")))
			h.WantItem(got, with(updItem(), "name", S("y"), "m", M(Item{"a": M(Item{"b": N("1")}), "s": S("y")})))
		}},
		Case{"UpdateExpression/NestedNamesDoNotSplit", func(t *testing.T, h *H) {
			table := updTable(h)
			got := h.Update(table, updKey, "SET #ab = :v", Names{"#ab": "m.s"}, v1(S("top")))
			h.WantItem(got, with(updItem(), "m.s", S("top")))
		}},
	)
}

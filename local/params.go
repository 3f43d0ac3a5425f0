package local

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// The parameters of a request that DynamoDB checks, or compiles, before it
// touches an item: ReturnValues and ReturnValuesOnConditionCheckFailure, the
// projection of a read, the condition and update of a write, and the rule
// that expression and legacy parameters do not mix. Query and Scan compile
// theirs in query.go, scan.go and read.go.

// checkReturnValues returns DynamoDB's error when rv is set and not one of
// allowed.
func checkReturnValues(rv types.ReturnValue, allowed ...types.ReturnValue) error {
	if rv == "" {
		return nil
	}
	for _, a := range allowed {
		if rv == a {
			return nil
		}
	}
	return validationError(msgReturnValues)
}

// checkReturnOnFailure returns DynamoDB's error for an invalid
// ReturnValuesOnConditionCheckFailure.
func checkReturnOnFailure(rv types.ReturnValuesOnConditionCheckFailure) error {
	switch rv {
	case "", types.ReturnValuesOnConditionCheckFailureNone, types.ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", rv)
}

// checkCapacityMode returns DynamoDB's error for an invalid
// ReturnConsumedCapacity. (DynamoDB Local answers any other value with
// the capacity of INDEXES.)
func checkCapacityMode(rcc types.ReturnConsumedCapacity) error {
	switch rcc {
	case "", types.ReturnConsumedCapacityIndexes, types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityNone:
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", rcc)
}

// noReturn reports whether a write's caller wants neither its old item nor
// its consumed capacity.
func noReturn(rv types.ReturnValue, rcc types.ReturnConsumedCapacity) bool {
	return (rv == "" || rv == types.ReturnValueNone) && (rcc == "" || rcc == types.ReturnConsumedCapacityNone)
}

// projector applies a ProjectionExpression or AttributesToGet; the zero
// value returns items whole.
type projector struct {
	p     *expr.Projection
	names []string
}

// apply returns the projection of item. The result may share values with
// item, and is item itself when nothing is projected.
func (p projector) apply(item Item) Item {
	switch {
	case p.p != nil:
		r := p.p.Apply(item)
		if r == nil {
			r = Item{}
		}
		return r
	case p.names != nil:
		r := Item{}
		for _, n := range p.names {
			if v, ok := item[n]; ok {
				r[n] = v
			}
		}
		return r
	}
	return item
}

// set reports whether p projects, rather than return items whole.
func (p projector) set() bool { return p.p != nil || p.names != nil }

// topLevel returns the top-level attributes the projection reads.
func (p projector) topLevel() []string {
	if p.p != nil {
		return p.p.TopLevel()
	}
	return p.names
}

// readParams checks the parameters of a single-item read that do not need
// compiling: expression and legacy parameters mixed, placeholder names
// without an expression.
func readParams(pe *string, atg []string, names map[string]string) error {
	if pe != nil && len(atg) > 0 {
		return validationError("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	}
	if pe == nil && len(names) > 0 {
		return validationError("ExpressionAttributeNames can only be specified when using expressions")
	}
	return nil
}

// readProjection compiles the projection of a single-item read on table m
// and checks that it reaches into no key attribute.
func (m *tableMeta) readProjection(pe *string, atg []string, names map[string]string) (projector, error) {
	if err := readParams(pe, atg, names); err != nil {
		return projector{}, err
	}
	var proj projector
	var err error
	if pe != nil {
		proj, err = projectionExpression(*pe, names)
	} else {
		proj, err = attributesToGet(atg)
	}
	if err != nil {
		return projector{}, err
	}
	if err := m.checkNested(projNested(proj)); err != nil {
		return projector{}, err
	}
	return proj, nil
}

// projectionExpression compiles the ProjectionExpression of a single-item
// read.
func projectionExpression(pe string, names map[string]string) (projector, error) {
	c := expr.NewCompiler(names, nil)
	p, err := c.Projection(pe)
	if err != nil {
		return projector{}, err
	}
	if err := c.FinishNames(); err != nil {
		return projector{}, err
	}
	return projector{p: p}, nil
}

// compileRead compiles with c the FilterExpression and the
// ProjectionExpression of a Query or Scan, in that order (either may be
// nil: no filter, items whole). The caller finishes c.
func compileRead(c *expr.Compiler, filterExpr, projExpr *string) (*expr.Condition, projector, error) {
	var filter *expr.Condition
	if filterExpr != nil {
		var err error
		if filter, err = c.Filter(*filterExpr); err != nil {
			return nil, projector{}, err
		}
	}
	if projExpr == nil {
		return filter, projector{}, nil
	}
	p, err := c.Projection(*projExpr)
	if err != nil {
		return nil, projector{}, err
	}
	return filter, projector{p: p}, nil
}

// attributesToGet compiles the legacy AttributesToGet; none returns items
// whole.
func attributesToGet(atg []string) (projector, error) {
	if len(atg) == 0 {
		return projector{}, nil
	}
	p, err := expr.AttributesToGet(atg)
	if err != nil {
		return projector{}, err
	}
	return projector{p: p, names: atg}, nil
}

// writeExprs are the compiled expressions of a write: its condition
// (ConditionExpression or the legacy Expected), nil when it has none, and
// for UpdateItem its update (UpdateExpression or the legacy
// AttributeUpdates).
type writeExprs struct {
	cond   *expr.Condition
	update *expr.Update
}

// writeRequest holds the parameters that puts, deletes, updates and the
// condition checks of transactions share: the condition
// (ConditionExpression, or the legacy Expected and ConditionalOperator),
// for updates the update (UpdateExpression or the legacy AttributeUpdates),
// the placeholders and the return options. The zero value, for the puts and
// deletes of BatchWriteItem, has none of them.
type writeRequest struct {
	cond        *string
	expected    map[string]types.ExpectedAttributeValue
	op          types.ConditionalOperator
	update      *string
	attrUpdates map[string]types.AttributeValueUpdate
	names       map[string]string
	values      Item
	rv          types.ReturnValue
	onFail      types.ReturnValuesOnConditionCheckFailure
	isUpdate    bool // UpdateItem, or the Update of a transaction
}

// check makes the checks of a write's parameters that DynamoDB makes before
// those of its item or key: ReturnValues (one of allowed),
// ReturnValuesOnConditionCheckFailure, expression and legacy parameters
// mixed, placeholders without expressions. compile makes the last two
// again.
func (r *writeRequest) check(allowed ...types.ReturnValue) error {
	if err := checkReturnValues(r.rv, allowed...); err != nil {
		return err
	}
	if err := checkReturnOnFailure(r.onFail); err != nil {
		return err
	}
	if len(r.expected) == 0 && len(r.attrUpdates) == 0 && r.op == "" && (r.cond != nil || r.update != nil) {
		return nil // the usual case
	}
	_, err := r.usesExprs()
	return err
}

// prepareKeyed validates a write of the item at key on the table m, in
// DynamoDB's order: the parameters (check, ReturnValues one of allowed),
// the key, the expressions; it returns the key and the compiled
// expressions. Delete and update share it; a put's key is in its item.
func (r *writeRequest) prepareKeyed(m *tableMeta, key Item, allowed ...types.ReturnValue) (*primaryKey, writeExprs, error) {
	if err := r.check(allowed...); err != nil {
		return nil, writeExprs{}, err
	}
	k, err := m.keyFromMap(key)
	if err != nil {
		return nil, writeExprs{}, err
	}
	w, err := r.compile()
	if err != nil {
		return nil, writeExprs{}, err
	}
	return k, w, nil
}

// usesExprs checks that a write does not mix expression and legacy
// parameters, nor has placeholders without expressions, and reports
// whether it uses expressions.
func (r *writeRequest) usesExprs() (bool, error) {
	useExprs, err := mixedParams([]param{
		{"AttributeUpdates", len(r.attrUpdates) > 0},
		{"Expected", len(r.expected) > 0},
		{"ConditionalOperator", r.op != ""},
	}, []param{
		{"UpdateExpression", r.update != nil},
		{"ConditionExpression", r.cond != nil},
	})
	if err != nil {
		return false, err
	}
	if !useExprs {
		if len(r.names) > 0 {
			return false, validationError("ExpressionAttributeNames can only be specified when using expressions")
		}
		if len(r.values) > 0 {
			if r.isUpdate {
				return false, validationError("ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null")
			}
			return false, validationError("ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
		}
	}
	return useExprs, nil
}

// compile checks a write's parameters, as usesExprs, and compiles its
// expressions, or its legacy Expected and AttributeUpdates.
func (r *writeRequest) compile() (writeExprs, error) {
	var w writeExprs
	useExprs, err := r.usesExprs()
	if err != nil {
		return w, err
	}
	if useExprs {
		c := expr.NewCompiler(r.names, r.values)
		if r.update != nil {
			if w.update, err = c.Update(*r.update); err != nil {
				return w, err
			}
		}
		if r.cond != nil {
			if w.cond, err = c.Condition(*r.cond); err != nil {
				return w, err
			}
		}
		if err := c.Finish(); err != nil {
			return w, err
		}
		return w, nil
	}
	if len(r.expected) > 0 {
		if w.cond, err = expr.Expected(r.expected, r.op); err != nil {
			return w, err
		}
	} else if r.op != "" {
		return w, validationError("ConditionalOperator cannot be used without Filter or Expected")
	}
	if len(r.attrUpdates) > 0 {
		if w.update, err = expr.AttributeUpdates(r.attrUpdates); err != nil {
			return w, err
		}
	}
	return w, nil
}

// param is a request parameter, by name, and whether the request sets it.
type param struct {
	name string
	set  bool
}

// mixedParams returns DynamoDB's error for a request that sets both legacy
// and expression parameters, naming them in the order given (DynamoDB
// Local's), or nil; it reports whether the request sets any of exprs.
func mixedParams(legacy, exprs []param) (useExprs bool, err error) {
	names := func(ps []param) []string {
		var s []string
		for _, p := range ps {
			if p.set {
				s = append(s, p.name)
			}
		}
		return s
	}
	useLegacy := slices.ContainsFunc(legacy, func(p param) bool { return p.set })
	useExprs = slices.ContainsFunc(exprs, func(p param) bool { return p.set })
	if !useLegacy || !useExprs {
		return useExprs, nil
	}
	return true, validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
		strings.Join(names(legacy), ", "), strings.Join(names(exprs), ", "))
}

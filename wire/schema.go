package wire

import (
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
)

// memberNames returns, for a struct type of the SDK, the JSON member name of
// each Go field, keyed by field name. The SDK's field names are the member
// names except for a few shapes modeled in lower case (ThrottlingReason's
// "reason", ThrottlingException's "throttlingReasons", exceptions'
// "message"); the SDK's own schema of the shape says which. It returns nil
// for types without a schema.
func memberNames(t reflect.Type) map[string]string {
	v, ok := reflect.New(t).Interface().(smithy.Serializable)
	if !ok {
		return nil
	}
	var p schemaProbe
	func() {
		// A shape's Serialize starts with WriteStruct(schema); nothing after
		// that matters here, and nothing in it may stop plan building.
		defer func() { _ = recover() }()
		v.Serialize(&p)
	}()
	if p.schema == nil {
		return nil
	}
	members := p.schema.Members()
	names := make(map[string]string, len(members))
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := members[f.Name]; ok {
			names[f.Name] = f.Name
			continue
		}
		for m := range members {
			if strings.EqualFold(m, f.Name) {
				names[f.Name] = m
				break
			}
		}
	}
	return names
}

// schemaProbe is a smithy.ShapeSerializer that only remembers the schema of
// the first struct written.
type schemaProbe struct{ schema *smithy.Schema }

func (p *schemaProbe) WriteStruct(s *smithy.Schema) {
	if p.schema == nil {
		p.schema = s
	}
}

func (p *schemaProbe) Bytes() []byte                                { return nil }
func (p *schemaProbe) WriteInt8(*smithy.Schema, int8)               {}
func (p *schemaProbe) WriteInt16(*smithy.Schema, int16)             {}
func (p *schemaProbe) WriteInt32(*smithy.Schema, int32)             {}
func (p *schemaProbe) WriteInt64(*smithy.Schema, int64)             {}
func (p *schemaProbe) WriteFloat32(*smithy.Schema, float32)         {}
func (p *schemaProbe) WriteFloat64(*smithy.Schema, float64)         {}
func (p *schemaProbe) WriteBool(*smithy.Schema, bool)               {}
func (p *schemaProbe) WriteString(*smithy.Schema, string)           {}
func (p *schemaProbe) WriteBigInt(*smithy.Schema, *big.Int)         {}
func (p *schemaProbe) WriteBigFloat(*smithy.Schema, *big.Float)     {}
func (p *schemaProbe) WriteBlob(*smithy.Schema, []byte)             {}
func (p *schemaProbe) WriteTime(*smithy.Schema, time.Time)          {}
func (p *schemaProbe) WriteUnion(_, _ *smithy.Schema)               {}
func (p *schemaProbe) CloseUnion()                                  {}
func (p *schemaProbe) WriteDocument(*smithy.Schema, document.Value) {}
func (p *schemaProbe) WriteNil(*smithy.Schema)                      {}
func (p *schemaProbe) CloseStruct()                                 {}
func (p *schemaProbe) WriteList(*smithy.Schema)                     {}
func (p *schemaProbe) CloseList()                                   {}
func (p *schemaProbe) WriteMap(*smithy.Schema)                      {}
func (p *schemaProbe) WriteKey(*smithy.Schema, string)              {}
func (p *schemaProbe) CloseMap()                                    {}

var _ smithy.ShapeSerializer = (*schemaProbe)(nil)

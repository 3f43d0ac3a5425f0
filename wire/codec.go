package wire

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/timetable-db/timetable/internal/jsonstr"
)

// Marshal returns the awsJson1_0 encoding of v, a pointer to (or value of)
// an aws-sdk-go-v2 DynamoDB shape such as *dynamodb.QueryOutput or
// types.AttributeValue: member names are the Go field names, nil pointers,
// slices and maps are left out (empty non-nil ones are written), enums are
// strings, timestamps are epoch seconds, blobs are base64.
func Marshal(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return []byte("null"), nil
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return []byte("null"), nil
		}
		rv = rv.Elem()
	} else {
		// Fast paths need addressable values.
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p.Elem()
	}
	c, err := codecFor(rv.Type())
	if err != nil {
		return nil, err
	}
	e := encoder{}
	c.enc(&e, rv)
	return e.buf, nil
}

// Unmarshal decodes data, an awsJson1_0 document, into v, a non-nil pointer
// to an aws-sdk-go-v2 DynamoDB shape. Unknown members are ignored and JSON
// null leaves a member unset, as DynamoDB does. Malformed JSON or a value of
// the wrong type is a *Error with Code "SerializationException"; an
// AttributeValue with no or several types set is a *Error with Code
// "ValidationException", reported only when the document is otherwise well
// formed. Unmarshal never panics.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("wire: Unmarshal needs a non-nil pointer, not %T", v)
	}
	c, err := codecFor(rv.Type().Elem())
	if err != nil {
		return err
	}
	return decodeDocument(data, c, rv.Elem(), maxDepth)
}

// maxDepth bounds JSON nesting. DynamoDB Local's parser gives up near 1000
// levels; this is below that so every accepted document fits comfortably,
// and above what 32 levels of attribute nesting (two JSON levels each) and
// the request shapes around them need, so the engine reports DynamoDB's own
// nesting errors.
const maxDepth = 512

func decodeDocument(data []byte, c *codec, v reflect.Value, depth int) error {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.data, d.pos, d.depth, d.max, d.buf = data, 0, 0, depth, d.buf[:0]
	d.verr = nil
	switch d.peek() {
	case tokEOF:
		return serializationError("Empty request body: expected a JSON object")
	case tokObject:
	default:
		if err := d.skip(); err != nil {
			return err
		}
		return serializationError("The request body must be a JSON object")
	}
	if err := c.dec(d, v); err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	if d.verr != nil {
		return d.verr
	}
	return nil
}

// decoder is the scanner plus the first validation error met; validation
// errors are reported only when the whole document is well formed, so a
// SerializationException wins, as in DynamoDB. Decoders are pooled with
// what they keep between documents: the scanner's scratch buffer and table
// of recent strings, and unused room for attribute values.
type decoder struct {
	scanner
	verr *Error

	slabS slab[types.AttributeValueMemberS]
	slabN slab[types.AttributeValueMemberN]
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

func (d *decoder) release() {
	d.data = nil
	if cap(d.buf) > 64<<10 {
		d.buf = nil
	}
	d.verr = nil
	decoders.Put(d)
}

func (d *decoder) invalid(e *Error) {
	if d.verr == nil {
		d.verr = e
	}
}

// A slab hands out attribute values, one allocation per slabSize values
// instead of one each. A value kept by the API keeps its slab alive, which
// costs at most slabSize small structs.
type slab[T any] []T

const slabSize = 32

// next returns a zero T from the slab.
func (s *slab[T]) next() *T {
	if len(*s) == 0 {
		*s = make([]T, slabSize)
	}
	p := &(*s)[0]
	*s = (*s)[1:]
	return p
}

func (d *decoder) newS(v string) *types.AttributeValueMemberS {
	p := d.slabS.next()
	p.Value = v
	return p
}

func (d *decoder) newN(v string) *types.AttributeValueMemberN {
	p := d.slabN.next()
	p.Value = v
	return p
}

type (
	decFunc func(d *decoder, v reflect.Value) error
	encFunc func(e *encoder, v reflect.Value)
)

// codec is the cached plan for one Go type.
type codec struct {
	typ  reflect.Type
	dec  decFunc
	enc  encFunc
	omit func(v reflect.Value) bool // whether a member of this type is left out

	// structs
	fields []field
	byName map[string]*field
}

type field struct {
	name   string
	quoted []byte // `"Name":`
	index  int
	dec    decFunc
	enc    encFunc
	omit   func(v reflect.Value) bool
}

var (
	codecs   sync.Map // reflect.Type -> *codec
	codecsMu sync.Mutex
)

// codecFor returns the plan for t, building and caching it (and the plans of
// the types it contains) on first use.
func codecFor(t reflect.Type) (*codec, error) {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec), nil
	}
	codecsMu.Lock()
	defer codecsMu.Unlock()
	if c, ok := codecs.Load(t); ok {
		return c.(*codec), nil
	}
	b := builder{building: map[reflect.Type]*codec{}}
	c, err := b.build(t)
	if err != nil {
		return nil, err
	}
	for t, c := range b.building {
		codecs.Store(t, c)
	}
	return c, nil
}

type builder struct {
	building map[reflect.Type]*codec
}

var (
	attributeValueType = reflect.TypeFor[types.AttributeValue]()
	timeType           = reflect.TypeFor[time.Time]()
	metadataType       = reflect.TypeFor[middleware.Metadata]()
)

func (b *builder) build(t reflect.Type) (*codec, error) {
	if c, ok := b.building[t]; ok {
		return c, nil
	}
	c := &codec{typ: t}
	b.building[t] = c
	if err := b.fill(c, t); err != nil {
		return nil, err
	}
	return c, nil
}

func (b *builder) fill(c *codec, t reflect.Type) error {
	switch {
	case t == attributeValueType:
		c.dec, c.enc, c.omit = decAVValue, encAVValue, omitNilInterface
		return nil
	case t == timeType:
		c.dec, c.enc, c.omit = decTime, encTime, omitNever
		return nil
	case t == streamsAttributeValueType:
		c.dec, c.enc, c.omit = decStreamsAV, encStreamsAV, omitNilInterface
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		c.dec, c.enc, c.omit = decString, encString, omitEmptyString
	case reflect.Bool:
		c.dec, c.enc, c.omit = decBool, encBool, omitNever
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.dec, c.enc, c.omit = intDecoder(t), encInt, omitNever
	case reflect.Float32, reflect.Float64:
		c.dec, c.enc, c.omit = decFloat, encFloat, omitNever
	case reflect.Pointer:
		elem, err := b.build(t.Elem())
		if err != nil {
			return err
		}
		c.dec, c.enc, c.omit = ptrDecoder(t, elem), ptrEncoder(elem), omitNilPointer
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			c.dec, c.enc, c.omit = decBlob, encBlob, omitNilSlice
			return nil
		}
		elem, err := b.build(t.Elem())
		if err != nil {
			return err
		}
		c.dec, c.enc, c.omit = sliceDecoder(t, elem), sliceEncoder(elem), omitNilSlice
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("wire: unsupported map key type %s", t.Key())
		}
		elem, err := b.build(t.Elem())
		if err != nil {
			return err
		}
		c.dec, c.enc, c.omit = mapDecoder(t, elem), mapEncoder(t, elem), omitNilMap
	case reflect.Struct:
		return b.fillStruct(c, t)
	default:
		return fmt.Errorf("wire: unsupported type %s", t)
	}
	return nil
}

func (b *builder) fillStruct(c *codec, t reflect.Type) error {
	c.byName = map[string]*field{}
	names := memberNames(t)
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Type == metadataType {
			continue
		}
		fc, err := b.build(sf.Type)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		name := sf.Name
		if n, ok := names[sf.Name]; ok {
			name = n
		}
		f := field{
			name:   name,
			quoted: append(jsonstr.Append(nil, name), ':'),
			index:  i,
			// Late-bound: fc may still be under construction when t is recursive.
			dec:  func(d *decoder, v reflect.Value) error { return fc.dec(d, v) },
			enc:  func(e *encoder, v reflect.Value) { fc.enc(e, v) },
			omit: func(v reflect.Value) bool { return fc.omit(v) },
		}
		if fc.dec != nil {
			f.dec, f.enc, f.omit = fc.dec, fc.enc, fc.omit
		}
		if fast := fieldDecoder(sf); fast != nil {
			f.dec = fast
		}
		c.fields = append(c.fields, f)
	}
	for i := range c.fields {
		c.byName[c.fields[i].name] = &c.fields[i]
	}
	c.dec = func(d *decoder, v reflect.Value) error { return decStruct(d, c, v) }
	c.enc = func(e *encoder, v reflect.Value) { encStruct(e, c, v) }
	c.omit = omitNever
	return nil
}

func omitNever(reflect.Value) bool          { return false }
func omitEmptyString(v reflect.Value) bool  { return v.Len() == 0 }
func omitNilPointer(v reflect.Value) bool   { return v.IsNil() }
func omitNilSlice(v reflect.Value) bool     { return v.IsNil() }
func omitNilMap(v reflect.Value) bool       { return v.IsNil() }
func omitNilInterface(v reflect.Value) bool { return v.IsNil() }

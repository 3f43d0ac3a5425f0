package wire

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
)

// itemJSONOps replaces GetItem, Query and Scan in ops by operations that ask
// api's timetable.ItemJSONReader for the items' JSON, when api has one.
func itemJSONOps(api timetable.API, ops map[string]*operation) {
	r, ok := api.(timetable.ItemJSONReader)
	if !ok {
		return
	}
	ops["GetItem"] = jsonOp("GetItem", "Item", r.GetItemJSON, func(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return api.GetItem(ctx, in)
	})
	ops["Query"] = jsonOp("Query", "Items", r.QueryJSON, func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return api.Query(ctx, in)
	})
	ops["Scan"] = jsonOp("Scan", "Items", r.ScanJSON, func(ctx context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		return api.Scan(ctx, in)
	})
}

// jsonOp builds an operation whose output member member (left nil in the
// output) is written by call, falling back to plain when call declines.
func jsonOp[I, O any](name, member string,
	call func(context.Context, *I, []byte) (*O, []byte, error),
	plain func(context.Context, *I) (*O, error),
) *operation {
	in := mustCodec(reflect.TypeFor[I]())
	out := mustCodec(reflect.TypeFor[O]())
	head := `{"` + member + `":`
	return &operation{name: name, serve: func(ctx context.Context, body []byte, e *encoder) error {
		input := new(I)
		if err := decodeDocument(body, in, reflect.ValueOf(input).Elem(), maxDepth); err != nil {
			return err
		}
		start := len(e.buf)
		e.buf = append(e.buf, head...)
		mark := len(e.buf)
		output, buf, err := call(ctx, input, e.buf)
		if err != nil {
			e.buf = e.buf[:start]
			return err
		}
		if output == nil {
			e.buf = e.buf[:start]
			if output, err = plain(ctx, input); err != nil {
				return err
			}
			writeOutput(e, out, output)
			return nil
		}
		e.buf = buf
		if len(e.buf) == mark {
			// Nothing written (GetItem of an absent item): the output alone.
			e.buf = e.buf[:start]
			out.enc(e, reflect.ValueOf(output).Elem())
			return nil
		}
		// The rest of the output follows the member: its object's opening
		// brace becomes a comma, or an empty object only closes ours.
		pos := len(e.buf)
		out.enc(e, reflect.ValueOf(output).Elem())
		if len(e.buf) == pos+2 {
			e.buf = append(e.buf[:pos], '}')
		} else {
			e.buf[pos] = ','
		}
		return nil
	}}
}

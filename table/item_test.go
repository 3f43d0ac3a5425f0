package table

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type reading struct {
	P     string  `dynamodbav:"P"`
	S     string  `dynamodbav:"S"`
	Value float64 `dynamodbav:"value"`
	Tag   string  `dynamodbav:"tag,omitempty"`
}

func TestNew_Validates(t *testing.T) {
	api := engine(t)
	for _, s := range []Schema{
		{},
		{Name: "x"},
		{Name: "x", HashKey: "h", Indexes: []Index{{Name: "i"}}},
		{Name: "x", HashKey: "h", Indexes: []Index{{Name: "i", HashKey: "a"}, {Name: "i", HashKey: "b"}}},
		{Name: "x", HashKey: "h", Indexes: []Index{{Name: "l", Local: true, RangeKey: "r"}}}, // table has no range key
		{Name: "x", HashKey: "h", RangeKey: "r", Indexes: []Index{{Name: "l", Local: true}}}, // no index range key
		{Name: "x", HashKey: "h", RangeKey: "r", Indexes: []Index{{Name: "l", Local: true, HashKey: "o", RangeKey: "q"}}},
	} {
		if _, err := New(api, s, nil); err == nil {
			t.Errorf("New(%+v) accepted", s)
		}
	}
	if _, err := New(nil, Schema{Name: "x", HashKey: "h"}, nil); err == nil {
		t.Error("New with nil API accepted")
	}
}

func TestItem_PutGetDelete(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		k := K("SENSOR#1", "2024-12-01T14:30:00.000Z")

		if _, err := tbl.Get(ctx, k, nil); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of absent item: %v, want ErrNotFound", err)
		}
		old, err := tbl.Put(ctx, reading{P: "SENSOR#1", S: "2024-12-01T14:30:00.000Z", Value: 72.5, Tag: "a"}, nil)
		if err != nil || old != nil {
			t.Fatalf("first Put = %v, %v", old, err)
		}
		old, err = tbl.Put(ctx, reading{P: "SENSOR#1", S: "2024-12-01T14:30:00.000Z", Value: 73}, nil)
		if err != nil || str(old, "value") != "72.5" {
			t.Fatalf("second Put returned old %v, %v", old, err)
		}
		var r reading
		if err := tbl.GetInto(ctx, k, &r, &GetOptions{Consistent: true}); err != nil || r.Value != 73 || r.Tag != "" {
			t.Fatalf("GetInto = %+v, %v", r, err)
		}
		it, err := tbl.Get(ctx, k, &GetOptions{Projection: []string{"value"}})
		if err != nil || len(it) != 1 || str(it, "value") != "73" {
			t.Fatalf("Get with projection = %v, %v", it, err)
		}

		// A create: fails when the item exists.
		_, err = tbl.Put(ctx, Item{"P": S("SENSOR#1"), "S": S("2024-12-01T14:30:00.000Z")}, &PutOptions{If: Attr("P").NotExists()})
		if !IsConditionFailed(err) {
			t.Fatalf("conditional Put over an existing item: %v", err)
		}
		_, err = tbl.Delete(ctx, k, &DeleteOptions{If: Attr("value").Gt(100)})
		if !IsConditionFailed(err) {
			t.Fatalf("conditional Delete: %v", err)
		}
		old, err = tbl.Delete(ctx, k, &DeleteOptions{If: Attr("value").Eq(73)})
		if err != nil || str(old, "value") != "73" {
			t.Fatalf("Delete = %v, %v", old, err)
		}
		old, err = tbl.Delete(ctx, k, nil)
		if err != nil || old != nil {
			t.Fatalf("Delete of absent item = %v, %v", old, err)
		}
	})
}

func TestItem_KeyErrors(t *testing.T) {
	tbl, err := New(engine(t), Schema{Name: "none", HashKey: "h", RangeKey: "r"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	for _, k := range []Key{{}, {Hash: "a"}, {Range: "b"}, {Hash: make(chan int), Range: "b"}} {
		if _, err := tbl.Get(ctx, k, nil); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%v) error = %v", k, err)
		}
	}
	hashOnly, _ := New(engine(t), Schema{Name: "none", HashKey: "h"}, nil)
	if _, err := hashOnly.Get(ctx, K("a", "b"), nil); err == nil {
		t.Error("range value accepted on a table without range key")
	}
	if _, err := tbl.Put(ctx, make(chan int), nil); err == nil {
		t.Error("Put of a channel accepted")
	}
	if _, err := tbl.Put(ctx, Item{"h": S("a"), "r": S("b")}, &PutOptions{If: Attr("x").Eq(make(chan int))}); err == nil {
		t.Error("condition with an unmarshallable value accepted")
	}
}

func TestItem_KeyOf(t *testing.T) {
	s := pkSk
	s.Name = "x"
	tbl, _ := New(engine(t), s, nil)
	k := tbl.KeyOf(Item{"P": S("a"), "S": S("b"), "x": S("c")})
	if k.Hash.(*types.AttributeValueMemberS).Value != "a" || k.Range.(*types.AttributeValueMemberS).Value != "b" {
		t.Fatalf("KeyOf = %+v", k)
	}
}

package design

import (
	"maps"
	"testing"
)

func TestAccessPattern_Expression(t *testing.T) {
	d := Analytics()
	x, err := d.AccessPattern("Realtime visitors").Expression(map[string]string{
		"siteId": "my-site", "start": "2024-01-15T10:26", "end": "2024-01-15T10:30",
	})
	if err != nil {
		t.Fatal(err)
	}
	if x.KeyCondition != "#k0 = :v0 AND #k1 BETWEEN :v1 AND :v2" {
		t.Errorf("KeyCondition = %q", x.KeyCondition)
	}
	if want := map[string]string{"#k0": "pk", "#k1": "sk"}; !maps.Equal(x.Names, want) {
		t.Errorf("Names = %v", x.Names)
	}
	want := map[string]string{":v0": "SITE#my-site", ":v1": "REALTIME#2024-01-15T10:26", ":v2": "REALTIME#2024-01-15T10:30"}
	if !maps.Equal(x.Values, want) {
		t.Errorf("Values = %v", x.Values)
	}

	x, err = d.AccessPattern("Site by id").Expression(map[string]string{"siteId": "s"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"pk": "SITE#s", "sk": "METADATA"}; !maps.Equal(x.Key, want) {
		t.Errorf("Key = %v", x.Key)
	}

	x, err = d.AccessPattern("All stats of a period kind").Expression(map[string]string{"siteId": "s", "period": "day"})
	if err != nil || x.KeyCondition != "#k0 = :v0 AND begins_with(#k1, :v1)" || x.Values[":v1"] != "PERIOD#day#" {
		t.Errorf("begins_with: %+v, %v", x, err)
	}

	if _, err := d.AccessPattern("Realtime visitors").Expression(map[string]string{"siteId": "s"}); err == nil {
		t.Error("no error without {start}")
	}
	if _, err := (&AccessPattern{Name: "scan", Op: Scan}).Expression(nil); err == nil {
		t.Error("no error without a key condition")
	}
}

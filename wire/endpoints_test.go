package wire_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/internal/testenv"
)

// DescribeEndpoints names the address the client reached, cached a day.
func TestDescribeEndpoints_AnswersTheRequestHost(t *testing.T) {
	db := testenv.MemDB(t, nil)
	client, srv := serve(t, db)
	out, err := client.DescribeEndpoints(context.Background(), &dynamodb.DescribeEndpointsInput{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	if len(out.Endpoints) != 1 || aws.ToString(out.Endpoints[0].Address) != u.Host || out.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Fatalf("endpoints %+v, want %s cached 1440 minutes", out.Endpoints, u.Host)
	}
}

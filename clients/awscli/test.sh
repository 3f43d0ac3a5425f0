#!/usr/bin/env bash
# Client test: drives a DynamoDB endpoint with the AWS CLI and checks its
# output. Exits non-zero on the first mismatch.
#
# Usage: clients/awscli/test.sh [ENDPOINT]
# The endpoint defaults to $TIMETABLE_DYNAMODB_ENDPOINT. The CLI runs with
# static credentials (test/test, or the access key in
# $TIMETABLE_ACCESS_KEY_ID and $TIMETABLE_SECRET_ACCESS_KEY for a timetable
# serve that checks signatures) and no user configuration, so nothing on
# the machine (profiles, SSO, instance metadata) is read or needed.
set -euo pipefail

endpoint=${1:-${TIMETABLE_DYNAMODB_ENDPOINT:-}}
if [[ -z $endpoint ]]; then
	echo "usage: $0 ENDPOINT (or set TIMETABLE_DYNAMODB_ENDPOINT)" >&2
	exit 2
fi

tmp=$(mktemp -d)
export AWS_ACCESS_KEY_ID=${TIMETABLE_ACCESS_KEY_ID:-test} AWS_SECRET_ACCESS_KEY=${TIMETABLE_SECRET_ACCESS_KEY:-test} AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=$tmp/config AWS_SHARED_CREDENTIALS_FILE=$tmp/credentials
export AWS_PAGER="" AWS_EC2_METADATA_DISABLED=true AWS_MAX_ATTEMPTS=1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB || true

table=clients_awscli_$$_$RANDOM
passed=0
created=

cleanup() {
	if [[ -n $created ]]; then
		ddb delete-table --table-name "$table" >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

ddb() { "${AWS_CLI:-aws}" dynamodb --endpoint-url "$endpoint" --output json "$@"; }

# check NAME WANT GOT compares two strings.
check() {
	if [[ $2 != "$3" ]]; then
		echo "not ok - $1"
		echo "  want: $2"
		echo "  got:  $3"
		echo "awscli: $passed passed, 1 failed"
		exit 1
	fi
	passed=$((passed + 1))
	echo "ok - $1"
}

got=$(ddb create-table --table-name "$table" \
	--attribute-definitions AttributeName=pk,AttributeType=S AttributeName=ts,AttributeType=N \
	--key-schema AttributeName=pk,KeyType=HASH AttributeName=ts,KeyType=RANGE \
	--billing-mode PAY_PER_REQUEST \
	--query 'TableDescription.[TableName, KeySchema[0].AttributeName, KeySchema[1].KeyType]' --output text)
created=1
check "create-table" "$table	pk	RANGE" "$got"

got=$(ddb list-tables --query "contains(TableNames, '$table')" --output text)
check "list-tables" "True" "$got"

# A stream of new and old images from here on: its records are read at the end.
got=$(ddb update-table --table-name "$table" \
	--stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES \
	--query 'TableDescription.StreamSpecification.StreamViewType' --output text)
check "update-table enables a stream" "NEW_AND_OLD_IMAGES" "$got"
stream_arn=$(ddb describe-table --table-name "$table" --query 'Table.LatestStreamArn' --output text)

for ts in 100 200 300 400; do
	ddb put-item --table-name "$table" \
		--item "{\"pk\":{\"S\":\"SENSOR#1\"},\"ts\":{\"N\":\"$ts\"},\"temp\":{\"N\":\"2$((ts / 100)).5\"},\"unit\":{\"S\":\"C\"}}"
done
ddb put-item --table-name "$table" --item '{"pk":{"S":"SENSOR#2"},"ts":{"N":"150"},"temp":{"N":"9"}}'
got=$(ddb scan --table-name "$table" --select COUNT --query Count --output text)
check "put-item x5, scan count" "5" "$got"

if out=$(ddb put-item --table-name "$table" --item '{"pk":{"S":"SENSOR#1"},"ts":{"N":"100"}}' \
	--condition-expression 'attribute_not_exists(pk)' 2>&1); then
	check "put-item with a failing condition" "ConditionalCheckFailedException" "success"
fi
got=$(grep -o ConditionalCheckFailedException <<<"$out" | head -n 1)
check "put-item with a failing condition" "ConditionalCheckFailedException" "$got"

got=$(ddb get-item --table-name "$table" --key '{"pk":{"S":"SENSOR#1"},"ts":{"N":"300"}}' \
	--query 'Item.[temp.N, unit.S]' --output text)
check "get-item" "23.5	C" "$got"

# shellcheck disable=SC2016 # backticks are JMESPath literals
got=$(ddb query --table-name "$table" \
	--key-condition-expression 'pk = :p AND ts BETWEEN :a AND :b' \
	--expression-attribute-values '{":p":{"S":"SENSOR#1"},":a":{"N":"150"},":b":{"N":"400"}}' \
	--query '[Count, join(`,`, Items[].ts.N)]' --output text)
check "query between" "3	200,300,400" "$got"

got=$(ddb query --table-name "$table" \
	--key-condition-expression 'pk = :p' \
	--expression-attribute-values '{":p":{"S":"SENSOR#1"}}' \
	--no-scan-index-forward --limit 1 --no-paginate \
	--query '[Count, Items[0].ts.N, Items[0].temp.N, LastEvaluatedKey.ts.N]' --output text)
check "query latest (reverse, limit 1)" "1	400	24.5	400" "$got"

got=$(ddb query --table-name "$table" \
	--key-condition-expression 'pk = :p' \
	--filter-expression '#t > :t' --expression-attribute-names '{"#t":"temp"}' \
	--expression-attribute-values '{":p":{"S":"SENSOR#1"},":t":{"N":"22"}}' \
	--query '[Count, ScannedCount]' --output text)
check "query with filter" "3	4" "$got"

got=$(ddb update-item --table-name "$table" --key '{"pk":{"S":"SENSOR#2"},"ts":{"N":"150"}}' \
	--update-expression 'ADD hits :one SET #u = :u' --expression-attribute-names '{"#u":"unit"}' \
	--expression-attribute-values '{":one":{"N":"1"},":u":{"S":"F"}}' \
	--return-values ALL_NEW --query 'Attributes.[hits.N, unit.S, temp.N]' --output text)
check "update-item" "1	F	9" "$got"

ddb delete-item --table-name "$table" --key '{"pk":{"S":"SENSOR#1"},"ts":{"N":"100"}}'
got=$(ddb scan --table-name "$table" --select COUNT --query Count --output text)
check "delete-item then scan count" "4" "$got"

# PartiQL: a SELECT that is a Query, with parameters; INSERT, a second
# INSERT of the same key, and UPDATE with RETURNING.
got=$(ddb execute-statement --statement "SELECT ts, temp FROM \"$table\" WHERE pk = ? AND ts > ?" \
	--parameters '[{"S":"SENSOR#1"},{"N":"250"}]' \
	--query '[length(Items), join(`,`, Items[].ts.N), Items[0].temp.N]' --output text)
check "execute-statement SELECT" "2	300,400	23.5" "$got"

ddb execute-statement --statement "INSERT INTO \"$table\" VALUE {'pk': 'SENSOR#3', 'ts': 1, 'temp': 5}" >/dev/null
if out=$(ddb execute-statement --statement "INSERT INTO \"$table\" VALUE {'pk': 'SENSOR#3', 'ts': 1}" 2>&1); then
	check "execute-statement INSERT of an existing item" "DuplicateItem" "success"
fi
got=$(grep -o DuplicateItem <<<"$out" | head -n 1 || true)
check "execute-statement INSERT of an existing item" "DuplicateItem" "$got"

got=$(ddb execute-statement --statement "UPDATE \"$table\" SET temp = temp + 1 WHERE pk = 'SENSOR#3' AND ts = 1 RETURNING ALL NEW *" \
	--query 'Items[0].temp.N' --output text)
check "execute-statement UPDATE ... RETURNING" "6" "$got"

# The stream: one shard, and a record for each change above, in order (the
# put that failed its condition made none).
streams() { "${AWS_CLI:-aws}" dynamodbstreams --endpoint-url "$endpoint" --output json "$@"; }
got=$(streams list-streams --table-name "$table" --query 'length(Streams)' --output text)
check "dynamodbstreams list-streams" "1" "$got"
shard=$(streams describe-stream --stream-arn "$stream_arn" --query 'StreamDescription.Shards[0].ShardId' --output text)
iterator=$(streams get-shard-iterator --stream-arn "$stream_arn" --shard-id "$shard" \
	--shard-iterator-type TRIM_HORIZON --query ShardIterator --output text)
got=$(streams get-records --shard-iterator "$iterator" --query 'join(`,`, Records[].eventName)' --output text)
check "dynamodbstreams get-records" "INSERT,INSERT,INSERT,INSERT,INSERT,MODIFY,REMOVE,INSERT,MODIFY" "$got"
got=$(streams get-records --shard-iterator "$iterator" \
	--query 'Records[5].dynamodb.[OldImage.unit, NewImage.unit.S, Keys.pk.S]' --output text)
check "dynamodbstreams get-records: old and new images" "None	F	SENSOR#2" "$got"

ddb delete-table --table-name "$table" >/dev/null
created=
got=$(ddb list-tables --query "contains(TableNames, '$table')" --output text)
check "delete-table" "False" "$got"

echo "awscli client against $endpoint: all checks passed"
echo "awscli: $passed passed, 0 failed"

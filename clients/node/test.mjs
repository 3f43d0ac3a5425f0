// Client test: drives a DynamoDB endpoint with the official AWS SDK for
// JavaScript v3 and checks every answer. It exits non-zero on the first
// mismatch, so `make test` fails when the endpoint drifts from DynamoDB.
//
// Usage: node test.mjs [ENDPOINT]
// The endpoint defaults to $TIMETABLE_DYNAMODB_ENDPOINT. Credentials are the
// static pair test/test in us-east-1, as DynamoDB Local expects, or the
// access key in $TIMETABLE_ACCESS_KEY_ID and $TIMETABLE_SECRET_ACCESS_KEY
// (from `timetable token create --dynamodb`) for a timetable serve that
// checks signatures.

import assert from "node:assert/strict";
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";

const endpoint = process.argv[2] || process.env.TIMETABLE_DYNAMODB_ENDPOINT;
if (!endpoint) {
  console.error("usage: node test.mjs ENDPOINT (or set TIMETABLE_DYNAMODB_ENDPOINT)");
  process.exit(2);
}

const client = new DynamoDBClient({
  endpoint,
  region: "us-east-1",
  credentials: {
    accessKeyId: process.env.TIMETABLE_ACCESS_KEY_ID || "test",
    secretAccessKey: process.env.TIMETABLE_SECRET_ACCESS_KEY || "test",
  },
  maxAttempts: 1,
});

const table = `clients_node_${process.pid}_${Date.now()}`;
const S = (s) => ({ S: s });
const N = (n) => ({ N: String(n) });

let passed = 0;
async function step(name, fn) {
  try {
    await fn();
  } catch (err) {
    console.log(`not ok - ${name}`);
    console.log(err && err.stack ? err.stack : err);
    console.log(`node: ${passed} passed, 1 failed`);
    await cleanup();
    process.exit(1);
  }
  passed++;
  console.log(`ok - ${name}`);
}

let created = false;
async function cleanup() {
  if (!created) return;
  created = false;
  try {
    await client.send(new DeleteTableCommand({ TableName: table }));
  } catch {
    // best effort: the table lives in an in-memory or temporary store
  }
}

// expectError runs fn and returns the error it must throw.
async function expectError(fn, name) {
  try {
    await fn();
  } catch (err) {
    assert.equal(err.name, name, `want ${name}, got ${err.name}: ${err.message}`);
    return err;
  }
  assert.fail(`want ${name}, got success`);
}

await step("CreateTable with a GSI", async () => {
  const out = await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "N" },
        { AttributeName: "cat", AttributeType: "S" },
        { AttributeName: "price", AttributeType: "N" },
      ],
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: "byCat",
          KeySchema: [
            { AttributeName: "cat", KeyType: "HASH" },
            { AttributeName: "price", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        },
      ],
    }),
  );
  created = true;
  assert.equal(out.TableDescription.TableName, table);
  assert.deepEqual(out.TableDescription.KeySchema, [
    { AttributeName: "pk", KeyType: "HASH" },
    { AttributeName: "sk", KeyType: "RANGE" },
  ]);
  assert.equal(out.TableDescription.GlobalSecondaryIndexes.length, 1);
  assert.equal(out.TableDescription.GlobalSecondaryIndexes[0].IndexName, "byCat");
  // Wait until the table is ACTIVE (immediate on local emulators).
  for (let i = 0; ; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: table }));
    if (d.Table.TableStatus === "ACTIVE") break;
    assert.ok(i < 100, `table still ${d.Table.TableStatus}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

await step("PutItem x10", async () => {
  for (let i = 1; i <= 10; i++) {
    const out = await client.send(
      new PutItemCommand({
        TableName: table,
        Item: {
          pk: S("user#1"),
          sk: N(i),
          cat: S(i % 2 === 0 ? "even" : "odd"),
          price: N(i * 10),
          name: S(`item ${i}`),
        },
      }),
    );
    assert.equal(out.Attributes, undefined);
  }
});

await step("PutItem with a failing condition", async () => {
  const err = await expectError(
    () =>
      client.send(
        new PutItemCommand({
          TableName: table,
          Item: { pk: S("user#1"), sk: N(1) },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      ),
    "ConditionalCheckFailedException",
  );
  assert.equal(err.$metadata.httpStatusCode, 400);
});

await step("Query on the GSI with BETWEEN", async () => {
  const out = await client.send(
    new QueryCommand({
      TableName: table,
      IndexName: "byCat",
      KeyConditionExpression: "cat = :c AND price BETWEEN :lo AND :hi",
      ExpressionAttributeValues: { ":c": S("even"), ":lo": N(30), ":hi": N(80) },
    }),
  );
  assert.equal(out.Count, 3);
  assert.equal(out.ScannedCount, 3);
  assert.deepEqual(
    out.Items.map((it) => [it.sk.N, it.price.N, it.name.S]),
    [
      ["4", "40", "item 4"],
      ["6", "60", "item 6"],
      ["8", "80", "item 8"],
    ],
  );
  assert.equal(out.LastEvaluatedKey, undefined);
});

let lastKey;
await step("Query in reverse with Limit", async () => {
  const out = await client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: "pk = :p",
      ExpressionAttributeValues: { ":p": S("user#1") },
      ScanIndexForward: false,
      Limit: 3,
    }),
  );
  assert.equal(out.Count, 3);
  assert.deepEqual(
    out.Items.map((it) => it.sk.N),
    ["10", "9", "8"],
  );
  assert.deepEqual(out.LastEvaluatedKey, { pk: S("user#1"), sk: N(8) });
  lastKey = out.LastEvaluatedKey;
});

await step("Query in reverse, next page from LastEvaluatedKey", async () => {
  const out = await client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: "pk = :p AND sk < :hi",
      ExpressionAttributeValues: { ":p": S("user#1"), ":hi": N(7) },
      ScanIndexForward: false,
      ExclusiveStartKey: { pk: S("user#1"), sk: N(6) },
      ProjectionExpression: "sk",
    }),
  );
  assert.deepEqual(
    out.Items.map((it) => it.sk.N),
    ["5", "4", "3", "2", "1"],
  );
  assert.deepEqual(Object.keys(out.Items[0]), ["sk"]);
  assert.ok(lastKey);
});

await step("UpdateItem with ADD", async () => {
  const add = (n, tag) =>
    client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: S("user#1"), sk: N(1) },
        UpdateExpression: "ADD hits :n, tags :t",
        ExpressionAttributeValues: { ":n": N(n), ":t": { SS: [tag] } },
        ReturnValues: "UPDATED_NEW",
      }),
    );
  let out = await add(5, "a");
  assert.deepEqual(out.Attributes, { hits: N(5), tags: { SS: ["a"] } });
  out = await add(2.5, "b");
  assert.equal(out.Attributes.hits.N, "7.5");
  assert.deepEqual([...out.Attributes.tags.SS].sort(), ["a", "b"]);
  out = await add(10, "a");
  assert.equal(out.Attributes.hits.N, "17.5");
  assert.deepEqual([...out.Attributes.tags.SS].sort(), ["a", "b"]);
});

await step("UpdateItem ADD on a missing item creates it", async () => {
  const out = await client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { pk: S("counter"), sk: N(0) },
      UpdateExpression: "ADD n :one",
      ExpressionAttributeValues: { ":one": N(1) },
      ReturnValues: "ALL_NEW",
    }),
  );
  assert.deepEqual(out.Attributes, { pk: S("counter"), sk: N(0), n: N(1) });
});

await step("TransactWriteItems commits all", async () => {
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        { Put: { TableName: table, Item: { pk: S("user#2"), sk: N(1), cat: S("odd"), price: N(15) } } },
        {
          Update: {
            TableName: table,
            Key: { pk: S("counter"), sk: N(0) },
            UpdateExpression: "SET n = n + :one",
            ConditionExpression: "n = :one",
            ExpressionAttributeValues: { ":one": N(1) },
          },
        },
        {
          ConditionCheck: {
            TableName: table,
            Key: { pk: S("user#1"), sk: N(2) },
            ConditionExpression: "attribute_exists(pk)",
          },
        },
        { Delete: { TableName: table, Key: { pk: S("user#1"), sk: N(10) } } },
      ],
    }),
  );
  const get = async (pk, sk) =>
    (await client.send(new GetItemCommand({ TableName: table, Key: { pk: S(pk), sk: N(sk) }, ConsistentRead: true })))
      .Item;
  assert.deepEqual(await get("user#2", 1), { pk: S("user#2"), sk: N(1), cat: S("odd"), price: N(15) });
  assert.deepEqual(await get("counter", 0), { pk: S("counter"), sk: N(0), n: N(2) });
  assert.equal(await get("user#1", 10), undefined);
});

await step("TransactWriteItems cancelled applies nothing", async () => {
  const err = await expectError(
    () =>
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { pk: S("user#3"), sk: N(1) } } },
            {
              Update: {
                TableName: table,
                Key: { pk: S("counter"), sk: N(0) },
                UpdateExpression: "SET n = n + :one",
                ConditionExpression: "n = :one",
                ExpressionAttributeValues: { ":one": N(1) },
              },
            },
          ],
        }),
      ),
    "TransactionCanceledException",
  );
  assert.deepEqual(
    err.CancellationReasons.map((r) => r.Code),
    ["None", "ConditionalCheckFailed"],
  );
  const out = await client.send(
    new GetItemCommand({ TableName: table, Key: { pk: S("user#3"), sk: N(1) } }),
  );
  assert.equal(out.Item, undefined);
  const c = await client.send(new GetItemCommand({ TableName: table, Key: { pk: S("counter"), sk: N(0) } }));
  assert.equal(c.Item.n.N, "2");
});

await step("Query on the GSI sees transactional writes", async () => {
  const out = await client.send(
    new QueryCommand({
      TableName: table,
      IndexName: "byCat",
      KeyConditionExpression: "cat = :c AND price BETWEEN :lo AND :hi",
      ExpressionAttributeValues: { ":c": S("odd"), ":lo": N(10), ":hi": N(30) },
    }),
  );
  assert.deepEqual(
    out.Items.map((it) => [it.pk.S, it.price.N]),
    [
      ["user#1", "10"],
      ["user#2", "15"],
      ["user#1", "30"],
    ],
  );
});

await step("DeleteTable", async () => {
  const out = await client.send(new DeleteTableCommand({ TableName: table }));
  created = false;
  assert.equal(out.TableDescription.TableName, table);
  await expectError(
    () => client.send(new DescribeTableCommand({ TableName: table })),
    "ResourceNotFoundException",
  );
});

console.log(`node client against ${endpoint}: all checks passed`);
console.log(`node: ${passed} passed, 0 failed`);

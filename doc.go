// Package timetable stores and queries time-series data with the DynamoDB
// single-table patterns.
//
// # Backends
//
// Everything in timetable is written against API, the method set of
// aws-sdk-go-v2's *dynamodb.Client. Open picks the backend from a URL: the
// embedded engine of package local (on disk or in memory), or any
// DynamoDB-compatible endpoint, including Amazon DynamoDB itself.
package timetable

// Package timetable stores and queries time-series data with the DynamoDB
// single-table patterns.
//
// # Backends
//
// Everything in timetable is written against API, the method set of
// aws-sdk-go-v2's *dynamodb.Client. Its implementations are the embedded
// engine of package local (on disk or in memory) and the SDK's client for
// any DynamoDB-compatible endpoint, including Amazon DynamoDB itself;
// package backend's Open picks one from a URL.
//
// This package is the ground the others stand on: the interfaces (API,
// Backend, Syncer), the contexts that tell an API more about a write
// (WithDeferredSync, WithNewItems) and the sentinel errors shared by
// packages table and series (ErrNotFound, ErrBadCursor). It imports no
// other package of this module, so the layers above the API link no
// backend.
package timetable

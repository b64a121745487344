// Package storetest is the conformance suite of store drivers: every
// driver of this module (store/memory, store/sqlite, store/postgres) runs
// it, and a third-party driver can too. A driver's test is a few lines
// that build a Harness and call Run.
//
// It also provides Embedder, a deterministic store.Embedder for tests:
// no model, no network, and neighbours one can predict.
package storetest

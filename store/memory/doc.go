// Package memory is a store.Driver that keeps items in the process's
// memory: for tests, examples and programs whose long-term memory may die
// with them. New returns a ready *store.Store.
package memory

// Package rowsum computes the checksums that checkpoint/sqlite and
// checkpoint/postgres store with every row, so that both backends frame
// the columns of a row the same way.
//
// A Sum is the CRC-32C (Castagnoli) of the row's columns in a fixed
// order, each framed by its kind and length, so that moving bytes from
// one column to the next changes the sum. It is computed once per row, as
// the row is written and as it is read; no column is copied to compute it.
package rowsum

// Package retentiontest is the conformance suite of retention.Expirer:
// checkpoint/memory, checkpoint/sqlite and checkpoint/postgres run it from
// their retention_test.go, and a third-party saver can too. It also
// provides Clock, a retention.Clock a test moves and ticks by hand.
package retentiontest

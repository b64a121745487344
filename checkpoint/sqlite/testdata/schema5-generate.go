//go:build ignore

// This program wrote the database of testdata/schema5.sql, a database in the
// storage format of schema version 5 (small values inline in their
// checkpoint's row, versions stored whole), for
// TestDatabaseOfSchema5IsMigratedAndRead. It was run against the code of
// branch s23-sqlite at commit 0403a5a, the last before migration 6, from an
// export of that commit:
//
//	git archive 0403a5a | tar -x -C /tmp/v5
//	cp checkpoint/sqlite/testdata/schema5-generate.go /tmp/v5/gen.go
//	(cd /tmp/v5 && go run gen.go /tmp/schema5.db)
//	sqlite3 /tmp/schema5.db .dump > checkpoint/sqlite/testdata/schema5.sql
//
// It stores what schema4-generate.go stores (fixed ids, times and bytes),
// so that the tests of both read back the same values.
package main

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

func main() {
	path := os.Args[1]
	s, err := sqlite.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	put := func(thread, ns, parent, id string, step int, versions map[string]string, blobs map[string]checkpoint.Blob, md checkpoint.Metadata) {
		md.Step = step
		_, err := s.Put(ctx, checkpoint.PutRequest{
			Config:     checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: parent},
			Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: at.Add(time.Duration(step) * time.Second), Versions: versions, New: blobs},
			Metadata:   md,
			ExpectHead: parent,
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	const c1, c2, c3 = "019ada00-0000-7000-8000-000000000001", "019ada00-0000-7000-8000-000000000002", "019ada00-0000-7000-8000-000000000003"
	put("t", "", "", c1, 0, map[string]string{"items": c1 + ".1s", "name": c1, "__next__": c1}, map[string]checkpoint.Blob{
		"items":    {Version: c1 + ".1s", Data: []byte(`["a"]`)},
		"name":     {Data: []byte(`"x"`)},
		"__next__": {Data: []byte(`{"nodes":["b"]}`)},
	}, checkpoint.Metadata{Source: checkpoint.SourceLoop, RunID: "run-1", Nodes: []string{"a"}})
	put("t", "", c1, c2, 1, map[string]string{"items": c2 + ".2d", "name": c1, "__next__": c2}, map[string]checkpoint.Blob{
		"items":    {Version: c2 + ".2d", Data: []byte(`["b"]`), Delta: true, Base: c1 + ".1s"},
		"__next__": {Data: []byte(`{"nodes":["c"]}`)},
	}, checkpoint.Metadata{Source: checkpoint.SourceLoop, RunID: "run-1", Nodes: []string{"b"}, Extra: map[string]any{"user": "ann"}})
	if err := s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: c2}, "task-c", []checkpoint.PendingWrite{
		{Index: 0, Channel: "items", Value: []byte(`["c"]`)},
		{Index: checkpoint.ErrorIndex, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"c","error":"boom"}`)},
	}); err != nil {
		log.Fatal(err)
	}
	put("t", "sub", "", c3, 2, map[string]string{"name": c3}, map[string]checkpoint.Blob{
		"name": {Data: []byte(`"sub"`)},
	}, checkpoint.Metadata{Source: checkpoint.SourceLoop, Parents: map[string]string{"": c2}})
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}
}

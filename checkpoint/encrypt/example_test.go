package encrypt_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// Wrap a saver with a keyring; rotate by making a new keyring whose
// active key is new and which keeps the old one for reading.
func Example() {
	// In production the secrets come from a secret store or KMS, e.g.
	// encrypt.KeyFromBase64("2026-11", os.Getenv("STATEGRAPH_KEY_2026_11")).
	k1 := encrypt.Key{ID: "2026-11", Secret: []byte(strings.Repeat("1", encrypt.KeySize))}
	k2 := encrypt.Key{ID: "2026-12", Secret: []byte(strings.Repeat("2", encrypt.KeySize))}
	ring, _ := encrypt.NewKeyring(k1)

	raw := memory.New()
	saver := encrypt.Wrap(raw, ring) // pass saver to graph.WithCheckpointer
	ctx := context.Background()
	_, err := saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: time.Now(),
			Versions: map[string]string{"answer": "1"},
			New:      map[string]checkpoint.Blob{"answer": {Data: []byte(`"forty-two"`)}}},
	})
	if err != nil {
		panic(err)
	}

	stored, _ := raw.Get(ctx, checkpoint.Config{ThreadID: "t1"})
	fmt.Println("stored in clear:", strings.Contains(string(stored.Checkpoint.Values["answer"].Snapshot), "forty-two"))

	rotated, _ := encrypt.NewKeyring(k2, k1)
	tup, _ := encrypt.Wrap(raw, rotated).Get(ctx, checkpoint.Config{ThreadID: "t1"})
	fmt.Println("read after rotation:", string(tup.Checkpoint.Values["answer"].Snapshot))

	onlyNew, _ := encrypt.NewKeyring(k2)
	_, err = encrypt.Wrap(raw, onlyNew).Get(ctx, checkpoint.Config{ThreadID: "t1"})
	fmt.Println("without the old key:", errors.Is(err, encrypt.ErrUnknownKey), errors.Is(err, checkpoint.ErrCorrupt))
	// Output:
	// stored in clear: false
	// read after rotation: "forty-two"
	// without the old key: true true
}

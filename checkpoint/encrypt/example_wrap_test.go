package encrypt_test

import (
	"log"
	"os"

	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

type chat struct{ Question string }

// A graph whose checkpoints are encrypted: keys from the environment (the
// active one first, then the ones it replaced), a SQLite file beneath.
// Compiled, not run: it needs the keys.
func ExampleWrap() {
	active, err := encrypt.KeyFromBase64("2026-12", os.Getenv("STATEGRAPH_KEY_2026_12"))
	if err != nil {
		log.Fatal(err)
	}
	previous, err := encrypt.KeyFromBase64("2026-11", os.Getenv("STATEGRAPH_KEY_2026_11"))
	if err != nil {
		log.Fatal(err)
	}
	ring, err := encrypt.NewKeyring(active, previous)
	if err != nil {
		log.Fatal(err)
	}
	inner, err := sqlite.Open("checkpoints.db")
	if err != nil {
		log.Fatal(err)
	}
	defer inner.Close()
	saver := encrypt.Wrap(inner, ring)

	g := graph.New(state.NewSchema(state.Value("question", func(c *chat) *string { return &c.Question })))
	app, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		log.Fatal(err)
	}
	_ = app
}

package state_test

import (
	"fmt"

	"github.com/stategraph/stategraph/state"
)

type Chat struct {
	Messages []string
	Tokens   int
	Mood     string
}

// Fields declare a name, an accessor and a reducer; an Applier applies a
// step's writes through them.
func Example() {
	messages := state.Append("messages", func(c *Chat) *[]string { return &c.Messages })
	tokens := state.Sum("tokens", func(c *Chat) *int { return &c.Tokens })
	mood := state.Value("mood", func(c *Chat) *string { return &c.Mood })
	schema := state.NewSchema(messages, tokens, mood)

	c := Chat{Messages: []string{"hi"}, Mood: "curious"}
	a := schema.NewApplier()
	_ = a.Add("assistant", []state.Write[Chat]{messages.Set([]string{"hello!"}), tokens.Set(7)})
	_ = a.Add("critic", []state.Write[Chat]{tokens.Set(3), mood.Set("")}) // "" is a real write
	if _, err := a.Apply(&c, false); err != nil {
		panic(err)
	}
	fmt.Printf("%q %d %q\n", c.Messages, c.Tokens, c.Mood)
	// Output: ["hi" "hello!"] 10 ""
}

// Two writes to a last-value field in one step are an error naming the
// field and the writers.
func ExampleErrInvalidUpdate() {
	mood := state.Value("mood", func(c *Chat) *string { return &c.Mood })
	schema := state.NewSchema(mood)
	a := schema.NewApplier()
	_ = a.Add("left", []state.Write[Chat]{mood.Set("happy")})
	_ = a.Add("right", []state.Write[Chat]{mood.Set("sad")})
	var c Chat
	_, err := a.Apply(&c, false)
	fmt.Println(err)
	// Output: state: invalid update: field "mood" received 2 writes in one step, from "left" and "right"; a last-value field takes one write per step (declare it with a reducer such as state.Append or state.Reduce to combine writes)
}

// Writes encode as a field name and a value, so they can be persisted and
// replayed.
func ExampleSchema_EncodeWrite() {
	messages := state.Append("messages", func(c *Chat) *[]string { return &c.Messages })
	schema := state.NewSchema(messages)
	codec := jsonCodec{}
	ch, data, _ := schema.EncodeWrite(messages.Overwrite([]string{"reset"}), codec)
	fmt.Println(ch, string(data))
	w, _ := schema.DecodeWrite(ch, data, codec)
	fmt.Println(w.Field(), w.IsOverwrite(), w.Value())
	// Output:
	// !messages ["reset"]
	// messages true [reset]
}

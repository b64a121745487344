package state_test

import (
	"testing"

	"github.com/stategraph/stategraph/state"
)

// BenchmarkDerivedApply applies one step's writes (a value, an append, a
// merge, a sum) and encodes the changed fields, through the schema
// declared by hand and the one derived from struct tags: what reflection
// costs a derived field.
func BenchmarkDerivedApply(b *testing.B) {
	for name, sc := range map[string]*state.Schema[Rich]{"byHand": richByHand, "fromStruct": state.FromStruct[Rich]()} {
		b.Run(name, func(b *testing.B) {
			c := jsonCodec{}
			base := Rich{Topic: "t", Items: []string{"a"}, Scores: map[string]int{"a": 1}, Calls: 1}
			u := sc.Edit(base, func(r *Rich) {
				r.Topic = "u"
				r.Items = append(r.Items, "b")
				r.Scores["b"] = 2
				r.Calls++
			})
			ap := sc.NewApplier()
			b.ReportAllocs()
			for b.Loop() {
				s := base
				if err := ap.Add("n", u.Writes); err != nil {
					b.Fatal(err)
				}
				touched, err := ap.Apply(&s, true)
				if err != nil {
					b.Fatal(err)
				}
				for _, i := range touched {
					if _, err := sc.Encode(&s, i, c); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

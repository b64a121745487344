package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors test_send_dedupe_on_resume (test_pregel.py, over durability),
// with its expected values. Node 1 sends two tasks to 2, each carrying a
// command (LangGraph's Send("2", Command(goto=Send(...)))), and routes to
// 3.1; each 2 routes to 3, and its command sends on, to 2 (arg 3) and to
// flaky (arg 4), which interrupts once. The first run stops at flaky's
// interrupt with 2 run three times; the resume runs only flaky again, and
// the values, history length, steps and task results are LangGraph's.
// One difference, kept on purpose (docs/langgraph.md): LangGraph lists a
// step's Send tasks before its edge-triggered ones in next and tasks
// (("2", "flaky", "3")); stategraph lists them in the order it applies
// their writes, which is LangGraph's order too: edge-triggered by name,
// then Sends ("3", "2", "flaky").
func TestSendsResumedAfterAnInterruptAreNotRunAgain(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			var cs calls
			add := func(s string) state.Update[counter] { return state.Writes(itemsField.Set([]string{s})) }
			node := func(name string) graph.NodeFunc[counter] {
				return func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc(name)
					return add(name), nil
				}
			}
			g := graph.New(schema).
				AddNode("1", node("1")).AddNode("3", node("3")).AddNode("3.1", node("3.1")).
				AddNode("2", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("2")
					to, arg, ok := strings.Cut(strings.TrimPrefix(s.Last, "goto "), " ")
					if !ok {
						return add("2|" + s.Last), nil
					}
					upd := add("2|Command(goto=Send(node='" + to + "', arg=" + arg + "))")
					upd.Sends = []graph.Send[counter]{graph.SendTo(to, counter{Last: arg})}
					return upd, nil
				}, graph.WithDestinations("2", "flaky")).
				AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("flaky")
					if cs.get("flaky") == 1 {
						if _, err := graph.Interrupt[any](ctx, "Bahh"); err != nil {
							return zero, err
						}
					}
					return add("flaky|" + s.Last), nil
				}).
				AddEdge(graph.Start, "1").
				AddConditionalEdges("1", func(ctx context.Context, s counter) (graph.Route[counter], error) {
					return graph.Route[counter]{To: []string{"3.1"}, Sends: []graph.Send[counter]{
						graph.SendTo("2", counter{Last: "goto 2 3"}), graph.SendTo("2", counter{Last: "goto flaky 4"})}}, nil
				}, "2", "3.1").
				AddConditionalEdges("2", graph.Choose(func(ctx context.Context, s counter) (string, error) { return "3", nil }), "3")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d))
			_, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"0"})), graph.WithThread("t"))
			var ie *graph.InterruptError
			require.ErrorAs(t, err, &ie)
			require.Len(t, ie.Interrupts, 1)
			assert.Equal(t, "Bahh", ie.Interrupts[0].Value)
			assert.Equal(t, 3, cs.get("2"))
			assert.Equal(t, 1, cs.get("flaky"))

			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			assert.Equal(t, []string{"0", "1", "3.1",
				"2|Command(goto=Send(node='2', arg=3))", "2|Command(goto=Send(node='flaky', arg=4))",
				"3", "2|3", "flaky|4", "3"}, out.Items)
			assert.Equal(t, 3, cs.get("2"), "2 is not run again: its writes were saved")
			assert.Equal(t, 2, cs.get("flaky"), "flaky runs again: it was interrupted")

			hist := history(t, c, "t")
			if d == graph.DurabilityExit {
				require.Len(t, hist, 2)
				assert.Equal(t, 4, hist[0].Metadata.Step)
				assert.Equal(t, 2, hist[1].Metadata.Step)
				assert.Nil(t, hist[1].Parent)
				return
			}
			require.Len(t, hist, 6)
			type row struct {
				source checkpoint.Source
				step   int
				next   []string
			}
			var rows []row
			for _, h := range hist {
				rows = append(rows, row{h.Metadata.Source, h.Metadata.Step, h.Next})
			}
			assert.Equal(t, []row{
				{checkpoint.SourceLoop, 4, nil},
				{checkpoint.SourceLoop, 3, []string{"3"}},
				{checkpoint.SourceLoop, 2, []string{"3", "2", "flaky"}},
				{checkpoint.SourceLoop, 1, []string{"3.1", "2", "2"}},
				{checkpoint.SourceLoop, 0, []string{"1"}},
				{checkpoint.SourceInput, -1, []string{graph.Start}},
			}, rows)
			step2 := hist[2].Tasks
			require.Len(t, step2, 3)
			assert.Equal(t, map[string]any{"items": []string{"3"}}, step2[0].Result)
			assert.Equal(t, map[string]any{"items": []string{"2|3"}}, step2[1].Result)
			assert.Equal(t, "flaky", step2[2].Node)
			assert.Equal(t, map[string]any{"items": []string{"flaky|4"}}, step2[2].Result)
			require.Len(t, step2[2].Interrupts, 1, "the interrupt it was resumed from, as LangGraph's history shows it")
			assert.Equal(t, "Bahh", step2[2].Interrupts[0].Value)
			assert.Equal(t, map[string]any{"items": []string{"0"}}, hist[5].Tasks[0].Result, "the input, as the Start task's result")
		})
	}
}

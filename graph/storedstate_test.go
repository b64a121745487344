package graph_test

import (
	"context"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// storedSavers returns a fresh saver of each backend: memory, SQLite and,
// when STATEGRAPH_POSTGRES_DSN is set, PostgreSQL.
func storedSavers(t *testing.T) map[string]checkpoint.Saver {
	t.Helper()
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "stored.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = lite.Close() })
	out := map[string]checkpoint.Saver{"memory": memory.New(), "sqlite": lite}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		pg := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(pgtest.Schema(t)))
		require.NoError(t, pg.Migrate(context.Background()))
		out["postgres"] = pg
	}
	return out
}

type xyn struct {
	X []string
	Y []string
	N int
}

var (
	xynX      = state.Append("x", func(s *xyn) *[]string { return &s.X })
	xynY      = state.Append("y", func(s *xyn) *[]string { return &s.Y })
	xynN      = state.Value("n", func(s *xyn) *int { return &s.N })
	xynSchema = state.NewSchema(xynX, xynY, xynN)
)

// TestFreshProcessReadsTheWriteOfASiblingRoutedBackToItself pins a step in
// which a node routes to itself and to a sibling: the sibling's write to a
// field the node does not write must be stored, so a graph compiled anew
// on the same saver (another process) reads what the run returned.
func TestFreshProcessReadsTheWriteOfASiblingRoutedBackToItself(t *testing.T) {
	t.Parallel()
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			build := func() *graph.Compiled[xyn] {
				g := graph.New(xynSchema)
				g.AddNode("a", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
					return state.Writes(xynX.Set([]string{"a"}), xynN.Set(s.N+1)), nil
				})
				g.AddNode("b", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
					return state.Writes(xynY.Set([]string{"b"})), nil
				})
				g.AddEdge(graph.Start, "a")
				g.AddConditionalEdges("a", func(ctx context.Context, s xyn) (graph.Route[xyn], error) {
					if len(s.X) < 2 {
						return graph.Route[xyn]{To: []string{"a", "b"}}, nil
					}
					return graph.Route[xyn]{To: []string{graph.End}}, nil
				}, "a", "b", graph.End)
				g.AddEdge("b", graph.End)
				c, err := g.Compile(graph.WithCheckpointer(saver))
				require.NoError(t, err)
				return c
			}
			ctx := context.Background()
			out, err := build().Invoke(ctx, state.Writes(xynN.Set(0)), graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"b"}, out.Y)
			snap, err := build().State(ctx, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, out, snap.Values)
		})
	}
}

// shaped has a field of every reducer.
type shaped struct {
	V int            // last value
	A []string       // append
	M map[string]int // merge
	S int            // sum
	R string         // custom reducer: concatenation
}

var (
	shV      = state.Value("v", func(s *shaped) *int { return &s.V })
	shA      = state.Append("a", func(s *shaped) *[]string { return &s.A })
	shM      = state.Merge("m", func(s *shaped) *map[string]int { return &s.M })
	shS      = state.Sum("s", func(s *shaped) *int { return &s.S })
	shR      = state.Reduce("r", func(s *shaped) *string { return &s.R }, func(old, upd string) string { return old + upd })
	shSchema = state.NewSchema(shV, shA, shM, shS, shR)
)

// How a node of a random shape leaves.
const (
	leaveEdge     = iota // a static edge to the next node
	leaveRouter          // a router to one or two of its targets
	leaveGoto            // a Goto to one or two of its destinations
	leaveSends           // a router with Sends to the worker, and a target
	leaveSubgraph        // the node is a subgraph, with a static edge
	leaveKinds
)

type nodeShape struct {
	leave   int
	targets []string // router and goto targets; always the next node and End
	writes  int      // bit 0: s, bit 1: m, bit 2: r (a always)
}

// graphShape is a random graph: a chain n0..nk with random ways to leave
// each node (routers and gotos may go back), joins forward, a worker for
// Sends; every task appends to a, and routers end once a is cap long, so
// each run ends.
type graphShape struct {
	nodes      []nodeShape
	joins      [][3]int
	writer     int // the one node that writes v (and overwrites m)
	cap        int
	durability graph.Durability
	interrupt  string // a node to stop before, or ""
}

func randomShape(rng *rand.Rand) graphShape {
	k := 2 + rng.IntN(5)
	name := func(i int) string {
		if i >= k {
			return graph.End
		}
		return "n" + strconv.Itoa(i)
	}
	sh := graphShape{cap: 3 + rng.IntN(8), writer: rng.IntN(k), durability: []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync, graph.DurabilityExit}[rng.IntN(3)]}
	for i := range k {
		ns := nodeShape{leave: rng.IntN(leaveKinds), writes: rng.IntN(8)}
		if ns.leave == leaveSubgraph && i == sh.writer {
			ns.leave = leaveEdge
		}
		ns.targets = []string{name(i + 1)}
		for range rng.IntN(3) {
			ns.targets = appendOnce(ns.targets, name(rng.IntN(k)))
		}
		ns.targets = appendOnce(ns.targets, graph.End)
		sh.nodes = append(sh.nodes, ns)
	}
	if rng.IntN(3) == 0 {
		sh.interrupt = name(rng.IntN(k))
	}
	for range rng.IntN(2) {
		if k >= 3 {
			a := rng.IntN(k - 2)
			b := a + 1 + rng.IntN(k-2-a)
			sh.joins = append(sh.joins, [3]int{a, b, b + 1 + rng.IntN(k-1-b)})
		}
	}
	return sh
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// pick returns one or two of targets, decided by the state alone (a
// router must be deterministic), or End once a is cap long.
func (sh graphShape) pick(i int, s shaped, targets []string) []string {
	if len(s.A) >= sh.cap {
		return []string{graph.End}
	}
	h := len(s.A)*7 + i*3 + s.S
	out := []string{targets[h%len(targets)]}
	if h%3 == 0 {
		out = appendOnce(out, targets[(h/3)%len(targets)])
	}
	return out
}

func (sh graphShape) build(t *testing.T, saver checkpoint.Saver) *graph.Compiled[shaped] {
	t.Helper()
	sub := graph.New(shSchema)
	sub.AddNode("s1", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
		return state.Writes(shA.Set([]string{"s1"}), shS.Set(1)), nil
	})
	// The subgraph writes a field of every reducer but the last value:
	// its parent applies them through its reducers, beside the writes of
	// its siblings in the step (a sibling's overwrite of the merge field
	// included).
	sub.AddNode("s2", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
		return state.Writes(shA.Set([]string{"s2"}), shS.Set(len(s.A)), shM.Set(map[string]int{"s2": len(s.A)}), shR.Set("s")), nil
	})
	sub.AddEdge(graph.Start, "s1").AddEdge("s1", "s2").AddEdge("s2", graph.End)
	subc, err := sub.Compile()
	require.NoError(t, err)

	g := graph.New(shSchema)
	sends := slices.ContainsFunc(sh.nodes, func(ns nodeShape) bool { return ns.leave == leaveSends })
	if sends {
		g.AddNode("w", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
			return state.Writes(shA.Set([]string{"w" + strconv.Itoa(s.V)}), shS.Set(s.V), shM.Set(map[string]int{"w": s.V}), shR.Set("w")), nil
		})
		g.AddEdge("w", graph.End)
	}
	g.AddEdge(graph.Start, "n0")
	for i, ns := range sh.nodes {
		name := "n" + strconv.Itoa(i)
		next := ns.targets[0]
		if ns.leave == leaveSubgraph {
			g.AddSubgraph(name, subc)
			g.AddEdge(name, next)
			continue
		}
		fn := func(ctx context.Context, s shaped) (state.Update[shaped], error) {
			ws := []state.Write[shaped]{shA.Set([]string{name})}
			if ns.writes&1 != 0 {
				ws = append(ws, shS.Set(i+1))
			}
			if ns.writes&2 != 0 {
				ws = append(ws, shM.Set(map[string]int{name: len(s.A)}))
			}
			if ns.writes&4 != 0 {
				ws = append(ws, shR.Set(name))
			}
			if i == sh.writer {
				ws = append(ws, shV.Set(len(s.A)+100), shM.Overwrite(map[string]int{"v": len(s.A)}))
			}
			u := state.Update[shaped]{Writes: ws}
			if ns.leave == leaveGoto {
				u.Goto = sh.pick(i, s, ns.targets)
			}
			return u, nil
		}
		switch ns.leave {
		case leaveEdge:
			g.AddNode(name, fn)
			g.AddEdge(name, next)
		case leaveRouter:
			g.AddNode(name, fn)
			g.AddConditionalEdges(name, func(ctx context.Context, s shaped) (graph.Route[shaped], error) {
				return graph.Route[shaped]{To: sh.pick(i, s, ns.targets)}, nil
			}, ns.targets...)
		case leaveGoto:
			g.AddNode(name, fn, graph.WithDestinations(ns.targets...))
		case leaveSends:
			g.AddNode(name, fn)
			g.AddConditionalEdges(name, func(ctx context.Context, s shaped) (graph.Route[shaped], error) {
				to := sh.pick(i, s, ns.targets)
				if to[0] == graph.End {
					return graph.Route[shaped]{To: to}, nil
				}
				var sends []graph.Send[shaped]
				for k := range 1 + len(s.A)%3 {
					sends = append(sends, graph.SendTo("w", shaped{V: 10*i + k}))
				}
				return graph.Route[shaped]{To: to[:1], Sends: sends}, nil
			}, append(slices.Clone(ns.targets), "w")...)
		}
	}
	for _, j := range sh.joins {
		g.AddJoin([]string{"n" + strconv.Itoa(j[0]), "n" + strconv.Itoa(j[1])}, "n"+strconv.Itoa(j[2]))
	}
	opts := []graph.CompileOption{graph.WithCheckpointer(saver), graph.WithDurability(sh.durability)}
	if sh.interrupt != "" {
		opts = append(opts, graph.WithInterruptBefore(sh.interrupt))
	}
	c, err := g.Compile(opts...)
	require.NoError(t, err)
	return c
}

// copyShaped copies what a later step could change in place.
func copyShaped(s shaped) shaped {
	s.A = slices.Clone(s.A)
	s.M = maps.Clone(s.M)
	return s
}

// TestFreshProcessReadsWhatRanForRandomGraphs runs random graph shapes
// (routers, gotos, Sends, joins, a subgraph, every reducer, every
// durability, interrupts resumed, an UpdateState and a second run) on
// every saver and checks that a graph compiled anew on the same saver, as
// another process would, reads at every checkpoint what the graph that
// ran reads, and that the checkpoints hold the states the run streamed.
// The seed is in the subtest's name.
func TestFreshProcessReadsWhatRanForRandomGraphs(t *testing.T) {
	t.Parallel()
	const shapes = 80
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(shapes) {
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
					sh := randomShape(rand.New(rand.NewPCG(seed, 11)))
					checkStoredIsWhatRan(t, sh, saver, "shape-"+strconv.FormatUint(seed, 10))
				})
			}
		})
	}
}

func checkStoredIsWhatRan(t *testing.T, sh graphShape, saver checkpoint.Saver, thread string) {
	t.Helper()
	ctx := context.Background()
	ran := sh.build(t, saver)
	// run streams one Invoke's states, then resumes the thread while it
	// is stopped before sh.interrupt.
	run := func(input state.Update[shaped]) []shaped {
		var streamed []shaped
		for range 100 {
			for ev, err := range ran.Stream(ctx, input, graph.WithThread(thread), graph.WithRecursionLimit(200)) {
				require.NoError(t, err, "shape %+v", sh)
				streamed = append(streamed, copyShaped(ev.State))
			}
			snap, err := ran.State(ctx, graph.WithThread(thread))
			require.NoError(t, err)
			if len(snap.Next) == 0 {
				return streamed
			}
			input = state.Update[shaped]{} // resume
		}
		t.Fatalf("shape %+v: still stopped after 100 resumes", sh)
		return nil
	}
	streamed := run(state.Writes(shV.Set(1), shA.Set([]string{"in"})))
	require.NotEmpty(t, streamed)
	now := checkFreshReadsWhatRan(t, sh, saver, ran, thread, streamed[len(streamed)-1])
	if sh.durability != graph.DurabilityExit && sh.interrupt == "" {
		// The input checkpoint (the state before the input), then one
		// checkpoint per streamed state: the input applied, each step's.
		require.Len(t, now, len(streamed)+1, "shape %+v", sh)
		require.Equal(t, shaped{}, now[0].Values, "the input checkpoint of a new thread, shape %+v", sh)
		for i, st := range streamed {
			require.Equal(t, st, now[i+1].Values, "checkpoint %d (step %d), shape %+v", i+1, now[i+1].Metadata.Step, sh)
		}
	}

	// An edit, then another run on the same thread.
	_, err := ran.UpdateState(ctx, state.Writes(shA.Set([]string{"edit"}), shS.Set(7), shM.Set(map[string]int{"edit": 1}), shR.Set("e"), shV.Set(-1)), "", graph.WithThread(thread))
	require.NoError(t, err)
	streamed = run(state.Writes(shA.Set([]string{"again"})))
	require.NotEmpty(t, streamed)
	checkFreshReadsWhatRan(t, sh, saver, ran, thread, streamed[len(streamed)-1])
}

// checkFreshReadsWhatRan checks that the thread's latest state is out, as
// read by ran and by a graph compiled anew, and that both read the same
// at every checkpoint. It returns the history, oldest first.
func checkFreshReadsWhatRan(t *testing.T, sh graphShape, saver checkpoint.Saver, ran *graph.Compiled[shaped], thread string, out shaped) []*graph.Snapshot[shaped] {
	t.Helper()
	ctx := context.Background()
	fresh := sh.build(t, saver)
	for _, c := range []*graph.Compiled[shaped]{ran, fresh} {
		snap, err := c.State(ctx, graph.WithThread(thread))
		require.NoError(t, err)
		require.Equal(t, out, snap.Values, "latest state, shape %+v", sh)
	}
	history := func(c *graph.Compiled[shaped]) []*graph.Snapshot[shaped] {
		var out []*graph.Snapshot[shaped]
		for snap, err := range c.History(ctx, graph.WithThread(thread)) {
			require.NoError(t, err)
			out = append(out, snap)
		}
		slices.Reverse(out) // oldest first
		return out
	}
	was, now := history(ran), history(fresh)
	require.Len(t, now, len(was))
	for i := range was {
		require.Equal(t, was[i].Config, now[i].Config)
		require.Equal(t, was[i].Values, now[i].Values, "checkpoint %d (step %d), shape %+v", i, was[i].Metadata.Step, sh)
		require.Equal(t, was[i].Next, now[i].Next, "checkpoint %d (step %d)", i, was[i].Metadata.Step)
	}
	return now
}

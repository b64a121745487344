package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestThreadsOfGroupsNamespacesUnderTheirThread(t *testing.T) {
	t.Parallel()
	at := func(s int) time.Time { return time.Unix(int64(s), 0).UTC() }
	row := func(thread, ns string, n, first, last int) nsRow {
		return nsRow{thread: thread, ns: Namespace{Name: ns, Checkpoints: n, Updated: at(last), first: at(first)}}
	}
	rows := []nsRow{
		row("b", "sub:2", 2, 30, 31),
		row("a", "", 3, 10, 40),
		row("b", "sub:1", 4, 20, 25),
		row("b", "", 5, 5, 40),
		row("b", "sub:1|inner:9", 1, 21, 21),
		row("orphan", "sub:3", 1, 50, 50),
		row("c", "", 1, 60, 60),
	}
	threads := threadsOf(rows)
	ids := make([]string, len(threads))
	for i, th := range threads {
		ids[i] = th.ID
	}
	assert.Equal(t, []string{"c", "a", "b"}, ids, "newest first, ties by id; a thread without a root namespace is left out")
	b := threads[2]
	assert.Equal(t, 5, b.Checkpoints)
	assert.Equal(t, at(40), b.Updated)
	var names []string
	for _, n := range b.Namespaces {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"sub:1", "sub:1|inner:9", "sub:2"}, names, "in the order they were first written")
	assert.Empty(t, threads[0].Namespaces)

	var bRows []nsRow
	for _, r := range rows {
		if r.thread == "b" {
			bRows = append(bRows, r)
		}
	}
	names = nil
	for _, n := range namespacesOf(bRows) {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"", "sub:1", "sub:1|inner:9", "sub:2"}, names, "the root first")
}

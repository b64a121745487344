package store

import (
	"cmp"
	"slices"
)

// nsRow is one row of the listing query both backends run: one
// namespace of one thread.
type nsRow struct {
	thread string
	ns     Namespace
}

// sortNamespaces orders the namespaces of one thread: the root first,
// then by their oldest checkpoint, then by name.
func sortNamespaces(nss []Namespace) {
	slices.SortFunc(nss, func(a, b Namespace) int {
		if (a.Name == "") != (b.Name == "") {
			if a.Name == "" {
				return -1
			}
			return 1
		}
		return cmp.Or(a.first.Compare(b.first), cmp.Compare(a.Name, b.Name))
	})
}

// threadsOf groups listing rows by thread, keeps the threads with a root
// namespace and orders them most recently updated first.
func threadsOf(rows []nsRow) []Thread {
	byThread := map[string][]Namespace{}
	var ids []string
	for _, r := range rows {
		if _, ok := byThread[r.thread]; !ok {
			ids = append(ids, r.thread)
		}
		byThread[r.thread] = append(byThread[r.thread], r.ns)
	}
	out := make([]Thread, 0, len(ids))
	for _, id := range ids {
		nss := byThread[id]
		sortNamespaces(nss)
		if nss[0].Name != "" {
			continue // only subgraph checkpoints: not a thread of a root graph
		}
		out = append(out, Thread{ID: id, Checkpoints: nss[0].Checkpoints, Updated: nss[0].Updated, Namespaces: nss[1:]})
	}
	slices.SortFunc(out, func(a, b Thread) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// namespacesOf returns the namespaces of the listing rows of one thread,
// ordered.
func namespacesOf(rows []nsRow) []Namespace {
	out := make([]Namespace, len(rows))
	for i, r := range rows {
		out[i] = r.ns
	}
	sortNamespaces(out)
	return out
}

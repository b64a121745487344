package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

// nsArgs is how the synopsis of a command that takes -ns shows it.
const nsArgs = "[-ns NS]"

// nsFlag registers -ns, the namespace of the thread a command reads.
func nsFlag(fs *flag.FlagSet, e *env) {
	fs.StringVar(&e.ns, "ns", e.ns, "the namespace `NS` to read: a subgraph's, or a prefix of one such as its node's name (default: the root graph's)")
}

// namespace returns the namespace of thread that -ns names: the root ("")
// without -ns, else the namespace it names exactly or the only one it is
// a prefix of (see inspect.MatchNamespace). The root costs no query.
func (e *env) namespace(ctx context.Context, thread string) (string, error) {
	if e.ns == "" {
		return "", nil
	}
	nss, err := e.store.Lister.Namespaces(ctx, thread)
	if err != nil {
		return "", fmt.Errorf("%s: %w", e.store.Name, err)
	}
	names := make([]string, len(nss))
	for i, n := range nss {
		names[i] = n.Name
	}
	return inspect.MatchNamespace(thread, e.ns, names)
}

// where names a thread and, unless it is the root, a namespace of it,
// for messages.
func where(thread, ns string) string {
	if ns == "" {
		return fmt.Sprintf("thread %q", thread)
	}
	return fmt.Sprintf("thread %q namespace %q", thread, ns)
}

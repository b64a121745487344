package inspect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Errors of Head, Resolve, History and MatchNamespace, checked with
// errors.Is.
var (
	// ErrUnknownThread: the thread has no checkpoint.
	ErrUnknownThread = errors.New("unknown thread")
	// ErrUnknownNamespace: the thread has no checkpoint in that
	// namespace, or the namespace prefix matches none or several.
	ErrUnknownNamespace = errors.New("unknown namespace")
	// ErrUnknownCheckpoint: the thread has no checkpoint with that id or
	// a part of one, or more than one.
	ErrUnknownCheckpoint = errors.New("unknown checkpoint")
)

// Head returns the latest checkpoint of a thread in namespace ns ("" for
// the root graph).
func Head(ctx context.Context, s checkpoint.Saver, thread, ns string) (*checkpoint.Tuple, error) {
	tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns})
	if errors.Is(err, checkpoint.ErrNotFound) {
		return nil, notFound(thread, ns)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where(thread, ns), err)
	}
	return tup, nil
}

// MinIDPart is the fewest characters of a checkpoint id that Resolve
// matches as a part of one: shorter parts match most ids of a long
// thread, and a plain number is a step.
const MinIDPart = 4

// Resolve returns the checkpoint ref of a thread in namespace ns:
//   - "": the latest;
//   - a plain integer N (-1 included, no leading zero): the newest
//     checkpoint of step N (the one a fork or an update saved last, when
//     several have it); a number of MinIDPart digits or more that no step
//     has is read as a part of an id, as is one with a leading zero
//     ("0042");
//   - a whole checkpoint id;
//   - else a part of an id of at least MinIDPart characters: the only
//     checkpoint whose id ends with it or, failing that, the only one
//     whose id contains it. Checkpoint ids are UUIDv7: the checkpoints of
//     a thread share their first characters and differ in their last, so
//     a suffix or a chunk from the middle names one where a prefix rarely
//     does.
//
// Anything else is ErrUnknownCheckpoint, saying what ref matched.
func Resolve(ctx context.Context, s checkpoint.Saver, thread, ns, ref string) (*checkpoint.Tuple, error) {
	head, err := Head(ctx, s, thread, ns)
	if err != nil || ref == "" {
		return head, err
	}
	if step, ok := stepNumber(ref); ok {
		tup, err := atStep(ctx, s, thread, ns, step)
		if err == nil || len(ref) < MinIDPart || !errors.Is(err, ErrUnknownCheckpoint) {
			return tup, err
		}
		// A number no step has, long enough to be the digits that end
		// an id (as history prints a cut one): read it as a part of one.
	}
	tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: ref})
	if err == nil {
		return tup, nil
	}
	if !errors.Is(err, checkpoint.ErrNotFound) {
		return nil, fmt.Errorf("%s checkpoint %q: %w", where(thread, ns), ref, err)
	}
	if len(ref) < MinIDPart {
		return nil, fmt.Errorf("%w %q: give a step number, a whole checkpoint id or at least %d characters of one (list them with \"stategraph history %s\")",
			ErrUnknownCheckpoint, ref, MinIDPart, historyArgs(thread, ns))
	}
	hist, err := History(ctx, s, thread, ns)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hist))
	for i, t := range hist {
		ids[i] = t.Config.CheckpointID
	}
	id, err := matchCheckpoint(thread, ns, ref, ids)
	if err != nil {
		return nil, err
	}
	tup, err = s.Get(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: id})
	if err != nil {
		return nil, fmt.Errorf("%s checkpoint %q: %w", where(thread, ns), id, err)
	}
	return tup, nil
}

// stepNumber reports whether ref is written as a step: an integer
// without a sign other than -, and without a leading zero.
func stepNumber(ref string) (int, bool) {
	digits := strings.TrimPrefix(ref, "-")
	if digits == "" || (len(digits) > 1 && digits[0] == '0') || (ref[0] == '-' && digits == "0") {
		return 0, false
	}
	n, err := strconv.Atoi(ref)
	return n, err == nil && !strings.HasPrefix(ref, "+")
}

// atStep returns the newest checkpoint of step of a thread in namespace
// ns, or ErrUnknownCheckpoint naming the steps it has.
func atStep(ctx context.Context, s checkpoint.Saver, thread, ns string, step int) (*checkpoint.Tuple, error) {
	hist, err := History(ctx, s, thread, ns)
	if err != nil {
		return nil, err
	}
	lo, hi := hist[0].Metadata.Step, hist[0].Metadata.Step
	for _, t := range hist { // newest first
		if t.Metadata.Step == step {
			return t, nil
		}
		lo, hi = min(lo, t.Metadata.Step), max(hi, t.Metadata.Step)
	}
	return nil, fmt.Errorf("%w: %s has no checkpoint at step %d (its steps run from %d to %d; list them with \"stategraph history %s\")",
		ErrUnknownCheckpoint, where(thread, ns), step, lo, hi, historyArgs(thread, ns))
}

// matchCheckpoint returns the id among ids (a thread's checkpoints in
// namespace ns, newest first) that ref names when it is not a whole id:
// the only one that ends with ref, else the only one that contains it.
// Anything else is ErrUnknownCheckpoint, listing the ids ref matches.
func matchCheckpoint(thread, ns, ref string, ids []string) (string, error) {
	var suffix, within []string
	for _, id := range ids {
		if strings.HasSuffix(id, ref) {
			suffix = append(suffix, id)
		}
		if strings.Contains(id, ref) {
			within = append(within, id)
		}
	}
	matches := within
	if len(suffix) > 0 {
		matches = suffix
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w %q: %s has no such checkpoint (list them with \"stategraph history %s\")",
			ErrUnknownCheckpoint, ref, where(thread, ns), historyArgs(thread, ns))
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("%w %q: it matches %d checkpoints of %s (%s); give more of the id",
		ErrUnknownCheckpoint, ref, len(matches), where(thread, ns), idList(matches))
}

// History returns every checkpoint of a thread in namespace ns, newest
// first.
func History(ctx context.Context, s checkpoint.Saver, thread, ns string) ([]*checkpoint.Tuple, error) {
	return HistoryN(ctx, s, thread, ns, 0)
}

// HistoryN is History of the newest limit checkpoints at most (0: every
// one): the saver reads no more.
func HistoryN(ctx context.Context, s checkpoint.Saver, thread, ns string, limit int) ([]*checkpoint.Tuple, error) {
	var out []*checkpoint.Tuple
	for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{Limit: limit}) {
		if err != nil {
			return nil, fmt.Errorf("%s: history: %w", where(thread, ns), err)
		}
		out = append(out, tup)
	}
	if len(out) == 0 {
		return nil, notFound(thread, ns)
	}
	return out, nil
}

// maxListed is how many namespaces or checkpoints an error lists.
const maxListed = 5

// MatchNamespace returns the namespace of thread that ns names, given
// every namespace the thread has a checkpoint in (the root "" included;
// none for an unknown thread): "" for "", ns itself when the thread has
// it, else the only namespace that starts with ns at the same depth
// (the prefix "drafting" names "drafting:<task id>" but not the nested
// "drafting:<task id>|review:<task id>"). Anything else is
// ErrUnknownThread or ErrUnknownNamespace, naming the thread's
// namespaces.
func MatchNamespace(thread, ns string, namespaces []string) (string, error) {
	switch {
	case len(namespaces) == 0:
		return "", notFound(thread, "")
	case ns == "":
		return "", nil
	}
	var subs, matches []string
	for _, n := range namespaces {
		if n == ns {
			return ns, nil
		}
		if n == "" {
			continue
		}
		subs = append(subs, n)
		if rest, ok := strings.CutPrefix(n, ns); ok && !strings.Contains(rest, "|") {
			matches = append(matches, n)
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		return "", fmt.Errorf("%w %q: it matches %d namespaces of thread %q (%s); give more of the namespace",
			ErrUnknownNamespace, ns, len(matches), thread, quoteList(matches))
	case len(subs) == 0:
		return "", fmt.Errorf("%w %q: thread %q has only the root namespace (no subgraph of it checkpointed); leave out -ns",
			ErrUnknownNamespace, ns, thread)
	}
	listed := "its subgraph namespaces are " + quoteList(subs)
	if len(subs) == 1 {
		listed = "its one subgraph namespace is " + quoteList(subs)
	}
	return "", fmt.Errorf("%w %q: thread %q has no such namespace; %s", ErrUnknownNamespace, ns, thread, listed)
}

// notFound is the error for a thread without checkpoints in namespace ns.
func notFound(thread, ns string) error {
	if ns == "" {
		return fmt.Errorf("%w %q: it has no checkpoint (list threads with \"stategraph threads\")", ErrUnknownThread, thread)
	}
	return fmt.Errorf("%w %q: thread %q has no checkpoint in it (list a thread's namespaces with \"stategraph -json threads\")",
		ErrUnknownNamespace, ns, thread)
}

// where names a thread and, unless it is the root, a namespace of it,
// for messages.
func where(thread, ns string) string {
	if ns == "" {
		return fmt.Sprintf("thread %q", thread)
	}
	return fmt.Sprintf("thread %q namespace %q", thread, ns)
}

// historyArgs are the arguments of the history command that lists the
// checkpoints of thread in namespace ns.
func historyArgs(thread, ns string) string {
	if ns == "" {
		return thread
	}
	return thread + " -ns " + shellQuote(ns)
}

// shellQuote quotes s for a POSIX shell unless it needs no quotes.
// Namespaces hold '|', which a shell would take for a pipe.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// idList lists checkpoint ids for a message, at most maxListed of them.
func idList(ids []string) string {
	if len(ids) <= maxListed {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxListed], ", "), len(ids)-maxListed)
}

// quoteList quotes names for a message, at most maxListed of them.
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i == maxListed {
			fmt.Fprintf(&b, " and %d more", len(names)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}

package store

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidNamespace: a namespace that cannot be stored (empty, an empty
// label, a label with "."). Check it with errors.Is.
var ErrInvalidNamespace = errors.New("store: invalid namespace")

// Wildcard, as a label of a ListNamespaces prefix or suffix, matches any
// one label.
const Wildcard = "*"

// checkNamespace reports why ns cannot name an item, or nil.
func checkNamespace(ns []string) error {
	if len(ns) == 0 {
		return fmt.Errorf("%w: a namespace needs at least one label", ErrInvalidNamespace)
	}
	for i, l := range ns {
		switch {
		case l == "":
			return fmt.Errorf("%w %q: label %d is empty", ErrInvalidNamespace, ns, i)
		case strings.Contains(l, "."):
			return fmt.Errorf("%w %q: label %q contains a period", ErrInvalidNamespace, ns, l)
		}
	}
	return nil
}

// checkPrefix is checkNamespace for a prefix, which may be empty.
func checkPrefix(ns []string) error {
	if len(ns) == 0 {
		return nil
	}
	return checkNamespace(ns)
}

// EncodeNamespace joins the labels of ns with ".", the form a Driver
// stores: the encoding of a namespace starts with the encoding of its
// prefix followed by ".", so a prefix search is a range of the sorted
// encodings.
func EncodeNamespace(ns []string) string { return strings.Join(ns, ".") }

// DecodeNamespace splits an encoded namespace into its labels.
func DecodeNamespace(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ".")
}

// matchLabels reports whether labels, from the start, match pattern, with
// Wildcard matching any label.
func matchLabels(labels, pattern []string) bool {
	if len(pattern) > len(labels) {
		return false
	}
	for i, p := range pattern {
		if p != Wildcard && p != labels[i] {
			return false
		}
	}
	return true
}

// matchSuffix reports whether labels end with pattern.
func matchSuffix(labels, pattern []string) bool {
	if len(pattern) > len(labels) {
		return false
	}
	return matchLabels(labels[len(labels)-len(pattern):], pattern)
}

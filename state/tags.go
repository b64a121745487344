package state

import (
	"fmt"
	"strings"
	"unicode"
)

// A field's `state` struct tag, read by FromStruct, is a comma-separated
// list of words:
//
//	value          last value (the default)
//	append         a slice whose writes are appended (Append)
//	merge          a map whose writes are merged (Merge)
//	sum            a number whose writes are added (Sum)
//	messages       the reducer named "messages" (chat registers it)
//	reducer=NAME   the reducer registered under NAME (RegisterReducer)
//	name=NAME      the field's stable name (default: the Go name in snake_case)
//
// and `state:"-"` leaves the field out of the schema.

// tagSpec is a parsed `state` tag.
type tagSpec struct {
	skip    bool
	name    string // "" for the default
	kind    Kind   // KindValue, KindAppend, KindMerge, KindSum, or KindCustom for reducer
	reducer string // the named reducer of KindCustom
}

const tagWords = "value, append, merge, sum, messages, reducer=NAME or name=NAME"

// parseTag parses a `state` tag's value.
func parseTag(tag string) (tagSpec, error) {
	var sp tagSpec
	if tag == "-" {
		return tagSpec{skip: true}, nil
	}
	if tag == "" {
		return sp, nil
	}
	kindSet, nameSet := false, false
	setKind := func(word string, k Kind, reducer string) error {
		if kindSet {
			return fmt.Errorf("%q gives a second reducer: a field has one", word)
		}
		kindSet, sp.kind, sp.reducer = true, k, reducer
		return nil
	}
	for word := range strings.SplitSeq(tag, ",") {
		var err error
		key, val, hasVal := strings.Cut(word, "=")
		switch {
		case hasVal && key == "reducer":
			if !validName.MatchString(val) {
				return tagSpec{}, fmt.Errorf("%q: a reducer name is letters, digits, '_', '.', '-', not starting with a digit", word)
			}
			err = setKind(word, KindCustom, val)
		case hasVal && key == "name":
			switch {
			case nameSet:
				return tagSpec{}, fmt.Errorf("%q gives a second name", word)
			case !validName.MatchString(val) || strings.HasPrefix(val, "__"):
				return tagSpec{}, fmt.Errorf("%q: a field name is letters, digits, '_', '.', '-', not starting with a digit or \"__\"", word)
			}
			nameSet, sp.name = true, val
		case hasVal:
			return tagSpec{}, fmt.Errorf("unknown word %q (use %s)", word, tagWords)
		case word == "value":
			err = setKind(word, KindValue, "")
		case word == "append":
			err = setKind(word, KindAppend, "")
		case word == "merge":
			err = setKind(word, KindMerge, "")
		case word == "sum":
			err = setKind(word, KindSum, "")
		case word == "messages":
			err = setKind(word, KindCustom, "messages")
		case word == "":
			return tagSpec{}, fmt.Errorf("an empty word (use %s, separated by single commas)", tagWords)
		default:
			return tagSpec{}, fmt.Errorf("unknown word %q (use %s)", word, tagWords)
		}
		if err != nil {
			return tagSpec{}, err
		}
	}
	return sp, nil
}

// String formats the spec as a tag parseTag reads back.
func (sp tagSpec) String() string {
	if sp.skip {
		return "-"
	}
	var words []string
	switch sp.kind {
	case KindCustom:
		words = append(words, "reducer="+sp.reducer)
	case KindValue:
	default:
		words = append(words, sp.kind.String())
	}
	if sp.name != "" {
		words = append(words, "name="+sp.name)
	}
	return strings.Join(words, ",")
}

// snakeCase is a Go field name as a stable field name: PastSteps is
// past_steps, HTTPCode is http_code, ID is id.
func snakeCase(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if i > 0 && (prevLower || (nextLower && unicode.IsUpper(r[i-1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

package postgres

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/stategraph/stategraph/checkpoint"
)

// field is a named string a statement stores in a text column.
type field struct{ name, value string }

// checkText returns an error wrapping ErrLimit that names the first field
// a PostgreSQL text column cannot hold: one with U+0000 or invalid UTF-8
// (the database would refuse the statement with a bare encoding error,
// and JSON would silently turn invalid UTF-8 into U+FFFD).
func checkText(fields ...field) error {
	for _, f := range fields {
		switch {
		case strings.IndexByte(f.value, 0) >= 0:
			return fmt.Errorf("the %s %q contains U+0000, which PostgreSQL text cannot hold: %w", f.name, f.value, ErrLimit)
		case !utf8.ValidString(f.value):
			return fmt.Errorf("the %s %q is not valid UTF-8, which PostgreSQL text requires: %w", f.name, f.value, ErrLimit)
		}
	}
	return nil
}

// checkPutText checks the text of a Put: the keys, the versions and
// the metadata's strings.
func checkPutText(req checkpoint.PutRequest) error {
	cfg, cp := req.Config, req.Checkpoint
	if err := checkText(field{"thread id", cfg.ThreadID}, field{"namespace", cfg.Namespace}, field{"checkpoint id", cp.ID},
		field{"parent id", cfg.CheckpointID}, field{"expected head", req.ExpectHead}); err != nil {
		return err
	}
	for ch, v := range cp.Versions {
		if err := checkText(field{"channel name", ch}, field{"version of channel " + fmt.Sprintf("%q", ch), v}); err != nil {
			return err
		}
	}
	for ch, b := range cp.New {
		if err := checkText(field{"channel name", ch}, field{"blob version of channel " + fmt.Sprintf("%q", ch), b.Version},
			field{"blob base of channel " + fmt.Sprintf("%q", ch), b.Base}); err != nil {
			return err
		}
	}
	md := req.Metadata
	fs := []field{{"metadata source", string(md.Source)}, {"metadata run id", md.RunID}}
	for _, n := range md.Nodes {
		fs = append(fs, field{"metadata node", n})
	}
	for k, v := range md.Parents {
		fs = append(fs, field{"metadata parent namespace", k}, field{"metadata parent", v})
	}
	for k := range md.Extra {
		fs = append(fs, field{"metadata key", k})
	}
	return checkText(fs...)
}

// readable reports whether a stored row could match cfg and before: a
// key PostgreSQL text cannot hold matches none.
func readable(cfg checkpoint.Config, before string) bool {
	return checkText(field{"thread id", cfg.ThreadID}, field{"namespace", cfg.Namespace},
		field{"checkpoint id", cfg.CheckpointID}, field{"before", before}) == nil
}

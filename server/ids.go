package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Ids never reach a response raw. Thread, run, assistant, cron and
// checkpoint ids, checkpoint namespaces and store namespaces travel in
// URLs, in headers (Content-Location, Location) and in SSE lines, where a
// NUL, an ESC, a CR or LF, another C0 or C1 control or a bidirectional
// override breaks or disguises the answer. The server refuses them where
// they come in (a path segment, a query value, an id field of a body) with
// 422 saying which character and where, before anything runs or is
// stored; and it path-escapes the ids it writes into a header.

// badIDRune returns a description of the first character of s an id may
// not hold, and its byte offset, or "" when s is fine.
func badIDRune(s string) (string, int) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return "a byte that is not UTF-8", i
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("the control character U+%04X%s", r, controlName(r)), i
		case r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("the C1 control character U+%04X", r), i
		case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("the bidirectional formatting character U+%04X", r), i
		case r == 0x2028 || r == 0x2029:
			return fmt.Sprintf("the line separator U+%04X", r), i
		}
	}
	return "", 0
}

func controlName(r rune) string {
	switch r {
	case 0:
		return " (NUL)"
	case 0x1b:
		return " (ESC)"
	case '\r':
		return " (CR)"
	case '\n':
		return " (LF)"
	case '\t':
		return " (TAB)"
	}
	return ""
}

// runLocation is the URL path of a run, its ids path-escaped, for the
// Content-Location and Location headers.
func runLocation(rec RunRecord) string {
	return "/threads/" + url.PathEscape(rec.ThreadID) + "/runs/" + url.PathEscape(rec.RunID)
}

// checkID refuses an id that holds a character an id may not hold.
func checkID(field, id string) error {
	what, at := badIDRune(id)
	if what == "" {
		return nil
	}
	return &InputError{Field: field, Err: fmt.Errorf("%q holds %s at byte %d: ids may not hold control characters or bidirectional overrides", id, what, at)}
}

// checkRequestIDs refuses a request whose path or query holds a
// character an id may not hold.
func checkRequestIDs(r *http.Request) error {
	for i, seg := range strings.Split(r.URL.Path, "/") {
		if err := checkID(fmt.Sprintf("path segment %d", i), seg); err != nil {
			return err
		}
	}
	for k, vs := range r.URL.Query() {
		if err := checkID("query parameter "+k, k); err != nil {
			return err
		}
		for _, v := range vs {
			if err := checkID("query parameter "+k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// idFields are the fields of a request body that hold ids (or lists of
// them, or objects of them: a checkpoint, a config's configurable).
var idFields = map[string]bool{
	"thread_id": true, "run_id": true, "assistant_id": true, "graph_id": true, "cron_id": true,
	"checkpoint_id": true, "checkpoint_ns": true, "parent_checkpoint_id": true, "as_node": true,
	"namespace": true, "namespace_prefix": true, "prefix": true, "suffix": true, "ids": true, "key": true,
}

// idObjects are the fields of a body whose objects hold id fields.
var idObjects = map[string]bool{"checkpoint": true, "before": true, "config": true, "configurable": true}

// checkBodyIDs refuses a JSON body with an id field that holds a
// character an id may not hold. It looks at the body's own fields and at
// those of its checkpoint, before and config.configurable objects, never
// into input, values or metadata, which are the user's data.
func checkBodyIDs(body []byte) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil // the handler reports a malformed body
	}
	return checkIDFields("", top)
}

// nestedIDFields are the id fields looked at inside a body's checkpoint,
// before and config.configurable objects: a configurable is the user's
// too, and only its ids are the server's business.
var nestedIDFields = map[string]bool{
	"thread_id": true, "run_id": true, "assistant_id": true, "graph_id": true,
	"checkpoint_id": true, "checkpoint_ns": true, "parent_checkpoint_id": true,
}

func checkIDFields(prefix string, obj map[string]json.RawMessage) error {
	for k, raw := range obj {
		field := prefix + k
		switch {
		case prefix == "" && idFields[k], prefix != "" && nestedIDFields[k]:
			var one string
			if json.Unmarshal(raw, &one) == nil {
				if err := checkID(field, one); err != nil {
					return err
				}
				continue
			}
			var many []string
			if json.Unmarshal(raw, &many) == nil {
				for i, id := range many {
					if err := checkID(fmt.Sprintf("%s[%d]", field, i), id); err != nil {
						return err
					}
				}
			}
		case idObjects[k]:
			var inner map[string]json.RawMessage
			if json.Unmarshal(raw, &inner) == nil {
				if err := checkIDFields(field+".", inner); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

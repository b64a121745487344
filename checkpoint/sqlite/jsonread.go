package sqlite

import (
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
)

// The versions and metadata columns are read by hand when they are in
// the form jsonfast.go writes them (strings that need no escaping,
// metadata without Extra, keys in that order); anything else goes
// through encoding/json, as before. A history reads thousands of rows
// whose strings repeat (channel names, unchanged versions, the run id):
// an interner makes each of them once per List.

// interner returns one string for equal byte slices. The zero value is
// ready to use; a nil *interner makes a new string every time.
type interner struct{ m map[string]string }

// maxInterned caps an interner's strings.
const maxInterned = 4096

func (in *interner) str(b []byte) string {
	if in == nil {
		return string(b)
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// peek is str for a string that the strings to come will not repeat: it
// returns the one in is holding, or a fresh one without keeping it.
func (in *interner) peek(b []byte) string {
	if in != nil {
		if s, ok := in.m[string(b)]; ok {
			return s
		}
	}
	return string(b)
}

// jsonScan reads the plain form, and fails (ok false) at anything else.
type jsonScan struct {
	b  []byte
	ok bool
}

func (p *jsonScan) lit(s string) {
	if !p.ok || len(p.b) < len(s) || string(p.b[:len(s)]) != s {
		p.ok = false
		return
	}
	p.b = p.b[len(s):]
}

func (p *jsonScan) peek(c byte) bool { return p.ok && len(p.b) > 0 && p.b[0] == c }

// str reads a string that needs no unescaping, and returns its bytes.
func (p *jsonScan) str() []byte {
	if !p.peek('"') {
		p.ok = false
		return nil
	}
	for i := 1; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			s := p.b[1:i]
			p.b = p.b[i+1:]
			return s
		case c < 0x20 || c >= 0x7f || c == '\\':
			p.ok = false
			return nil
		}
	}
	p.ok = false
	return nil
}

// int reads an integer without exponent or fraction.
func (p *jsonScan) int() int {
	i := 0
	if i < len(p.b) && p.b[i] == '-' {
		i++
	}
	start := i
	for i < len(p.b) && p.b[i] >= '0' && p.b[i] <= '9' {
		i++
	}
	if !p.ok || i == start || i-start > 18 || (p.b[start] == '0' && i-start > 1) {
		p.ok = false
		return 0
	}
	n, err := strconv.Atoi(string(p.b[:i]))
	if err != nil {
		p.ok = false
		return 0
	}
	p.b = p.b[i:]
	return n
}

// readVersions reads a versions column in the plain form, relative to
// checkpoint id when rel is set (relVersion). A version that belongs to
// id (versionOwner) is new at this checkpoint, so a walk from the newest,
// which has read the newer checkpoints already, meets it in no
// checkpoint to come and does not intern it; one that is id itself is
// id's string.
func readVersions(b []byte, in *interner, id string, rel bool) (map[string]string, bool) {
	p := jsonScan{b: b, ok: true}
	p.lit("{")
	n := 0
	for _, c := range b {
		if c == ':' {
			n++
		}
	}
	v := make(map[string]string, n)
	var buf []byte
	for i := 0; p.ok && !p.peek('}'); i++ {
		if i > 0 {
			p.lit(",")
		}
		k := p.str()
		p.lit(":")
		val := p.str()
		if !p.ok {
			break
		}
		if rel && len(val) > 0 && val[0] == '=' {
			switch rest := val[1:]; {
			case len(rest) == 0:
				v[in.str(k)] = id
			case rest[0] == '=':
				v[in.str(k)] = in.str(rest)
			default:
				buf = append(append(buf[:0], id...), rest...)
				v[in.str(k)] = in.peek(buf)
			}
			continue
		}
		switch {
		case string(val) == id:
			v[in.str(k)] = id
		case ownedBy(val, id):
			v[in.str(k)] = in.peek(val)
		default:
			v[in.str(k)] = in.str(val)
		}
	}
	p.lit("}")
	return v, p.ok && len(p.b) == 0
}

// ownedBy reports whether version v belongs to checkpoint id (see
// versionOwner).
func ownedBy(v []byte, id string) bool {
	return id != "" && len(v) >= len(id) && string(v[:len(id)]) == id && (len(v) == len(id) || v[len(id)] == '.')
}

// readMetadata reads a metadata column in the form appendMetadata
// writes.
func readMetadata(b []byte, in *interner) (checkpoint.Metadata, bool) {
	var md checkpoint.Metadata
	p := jsonScan{b: b, ok: true}
	p.lit(`{"source":`)
	md.Source = checkpoint.Source(in.str(p.str()))
	p.lit(`,"step":`)
	md.Step = p.int()
	if p.peek(',') && len(p.b) > 10 && string(p.b[:11]) == `,"parents":` {
		p.lit(`,"parents":{`)
		k := p.str()
		p.lit(":")
		v := p.str()
		p.lit("}")
		if p.ok {
			md.Parents = map[string]string{in.str(k): in.str(v)}
		}
	}
	if p.peek(',') && len(p.b) > 9 && string(p.b[:10]) == `,"run_id":` {
		p.lit(`,"run_id":`)
		md.RunID = in.str(p.str())
	}
	if p.peek(',') && len(p.b) > 9 && string(p.b[:10]) == `,"nodes":[` {
		p.lit(`,"nodes":[`)
		for i := 0; p.ok && !p.peek(']'); i++ {
			if i > 0 {
				p.lit(",")
			}
			node := p.str()
			if p.ok {
				md.Nodes = append(md.Nodes, in.str(node))
			}
		}
		p.lit("]")
		if p.ok && md.Nodes == nil {
			p.ok = false // "nodes":[] is not what appendMetadata writes
		}
	}
	p.lit("}")
	return md, p.ok && len(p.b) == 0
}

package checkpoint

import "crypto/sha1"

// sha1Of hashes parts separated by NUL bytes, without allocating for
// short inputs.
func sha1Of(parts []string) [sha1.Size]byte {
	var buf [256]byte
	b := buf[:0]
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	return sha1.Sum(b)
}

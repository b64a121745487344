package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/store"
)

// keyFileEnv names the key file when -key-file is not given.
const keyFileEnv = "STATEGRAPH_KEY_FILE"

const keyFlagsUsage = `  -key-file PATH  the keys of an encrypted database (checkpoint/encrypt), one "ID BASE64" a line,
                  the active key first (default: $STATEGRAPH_KEY_FILE)
`

// keyFlags is -key-file: the keyring of a database that
// checkpoint/encrypt wrote, so the inspector and the studio read its
// values instead of ciphertext.
type keyFlags struct {
	path string
	ring *encrypt.Keyring
}

func (k *keyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&k.path, "key-file", k.path, "the `PATH` of the keys of an encrypted database, one \"ID BASE64\" a line, the active key first (default: $"+keyFileEnv+")")
}

// resolve reads the key file named by -key-file or $STATEGRAPH_KEY_FILE;
// neither: no keyring.
func (k *keyFlags) resolve(getenv func(string) string) error {
	if k.path == "" {
		k.path = getenv(keyFileEnv)
	}
	if k.path == "" {
		return nil
	}
	ring, err := readKeyFile(k.path)
	if err != nil {
		return err
	}
	k.ring = ring
	return nil
}

// wrap returns s decrypting through the keyring, or s when there is none.
func (k *keyFlags) wrap(s checkpoint.Saver) checkpoint.Saver {
	if k.ring == nil {
		return s
	}
	return encrypt.Wrap(s, k.ring)
}

// readKeyFile reads a keyring: each line "ID BASE64" (blank lines and
// lines starting with # skipped), the first key active, the others for
// reading older rows. The secrets never appear in an error.
func readKeyFile(path string) (*encrypt.Keyring, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer f.Close()
	var keys []encrypt.Key
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, secret, ok := strings.Cut(line, " ")
		secret = strings.TrimSpace(secret)
		if !ok || secret == "" {
			return nil, fmt.Errorf("key file %s, line %d: want \"ID BASE64\" (a key id, a space, the key in base64)", path, n)
		}
		key, err := encrypt.KeyFromBase64(id, secret)
		if err != nil {
			return nil, fmt.Errorf("key file %s, line %d: %w", path, n, err)
		}
		keys = append(keys, key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("key file %s has no key", path)
	}
	ring, err := encrypt.NewKeyring(keys[0], keys[1:]...)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return ring, nil
}

// sealed reports whether the newest thread of the database was written
// through checkpoint/encrypt, whose checkpoints carry a seal channel: the
// hint for an error met without -key-file.
func sealed(ctx context.Context, st *store.Store) bool {
	threads, err := st.Lister.Threads(ctx)
	if err != nil || len(threads) == 0 {
		return false
	}
	head, err := st.Saver.Get(ctx, checkpoint.Config{ThreadID: threads[0].ID})
	if err != nil {
		return false
	}
	_, ok := head.Checkpoint.Versions[encrypt.SealChannel]
	return ok
}

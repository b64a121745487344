// Package encrypt encrypts a checkpoint.Saver's data at rest and
// authenticates every read, failing closed.
//
// Wrap puts an encrypting layer over any saver (memory, SQLite,
// PostgreSQL, a third party's). It sees every row's identity, so each
// ciphertext is bound by its associated data to the row it was written
// for:
//
//   - a blob (a channel's value, or a delta of it, the runtime's schedule
//     of the next step included) to its thread, namespace, channel, version,
//     base version and delta flag; on read the snapshot and deltas of a
//     value must link up to the version the checkpoint names;
//   - a pending write (a task's writes, its Sends, its error, its
//     interrupts and resume values) to its thread, namespace, checkpoint,
//     task id, index and channel;
//   - each checkpoint gets a seal: an encrypted digest of its parent, its
//     channel versions and its metadata, bound to its thread, namespace and
//     id, stored as one more blob under SealChannel. Metadata stays in clear
//     (List filters it in the database) but is authenticated.
//
// A read of a row written without encryption (ErrPlaintext), with a key
// the keyring lacks (ErrUnknownKey), moved or copied from another row,
// or tampered with (ErrUnauthentic, ErrChain, ErrSealMismatch) fails with
// an *Error naming the thread, namespace, checkpoint and channel or write;
// it matches checkpoint.ErrCorrupt.
//
// The cipher is XChaCha20-Poly1305 (golang.org/x/crypto): its 192-bit
// nonces are drawn at random for every value with no practical bound on
// the number of values one key may encrypt, where AES-GCM's 96-bit random
// nonces must stop at about 2^32 values per key, which a busy checkpoint
// store reaches in weeks.
//
// A Keyring holds one active key, which encrypts, and older keys, which
// still decrypt what they encrypted: rotation is a new keyring with a new
// active key and the old one kept. Key handling, rotation and exactly
// what is not encrypted are in docs/encryption.md.
package encrypt

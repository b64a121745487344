// Package text holds the two string helpers that package nodes and its plan
// model share: Truncate, which shortens what is shown to people and
// models, and CompactJSON, the one encoding of JSON values written into
// step inputs.
package text

// Package store is the long-term memory of stategraph: a store of JSON
// items shared by every thread, as LangGraph's BaseStore is.
//
// Threads are short-term memory: a thread's checkpoints hold one
// conversation. What an agent learns about a user, or facts it should
// recall in any conversation, go in a Store instead. An item lives in a
// namespace, a path of labels such as ["users", "u42", "memories"], under
// a key unique within it; its value is a JSON object. Put stores or
// replaces an item (keeping its creation time), Get reads it, Delete
// removes it. Search lists the items under a namespace prefix, newest
// update first, optionally narrowed by a filter on the value's fields
// (equality, or the operators $eq, $ne, $gt, $gte, $lt and $lte) and paged
// by limit and offset. ListNamespaces explores the namespaces themselves:
// by prefix and suffix (a "*" label matches any label), truncated to a
// maximum depth.
//
// Semantic search: with an Index (WithIndex), Put embeds chosen fields of
// each value through an Embedder (langchaingo's embeddings.Embedder
// satisfies it) and stores the vectors beside the item; Search with a
// Query embeds the query and ranks the items under the prefix by the
// cosine similarity of their closest field, exactly (every stored vector
// of the items that match the filter is compared; there is no
// approximate index).
//
// An item may expire: WithTTL on a Put, or WithDefaultTTL on the store.
// An expired item is invisible to every read at once, and Sweep deletes
// it for good. With WithRefreshOnRead, Get and Search renew the TTL of
// what they return.
//
// A Store is the part written once; a Driver is the part each database
// writes (see store/memory, store/sqlite and store/postgres, and
// store/storetest, the conformance suite every driver passes). A driver
// that implements Searcher filters and pages a Search in its database,
// and one that implements NamespaceLister lists namespaces there; the
// Store uses them when they are there, and does the same work in Go over
// Scan and Namespaces when they are not, with the same results. Nodes of a
// graph reach the store of their run through the context: With puts a
// store in a context, From takes it out.
package store

// Package store opens the checkpoint database the inspector reads: a
// SQLite file or a PostgreSQL database. A Store is the backend's
// checkpoint.Saver together with a ThreadLister, for what the Saver
// interface cannot do: name every thread, and every namespace of a
// thread (the root graph's and one per subgraph task). Each ThreadLister
// queries its backend's tables directly, on a connection the Store opens
// itself, and never changes them.
//
// Opening never creates a database: a SQLite path that does not exist, a
// file that is not a stategraph checkpoint database, or a PostgreSQL
// database without the stategraph tables is an error that names it.
package store

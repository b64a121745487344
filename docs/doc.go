// Package docs holds the project's documentation as Markdown. Its test
// checks that the Go code the pages show is real: every line of every Go
// block appears in the repository's Go sources, which compile and run.
package docs

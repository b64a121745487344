package main

import "github.com/stategraph/stategraph/examples/internal/planexec"

// The program's exit codes and test hook, as the tests spell them.
const (
	exitOK          = planexec.ExitOK
	exitFailed      = planexec.ExitFailed
	exitUsage       = planexec.ExitUsage
	exitDeclined    = planexec.ExitDeclined
	exitInterrupted = planexec.ExitInterrupted
	slowToolsEnv    = planexec.SlowToolsEnv
	defaultDB       = "planexecute.db"
)

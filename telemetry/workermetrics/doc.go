// Package workermetrics reports a worker fleet as OpenTelemetry metrics:
// how many runs wait for a worker and how many are executing (over the
// whole database, read when the metrics are collected), and how many runs
// this process's worker took over from silent workers.
//
// Register it once per process, on the worker.Client the process uses:
//
//	tel := telemetry.New(telemetry.WithMeterProvider(mp))
//	reg, err := workermetrics.Register(tel, client)
//	defer reg.Unregister()
//
// It is a package of its own so that package telemetry does not import
// package worker (and with it pgx and River).
package workermetrics

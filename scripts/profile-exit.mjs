// Preloaded into an app when ./benchmark.sh --profile runs it (see start-app.sh): a CPU profile
// (--cpu-prof) is written when the process exits normally, and a runtime killed by SIGTERM's
// default action never does. Exiting on SIGTERM and SIGINT lets the harness's usual stop write it.
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => process.exit(0));

package repotest

import "os"

// Long reports whether the long suites run at full size: the kill
// campaigns, every hook fixture against every scenario, sharing over every
// transport, the real hosts. go test ./... runs each at a size that keeps
// the whole suite within a minute on two cores; .ci/run sets
// PLANGIT_LONG=1 and runs them whole.
func Long() bool { return os.Getenv("PLANGIT_LONG") != "" }

# The plan docs/commands.md's History example reads: three steps in two
# phases, changed at the times its log shows (PLANGIT_NOW sets each
# change's clock; the examples run at 2026-11-20T10:00:00Z).
# TestDocExamples (docs_test.go) runs it, in bash, before that example.
set -euo pipefail
at() {
	PLANGIT_NOW="2026-11-20T$1:00Z" "${@:2}" >/dev/null
}
at 09:20 plangit init "Add caching" --goal "cache user lookups" --phase Analysis --phase Build
at 09:20 plangit step add Analyze --phase Analysis
at 09:20 plangit step add Design --phase Analysis
at 09:20 plangit step add Build --phase Build
at 09:25 plangit step start 1
at 09:45 plangit step done 1
at 09:50 plangit step done 3 --force
at 09:51 plangit finding add --category insight --title "Hot path" "GetUser is called on every request"
at 10:00 plangit step start 2

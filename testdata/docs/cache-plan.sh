# The plan docs/commands.md shows as plangit show --all draws it on a
# terminal: six steps in three phases, three of them done. It becomes the
# active session, which the examples after it use.
# TestDocExamples (docs_test.go) runs it, in bash, before that example.
set -euo pipefail
{
	plangit init "Add caching to UserService" --goal "cache user lookups without changing the public API" \
		--phase Analysis --phase Build --phase Verify
	plangit step add "Read UserService and find the hot paths" --phase Analysis
	plangit step add "Design the cache (LRU, 5-minute TTL)" --phase Analysis --needs 1
	plangit step add "Implement the cache layer" --phase Build --needs 2
	plangit step add "Use the cache in UserService.GetUser" --phase Build --needs 3
	plangit step add "Benchmark before and after" --phase Verify --needs 4
	plangit step add "Document the cache in the README" --phase Verify
	plangit step done 1 --result "3 hot paths, all in GetUser"
	plangit step done 2 --result "an LRU keyed by user id, entries expire after 5 minutes"
	plangit step done 3 --result "cache.go with Get/Set and TTL eviction; tests pass"
} >/dev/null

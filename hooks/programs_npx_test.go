package hooks

import "testing"

// TestFromNpx: a program in npx's cache, which npm clears, is told from
// an installed one.
func TestFromNpx(t *testing.T) {
	for path, want := range map[string]bool{
		"/home/a/.npm/_npx/6a4b1c/node_modules/@plangit/linux-x64/bin/plangit":              true,
		`C:\Users\a\AppData\Local\npm-cache\_npx\6a4b\node_modules\plangit\bin\plangit.exe`: true,
		"/usr/local/lib/node_modules/plangit/bin/plangit":                                   false,
		"/home/a/.local/bin/plangit":                                                        false,
	} {
		if got := FromNpx(path); got != want {
			t.Errorf("FromNpx(%q) = %v, want %v", path, got, want)
		}
	}
}

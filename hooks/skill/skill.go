// Package skill holds plangit's Agent Skill: the SKILL.md that tells an
// agent when and how to use plangit, written by `plangit setup` into the
// folders hosts read skills from and shipped in the plugins.
package skill

import _ "embed"

// Name is the skill's name, and the name of the folder it is written to.
const Name = "plangit"

// File is SKILL.md's contents.
//
//go:embed SKILL.md
var File []byte

package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plangit/plangit/plan"
)

// Usage errors: a malformed command line exits 2 with one line that says
// what is wrong, a close match when there is one, and the help of the
// command at fault ("plangit help step done"). Nothing of cobra's or
// pflag's own wording reaches the user.

// usageError marks a malformed command line: exit code 2.
type usageError struct {
	err  *plan.Error
	help string // the help to name; "" names the help of the command that ran
}

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// usagef returns a usage error with code INVALID_ARGUMENT.
func usagef(format string, args ...any) error {
	return &usageError{err: plan.Errorf(plan.CodeInvalidArgument, format, args...)}
}

// asUsage makes a domain error a usage error: the argument it was given
// was malformed.
func asUsage(err error) error {
	var e *plan.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	return &usageError{err: e}
}

// finish names the help of c, the command that ran, at the end of the
// message and in the details.
func (u *usageError) finish(c *cobra.Command) {
	if u.help == "" {
		u.help = helpCommand(c)
	}
	u.err.Message += " (" + u.help + ")"
	u.err.With("help", u.help)
}

// helpCommand is how to ask for c's help: "plangit help step done".
func helpCommand(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return "plangit help"
	}
	return "plangit help " + commandPath(c)
}

// didYouMean is `; did you mean "x"?` when one of names is close to typed.
func didYouMean(typed string, names []string, prefix string) string {
	if s := closest(typed, names); s != "" {
		return fmt.Sprintf("; did you mean %q?", prefix+s)
	}
	return ""
}

// closest is the name nearest to typed: a typo or two away (transposed
// letters count once), or typed is its prefix; "" when none is.
func closest(typed string, names []string) string {
	typed = strings.ToLower(typed)
	limit := 1
	if len(typed) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, n := range names {
		d := editDistance(typed, strings.ToLower(n))
		if d > limit && len(typed) >= 3 && strings.HasPrefix(strings.ToLower(n), typed) {
			d = limit
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of neighbours.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// subcommandNames lists the commands a user can type under c.
func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() || sub.Name() == "help" {
			names = append(names, sub.Name())
		}
	}
	return names
}

// unknownCommand is the usage error for a word that names no command
// under c: `unknown command "step dne"; did you mean "step done"?`.
func unknownCommand(c *cobra.Command, word string) error {
	path := commandPath(c)
	if path != "" {
		path += " "
	}
	return usagef("unknown command %q%s", path+word, didYouMean(word, subcommandNames(c), path))
}

// commandPath is c's path without the program's name: "step done".
func commandPath(c *cobra.Command) string {
	if !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// needSubcommand runs a command that only groups others: plangit step,
// plangit hooks, ...
func needSubcommand(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(c, args[0])
	}
	return usagef("%s needs a subcommand: %s", commandPath(c), strings.Join(subcommandNames(c), ", "))
}

// groupKey annotates a command that only groups others.
const groupKey = "plangit_group"

// strictTree makes every command under c report a malformed command line
// as a usage error: commands that group others refuse an unknown word, and
// every argument check's error is a usage error.
func strictTree(c *cobra.Command) {
	if !c.HasParent() {
		// A command that only groups others runs, to refuse what it is
		// given; its usage does not offer it alone.
		c.SetUsageTemplate(strings.Replace(c.UsageTemplate(), "{{if .Runnable}}", `{{if and .Runnable (not (index .Annotations "`+groupKey+`"))}}`, 1))
	}
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args, c.RunE = cobra.ArbitraryArgs, needSubcommand
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[groupKey] = "true"
	}
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ue *usageError
			if err == nil || errors.As(err, &ue) {
				return err
			}
			return usagef("%s takes no arguments, not %s", commandPath(cmd), strings.Join(quoteEach(args), " "))
		}
	}
	for _, sub := range c.Commands() {
		strictTree(sub)
	}
}

func quoteEach(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}

// flagError says what is wrong with a flag in plangit's words. args is
// the command line, for the command a "-" argument needs.
func flagError(c *cobra.Command, err error, args []string) error {
	var (
		notExist *pflag.NotExistError
		needs    *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if group := notExist.GetSpecifiedShortnames(); group != "" {
			msg := fmt.Sprintf("unknown flag -%s", name[:1])
			if group != name[:1] {
				msg += fmt.Sprintf(" (in -%s)", group)
			}
			if acceptsArgs(c) {
				msg += fmt.Sprintf("; an argument that begins with \"-\" goes after --: %s", dashCommand(c, args, "-"+group))
			}
			return usagef("%s", msg)
		}
		return usagef("unknown flag --%s%s", name, didYouMean(name, flagNames(c), "--"))
	case errors.As(err, &needs):
		return usagef("%s needs a value", flagName(needs.GetFlag()))
	case errors.As(err, &invalid):
		fl := invalid.GetFlag()
		return usagef("%s takes %s, not %q", flagName(fl), valueKind(fl), invalid.GetValue())
	case errors.As(err, &syntax):
		return usagef("malformed flag %q", syntax.GetSpecifiedFlag())
	}
	return usagef("malformed flags")
}

// dashCommand is the command line args with "--" before arg, the first
// argument that begins with "-" where c takes none: the flags after it
// (with their values) move before the "--", which would make them
// arguments too, and every argument keeps its place.
func dashCommand(c *cobra.Command, args []string, arg string) string {
	at := slices.Index(args, arg)
	if at < 0 {
		return c.CommandPath() + " -- " + quoteArgs([]string{arg})
	}
	line := append([]string{"plangit"}, args[:at]...)
	var after []string
	for i := at; i < len(args); i++ {
		a := args[i]
		fl := knownFlag(c, a)
		if a == arg || fl == nil {
			after = append(after, a)
			continue
		}
		line = append(line, a)
		if fl.NoOptDefVal == "" && !strings.Contains(a, "=") && i+1 < len(args) {
			i++
			line = append(line, args[i]) // its value
		}
	}
	return quoteArgs(append(append(line, "--"), after...))
}

// knownFlag is the flag of c that a names ("--name", "--name=value",
// "-x"), or nil.
func knownFlag(c *cobra.Command, a string) *pflag.Flag {
	switch {
	case strings.HasPrefix(a, "--") && len(a) > 2:
		name, _, _ := strings.Cut(a[2:], "=")
		return c.Flags().Lookup(name)
	case strings.HasPrefix(a, "-") && len(a) == 2:
		return c.Flags().ShorthandLookup(a[1:])
	}
	return nil
}

// acceptsArgs reports whether c takes positional arguments, which may then
// begin with a dash (a session id "-rf").
func acceptsArgs(c *cobra.Command) bool {
	use := strings.Fields(c.Use)
	return len(use) > 1 && !strings.HasPrefix(use[1], "-") && !c.HasSubCommands()
}

// flagNames lists the long flags c accepts, its parents' included.
func flagNames(c *cobra.Command) []string {
	var names []string
	add := func(fl *pflag.Flag) {
		if !fl.Hidden && !slices.Contains(names, fl.Name) {
			names = append(names, fl.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return names
}

func flagName(fl *pflag.Flag) string {
	if fl == nil {
		return "the flag"
	}
	if fl.Shorthand != "" {
		return "-" + fl.Shorthand + "/--" + fl.Name
	}
	return "--" + fl.Name
}

// valueKind says what a flag's value must be, for an error message.
func valueKind(fl *pflag.Flag) string {
	if fl == nil {
		return "another value"
	}
	switch fl.Value.Type() {
	case "int", "int64", "int32", "uint", "uint64":
		return "a whole number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 30s or 5m"
	}
	return "a " + fl.Value.Type()
}

// cobraCheck turns what cobra's own checks of a command line return —
// flags marked required, flag groups — into a usage error; any other
// error stays as it is.
func cobraCheck(err error) error {
	var e *plan.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	msg := err.Error()
	if names, ok := strings.CutPrefix(msg, "required flag(s) "); ok {
		names = strings.TrimSuffix(names, " not set")
		var flags []string
		for _, n := range strings.Split(names, ", ") {
			flags = append(flags, "--"+strings.Trim(n, `"`))
		}
		return usagef("%s required", strings.Join(flags, " and ")+map[bool]string{true: " is", false: " are"}[len(flags) == 1])
	}
	if strings.HasPrefix(msg, "if any flags in the group") || strings.HasPrefix(msg, "at least one of the flags in the group") {
		return usagef("%s", msg)
	}
	return err
}

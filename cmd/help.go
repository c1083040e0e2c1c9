package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

// newCmdHelp builds `plangit help [COMMAND]...`: cobra's own prints the
// root's usage and exits 0 on an unknown topic.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]...",
		Short: "Help about any command",
		Long:  "help prints a command's help: plangit help step done.",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			target, err := findCommand(c.Root(), args)
			if err != nil {
				return err
			}
			return target.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			parent, err := findCommand(c.Root(), args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range parent.Commands() {
				if (sub.IsAvailableCommand() || sub.Name() == "help") && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// findCommand follows words from root to the command they name, exactly
// (names and aliases, no prefixes).
func findCommand(root *cobra.Command, words []string) (*cobra.Command, error) {
	c := root
	for i, w := range words {
		var next *cobra.Command
		for _, sub := range c.Commands() {
			if sub.Name() == w || sub.HasAlias(w) {
				next = sub
				break
			}
		}
		if next == nil {
			topic := strings.Join(words[:i+1], " ")
			err := usagef("unknown help topic %q%s", topic, didYouMean(w, subcommandNames(c), "")).(*usageError)
			err.help = helpCommand(c)
			return nil, err
		}
		c = next
	}
	return c, nil
}

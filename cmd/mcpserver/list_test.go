package mcpserver_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// listBudget is what the whole tools/list answer may weigh, in bytes: the
// tools are in every request's context, so they stay cheap.
const listBudget = 6000

// TestListBudget measures, on the wire, the answers a host reads at every
// session start: tools/list under its budget, and the resource templates
// and the prompt within the same budget with it.
func TestListBudget(t *testing.T) {
	t.Parallel()
	r := startRaw(t, newProject(t))
	r.initialize()
	sizes := map[string]int{}
	for i, method := range []string{"tools/list", "resources/templates/list", "prompts/list"} {
		r.send(`{"jsonrpc":"2.0","id":` + string(rune('2'+i)) + `,"method":"` + method + `"}`)
		answer := r.recv()
		sizes[method] = len(answer)
		if method == "tools/list" {
			var res struct {
				Result struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(answer, &res); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Result.Tools {
				names = append(names, tool.Name)
			}
			want := []string{"deliverable", "error", "finding", "history", "import", "phase", "plan", "rollback", "show", "status", "step"}
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
		}
	}
	t.Logf("tools/list: %d bytes; resources/templates/list: %d; prompts/list: %d; all: %d (budget %d)",
		sizes["tools/list"], sizes["resources/templates/list"], sizes["prompts/list"],
		sizes["tools/list"]+sizes["resources/templates/list"]+sizes["prompts/list"], listBudget)
	if sizes["tools/list"] > listBudget {
		t.Errorf("tools/list is %d bytes, over its budget of %d", sizes["tools/list"], listBudget)
	}
	if all := sizes["tools/list"] + sizes["resources/templates/list"] + sizes["prompts/list"]; all > listBudget {
		t.Errorf("tools/list, resources/templates/list and prompts/list are %d bytes together, over the budget of %d", all, listBudget)
	}
}

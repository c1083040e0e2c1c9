package confedit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func parse(t *testing.T, src string) *Doc {
	t.Helper()
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return d
}

func TestSet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		path      []string
		value     any
		want      string
	}{
		{"an empty document", "", []string{"stop_mode"}, "advise", "{\n  \"stop_mode\": \"advise\"\n}\n"},
		{"an empty object on one line stays on one line", "{}", []string{"a"}, 1, "{\"a\":1}"},
		{"an empty object over lines", "{\n}", []string{"a"}, 1, "{\n  \"a\": 1\n}"},
		{"a new document, one item per line", "", []string{"a"}, 1, "{\n  \"a\": 1\n}\n"},
		{"a new key after the last", "{\n    \"a\": 1\n}\n", []string{"b"}, []string{"x", "y"}, "{\n    \"a\": 1,\n    \"b\": [\n        \"x\",\n        \"y\"\n    ]\n}\n"},
		{"a value replaced, nothing else", "{\n  \"a\": 1,  \"b\": 2 ,\n  \"c\": 3\n}", []string{"b"}, 20, "{\n  \"a\": 1,  \"b\": 20 ,\n  \"c\": 3\n}"},
		{"a one-line list kept on one line", "{\"tools\": [\"Read\"], \"n\": 1}", []string{"tools"}, []string{"Read", "Grep"}, "{\"tools\": [\"Read\", \"Grep\"], \"n\": 1}"},
		{"compact stays compact", "{\"a\":1}", []string{"b"}, map[string]int{"c": 2}, "{\"a\":1,\"b\":{\"c\":2}}"},
		{"spaced stays spaced", "{ \"a\": 1 }", []string{"b"}, map[string]int{"c": 2}, "{ \"a\": 1, \"b\": {\"c\": 2} }"},
		{"objects made on the way", "{\n  \"x\": true\n}", []string{"hooks", "Stop"}, false, "{\n  \"x\": true,\n  \"hooks\": {\n    \"Stop\": false\n  }\n}"},
		{"into a nested object", "{\n\t\"hooks\": {\n\t\t\"Stop\": true\n\t}\n}", []string{"hooks", "PreCompact"}, false, "{\n\t\"hooks\": {\n\t\t\"Stop\": true,\n\t\t\"PreCompact\": false\n\t}\n}"},
		{"into an empty nested object", "{\n  \"hooks\": {}\n}", []string{"hooks", "Stop"}, false, "{\n  \"hooks\": {\n    \"Stop\": false\n  }\n}"},
		{"keys with escapes", "{\"a\\\"b\": 1}", []string{"a\"b"}, 2, "{\"a\\\"b\": 2}"},
		{"no HTML escaping", "{\n}", []string{"cmd"}, "a && b <c>", "{\n  \"cmd\": \"a && b <c>\"\n}"},
		{"CRLF line ends kept", "{\r\n  \"a\": 1\r\n}\r\n", []string{"b"}, []int{1, 2}, "{\r\n  \"a\": 1,\r\n  \"b\": [\r\n    1,\r\n    2\r\n  ]\r\n}\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := parse(t, c.src)
			if err := d.Set(c.path, c.value); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestRemoveUndoesAdd: taking out what Set or Append added last gives back
// the document byte for byte, whatever its style.
func TestRemoveUndoesAdd(t *testing.T) {
	t.Parallel()
	docs := []string{
		"{\n  \"a\": 1\n}\n",
		"{\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}\n        ]\n    }\n}",
		"{\"hooks\":{\"Stop\":[{\"hooks\":[]}]},\"z\":[1,2]}",
		"{ \"hooks\": { \"Stop\": [ {\"hooks\": []} ] } }",
		"{\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": []}]\n\t}\n}",
		"{\r\n  \"a\": \"ü\\u00fc\",\r\n  \"hooks\": {\"Stop\": []}\r\n}",
	}
	group := map[string]any{"hooks": []map[string]any{{"type": "command", "command": "plangit hook Stop", "timeout": 30}}}
	for _, src := range docs {
		// A new member at the end of the top object.
		d := parse(t, src)
		if err := d.Set([]string{"zz"}, group); err != nil {
			t.Fatal(err)
		}
		root := d.Root()
		if err := d.Remove(root, root.Len()-1); err != nil {
			t.Fatal(err)
		}
		if string(d.Bytes()) != src {
			t.Errorf("set then remove a member:\n%q\nwant\n%q", d.Bytes(), src)
		}
		// A new element at the end of an array.
		d = parse(t, src)
		if d.Lookup("hooks", "Stop") == nil {
			continue
		}
		if err := d.Append([]string{"hooks", "Stop"}, group); err != nil {
			t.Fatal(err)
		}
		var check any
		if err := json.Unmarshal(d.Bytes(), &check); err != nil {
			t.Fatalf("invalid after append: %v\n%s", err, d.Bytes())
		}
		arr := d.Lookup("hooks", "Stop")
		if err := d.Remove(arr, arr.Len()-1); err != nil {
			t.Fatal(err)
		}
		if string(d.Bytes()) != src {
			t.Errorf("append then remove an element:\n%q\nwant\n%q", d.Bytes(), src)
		}
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		src  string
		i    int
		want string
	}{
		{"[1, 2, 3]", 0, "[2, 3]"},
		{"[1, 2, 3]", 1, "[1, 3]"},
		{"[1, 2, 3]", 2, "[1, 2]"},
		{"[ 1 ]", 0, "[]"},
		{"{\n  \"a\": 1,\n  \"b\": 2\n}", 0, "{\n  \"b\": 2\n}"},
		{"{\n  \"a\": 1,\n  \"b\": 2\n}", 1, "{\n  \"a\": 1\n}"},
	} {
		d := parse(t, c.src)
		if err := d.Remove(d.Root(), c.i); err != nil {
			t.Fatal(err)
		}
		if got := string(d.Bytes()); got != c.want {
			t.Errorf("remove %d of %q: %q, want %q", c.i, c.src, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"{", "{\"a\": }", "[1,]", "{} {}", "nul"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
	d := parse(t, `{"a": {"b": [1, "x", {"c": null}]}, "a": 2, "s": "q\"}"}`)
	if v := d.Lookup("a"); v == nil || string(d.Text(v)) != "2" {
		t.Error("a repeated key reads as its last")
	}
	if v := d.Lookup("s"); v == nil || string(d.Text(v)) != `"q\"}"` {
		t.Errorf("a string with an escaped quote and a brace: %q", d.Text(v))
	}
	var s string
	if err := d.Decode(d.Lookup("s"), &s); err != nil || s != `q"}` {
		t.Errorf("decode: %q %v", s, err)
	}
	if d.Lookup("a", "b") != nil {
		t.Error("a path through a number")
	}
	var all any
	json.Unmarshal(d.Bytes(), &all)
	if !reflect.DeepEqual(all.(map[string]any)["a"], 2.0) {
		t.Error(all)
	}
}

// TestJSONC: a document with comments (Gemini CLI's settings) is edited
// around them: its values are found and decoded as if the comments were
// not there, additions go in, and removing them gives the text back byte
// for byte, comments included. Parse, for strict JSON, refuses comments.
func TestJSONC(t *testing.T) {
	t.Parallel()
	src := "{\n  // the look\n  \"theme\": \"GitHub\", /* for now */\n  \"url\": \"http://x//y\", // not a comment inside a string\n  \"general\": { \"vimMode\": true } // last\n}\n"
	if _, err := Parse([]byte(src)); err == nil {
		t.Fatal("strict JSON accepted comments")
	}
	d, err := ParseJSONC([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var general map[string]bool
	if err := d.Decode(d.Lookup("general"), &general); err != nil || !general["vimMode"] {
		t.Fatalf("%v %v", general, err)
	}
	var url string
	if d.Decode(d.Lookup("url"), &url); url != "http://x//y" {
		t.Errorf("a string with // in it: %q", url)
	}
	if err := d.Set([]string{"hooks", "BeforeTool"}, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	var all map[string]any
	if err := d.Decode(d.Root(), &all); err != nil || all["hooks"] == nil || all["theme"] != "GitHub" {
		t.Fatalf("after the addition: %v %v\n%s", all, err, d.Bytes())
	}
	if !bytes.Contains(d.Bytes(), []byte("// the look")) || !bytes.Contains(d.Bytes(), []byte("/* for now */")) || !bytes.Contains(d.Bytes(), []byte("// last")) {
		t.Errorf("a comment went missing:\n%s", d.Bytes())
	}
	if err := d.Remove(d.Root(), len(d.Root().Members)-1); err != nil {
		t.Fatal(err)
	}
	if string(d.Bytes()) != src {
		t.Errorf("removing the addition:\n%s\nwant\n%s", d.Bytes(), src)
	}
	for _, bad := range []string{"{ /* open", "{\"a\": 1 // x }", "{\"a\": 1,}"} {
		if _, err := ParseJSONC([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestAddThenRemoveIsNoChange: an item added to an empty container and
// taken out again leaves the bytes that were there, however the container
// was written — but for blanks inside a nested empty container on one
// line, which come back as "{}".
func TestAddThenRemoveIsNoChange(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"{}", "{}\n", "{\n}\n", "{\n\n}\n", "{\r\n}\r\n", "[]", "{\"a\": 1, \"s\": {}}",
		"{\n  \"a\": 1,\n  \"s\": {}\n}\n", "{\n  \"s\": {},\n  \"b\": [1]\n}\n",
		"{\n  \"s\": {\n\n  }\n}\n", "{\n    \"s\": {   }\n}", "{\n  \"s\": {} // none yet\n}\n",
	} {
		parseAs := Parse
		if strings.Contains(src, "//") {
			parseAs = ParseJSONC
		}
		d, err := parseAs([]byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		c := d.Root()
		if s := d.Lookup("s"); s != nil {
			c = s
		}
		if c.Kind == '[' {
			err = d.Append(nil, map[string]string{"k": "v"})
		} else if c == d.Root() {
			err = d.Set([]string{"plangit"}, map[string]string{"k": "v"})
		} else {
			err = d.Set([]string{"s", "plangit"}, map[string]string{"k": "v"})
		}
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		added := string(d.Bytes())
		c = d.Root()
		if s := d.Lookup("s"); s != nil {
			c = s
		}
		if err := d.Remove(c, c.Len()-1); err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(src, "{   }", "{}", 1)
		if got := string(d.Bytes()); got != want {
			t.Errorf("add then remove in %q gave %q (added: %q)", src, got, added)
		}
	}
}

package states

// fileserialize.go is file.serialize: a data structure written as JSON or
// YAML through the file.managed machinery.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.serialize", Kwargs: true, Run: fileSerialize,
		Doc: "Serializes dataset and store it into managed file.",
		Params: []statemod.Param{statemod.Req("name"), p("dataset", nil), p("dataset_pillar", nil), p("user", nil),
			p("group", nil), p("mode", nil), p("backup", ""), p("makedirs", false), p("show_changes", true),
			p("create", true), p("merge_if_exists", false), p("encoding", nil), p("encoding_errors", "strict"),
			p("serializer", nil), p("serializer_opts", nil), p("deserializer_opts", nil)}})
}

func serializeData(format string, data any, unicode bool) (string, error) {
	switch format {
	case "json":
		return value.ToJSON(data, value.JSONOptions{Indent: 2, SortKeys: true, ItemSep: ",", KeySep: ": ", EnsureASCII: !unicode}), nil
	case "yaml":
		s, err := yamlload.Dump(data, yamlload.DumpOptions{DefaultFlowStyle: yamlload.FlowStyle(false), AllowUnicode: unicode,
			// salt.serializers.yaml represents OrderedDicts as dicts: sorted
			SortKeys: true, SortMap: func(*value.Map) bool { return true }})
		if err != nil {
			return "", err
		}
		s = strings.TrimSuffix(s, "\n...\n")
		return strings.TrimSuffix(s, "\n"), nil
	}
	return "", fmt.Errorf("unsupported serializer %s", format)
}

func fileSerialize(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", true)
	if name == "" {
		return fileErr(ret, "Must provide name to file.serialize")
	}
	if !c.Bool("create") && !isFile(name) {
		ret.Set("comment", fmt.Sprintf("File %s is not present and is not set for creation", name))
		return ret, nil
	}
	formatter := c.Get("formatter")
	serializer := c.Get("serializer")
	if value.Truthy(serializer) && value.Truthy(formatter) {
		return fileErr(ret, "Only one of serializer and formatter are allowed")
	}
	format := "yaml"
	if value.Truthy(serializer) {
		format = strings.ToLower(value.Str(serializer))
	} else if value.Truthy(formatter) {
		format = strings.ToLower(value.Str(formatter))
	}
	dataset, dsPillar := c.Get("dataset"), c.Get("dataset_pillar")
	if value.Truthy(dataset) && value.Truthy(dsPillar) {
		return fileErr(ret, "Only one of 'dataset' and 'dataset_pillar' is permitted")
	}
	if value.Truthy(dsPillar) {
		dataset, _ = value.Traverse(c.Pillar(), value.Str(dsPillar), ":")
	}
	if dataset == nil {
		return fileErr(ret, "Neither 'dataset' nor 'dataset_pillar' was defined")
	}
	if format != "json" && format != "yaml" {
		return value.MapOf("changes", value.NewMap(0),
			"comment", fmt.Sprintf("The %s serializer could not be found. It either does not exist or its prerequisites are not installed.", format),
			"name", name, "result", false), nil
	}
	var existing, merged *value.Map
	if c.Bool("merge_if_exists") && isFile(name) {
		old, err := readExisting(c, name, format)
		if err != nil {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Failed to deserialize existing data: %v", err))
			return ret, nil
		}
		if old != nil {
			em, ok := old.(*value.Map)
			dm, ok2 := dataset.(*value.Map)
			if !ok || !ok2 {
				return nil, errNonDictUpdate
			}
			existing, merged = em, value.DeepCopy(em).(*value.Map)
			mergeRecurse(merged, dm)
			if value.Equal(existing, merged) {
				ret.Set("comment", fmt.Sprintf("The file %s is in the correct state", name))
				return ret, nil
			}
			dataset = merged
		}
	}
	ret, err := serializeWrite(c, name, format, dataset, ret)
	if err != nil || existing == nil {
		return ret, err
	}
	// Salt replaces the text diff with the data's recursive diff.
	changes, _ := ret.Get("changes")
	if cm, ok := changes.(*value.Map); ok {
		cm.Set("diff", recursiveDiff(merged, existing))
	}
	return ret, nil
}

// serializeWrite writes (or, in test mode, compares) the serialized data.
func serializeWrite(c *statemod.Call, name, format string, dataset any, ret *value.Map) (*value.Map, error) {
	contents, err := serializeData(format, dataset, c.Get("encoding") != nil)
	if err != nil {
		return fileErr(ret, err.Error())
	}
	contents += "\n"
	mode := fileops.NormalizeMode(c.Get("mode"))
	user, group := c.Get("user"), c.Get("group")
	if c.Test {
		out, err := c.Salt("file.check_managed_changes", nil, value.MapOf("name", name, "source", nil,
			"source_hash", value.NewMap(0), "source_hash_name", nil, "user", user, "group", group, "mode", mode,
			"attrs", nil, "template", nil, "context", nil, "defaults", nil, "saltenv", c.Saltenv, "contents", contents,
			"skip_verify", false))
		if err != nil {
			return nil, err
		}
		if changes, _ := out.(*value.Map); changes != nil && changes.Len() > 0 {
			ret.Set("changes", changes)
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("Dataset will be serialized and stored into %s", name))
			if !c.Bool("show_changes") {
				changes.Set("diff", "<show_changes=False>")
			}
		} else {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("The file %s is in the correct state", name))
		}
		return ret, nil
	}
	return manageFile(c, name, []byte(contents), ret, user, group, mode, true)
}

// readExisting loads the file with the format's deserializer, as Salt
// reads it from an open file (YAML marks name the file). An empty YAML
// file is nil.
func readExisting(c *statemod.Call, name, format string) (any, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	v, err := c.Salt("slsutil.deserialize", []any{format, string(data)}, nil)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), `in "<unicode string>"`, `in "`+name+`"`)
		return nil, errors.New(msg)
	}
	return v, nil
}

// errNonDictUpdate is dictupdate.update's TypeError when the existing
// data (or the dataset) is not a mapping; Salt reports it as an
// exception of the state.
var errNonDictUpdate = nonDictUpdateError{}

type nonDictUpdateError struct{}

func (nonDictUpdateError) Error() string {
	return "TypeError: Cannot update using non-dict types in dictupdate.update()"
}

// PyTraceback is the exception as Salt's state comment shows it (the
// frames of Salt's own files are not reproduced).
func (nonDictUpdateError) PyTraceback() string {
	return "Traceback (most recent call last):\n  File \"salt/states/file.py\", in serialize\n" +
		"  File \"salt/utils/dictupdate.py\", in update\n" +
		"TypeError: Cannot update using non-dict types in dictupdate.update()\n"
}

// recursiveDiff is salt.utils.dictdiffer.recursive_diff(past, current).diffs
// with missing keys ignored: per key of current that is new or changed,
// {"new": ..., "old": ...} ("<_null_>" for an added key), nested for two
// mappings.
func recursiveDiff(current, past *value.Map) *value.Map {
	out := value.NewMap(0)
	current.Range(func(k, v any) bool {
		old, ok := past.Get(k)
		switch {
		case !ok:
			out.Set(k, value.MapOf("new", v, "old", "<_null_>"))
		case !value.Equal(v, old):
			vm, ok1 := v.(*value.Map)
			om, ok2 := old.(*value.Map)
			if ok1 && ok2 {
				if sub := recursiveDiff(vm, om); sub.Len() > 0 {
					out.Set(k, sub)
				}
			} else {
				out.Set(k, value.MapOf("new", v, "old", old))
			}
		}
		return true
	})
	return out
}

// mergeRecurse is salt.utils.dictupdate.merge_recurse (update in place).
func mergeRecurse(dst, src *value.Map) {
	src.Range(func(k, v any) bool {
		if sm, ok := v.(*value.Map); ok {
			if dm, ok := mapGetAny(dst, k).(*value.Map); ok {
				mergeRecurse(dm, sm)
				return true
			}
		}
		dst.Set(k, value.DeepCopy(v))
		return true
	})
}

func mapGetAny(m *value.Map, k any) any {
	v, _ := m.Get(k)
	return v
}

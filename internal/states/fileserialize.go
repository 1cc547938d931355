package states

// fileserialize.go is file.serialize: a data structure written as JSON or
// YAML through the file.managed machinery.

import (
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
		s, err := yamlload.Dump(data, yamlload.DumpOptions{DefaultFlowStyle: yamlload.FlowStyle(false), AllowUnicode: unicode})
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
	if c.Bool("merge_if_exists") && isFile(name) {
		data, err := os.ReadFile(name)
		if err == nil {
			var existing any
			if format == "json" {
				existing, err = value.FromJSON(data)
			} else {
				existing, err = yamlload.Load(data, name)
			}
			if err != nil {
				ret.Set("result", false)
				ret.Set("comment", fmt.Sprintf("Failed to deserialize existing data: %v", err))
				return ret, nil
			}
			if em, ok := existing.(*value.Map); ok {
				if dm, ok := dataset.(*value.Map); ok {
					merged := value.DeepCopy(em).(*value.Map)
					mergeRecurse(merged, dm)
					if value.Equal(em, merged) {
						ret.Set("comment", fmt.Sprintf("The file %s is in the correct state", name))
						return ret, nil
					}
					dataset = merged
				}
			}
		}
	}
	contents, err := serializeData(format, dataset, c.Get("encoding") != nil)
	if err != nil {
		return fileErr(ret, err.Error())
	}
	contents += "\n"
	mode := fileops.NormalizeMode(c.Get("mode"))
	user, group := c.Get("user"), c.Get("group")
	if c.Test {
		changes := checkFileMeta(name, []byte(contents), true, user, group, mode, false)
		if changes.Len() > 0 {
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
	return manageFile(c, name, []byte(contents), true, true, ret, user, group, mode, true)
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

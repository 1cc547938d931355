package states

// cron_file.go is salt/states/cron.py's cron.file: a user's whole crontab
// managed from a source file (salt://, a local path or a URL, optionally
// a template). As in Salt, the current crontab (cron.raw_cron) is copied
// to a temporary file, which file.managed's machinery brings to the
// source's content; when that changed the file, it is installed with
// cron.write_cron_file_verbose.

import (
	"fmt"
	"os"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "cron.file",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("source_hash", ""), statemod.Opt("source_hash_name", nil),
			statemod.Opt("user", "root"), statemod.Opt("template", nil), statemod.Opt("context", nil),
			statemod.Opt("replace", true), statemod.Opt("defaults", nil), statemod.Opt("backup", "")},
		Kwargs: true,
		Doc:    "Install a user's whole crontab from a source file (the state's name).",
		Run:    cronFile})
}

// cronUserGroup is user.info(user)["groups"][0].
func cronUserGroup(c *statemod.Call, user string) (any, bool) {
	info, err := c.Salt("user.info", []any{user}, nil)
	if err != nil {
		return nil, false
	}
	m, _ := info.(*value.Map)
	if m == nil {
		return nil, false
	}
	groups, _ := getv(m, "groups").(*value.List)
	if groups == nil || groups.Len() == 0 {
		return nil, false
	}
	return groups.Items[0], true
}

func cronFile(c *statemod.Call) (*value.Map, error) {
	name, user := c.Get("name"), c.Str("user")
	const mode = "0600"
	group, ok := cronUserGroup(c, user)
	if !ok {
		return value.MapOf("changes", value.NewMap(0), "comment", "Could not identify group for user "+user,
			"name", name, "result", false), nil
	}
	raw, err := c.Salt("cron.raw_cron", []any{user}, nil)
	if err != nil {
		return nil, err
	}
	tab := value.Str(raw)
	if len(tab) == 0 || tab[len(tab)-1] != '\n' {
		tab += "\n"
	}
	tmp, err := os.CreateTemp("", "__salt.tmp.")
	if err != nil {
		return nil, err
	}
	cronPath := tmp.Name()
	defer os.Remove(cronPath)
	_, err = tmp.WriteString(tab)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", true)
	// The copy always holds at least a newline, so, as in Salt, a false
	// replace never lets the source in.
	if !c.Bool("replace") {
		ret.Set("comment", fmt.Sprintf("User %s already has a crontab. No changes made", user))
		return ret, nil
	}
	// The file.managed machinery works on the temporary file with the
	// arguments Salt passes to file.get_managed and file.manage_file.
	fc := *c
	fc.Args = c.Args.Copy()
	for _, kv := range [][2]any{{"name", cronPath}, {"user", user}, {"group", group}, {"mode", mode},
		{"skip_verify", false}, {"show_changes", true}, {"makedirs", false}} {
		fc.Args.Set(kv[0], kv[1])
	}
	ctxMap, _ := c.Get("context").(*value.Map)
	defaults, _ := c.Get("defaults").(*value.Map)
	if c.Test {
		source, err := sourceList(&fc, name)
		if err != nil {
			return statemod.Ret(name, false, err.Error()), nil
		}
		want, comment := getManaged(&fc, source, c.Get("template"), ctxMap, defaults)
		if comment != "" {
			ret.Set("result", false)
			ret.Set("comment", comment)
			return ret, nil
		}
		// check_managed leaves out the owner and mode of a file in the
		// temporary directory.
		changes, err := checkFileMeta(&fc, cronPath, want, nil, nil, nil, true)
		if err != nil {
			return nil, err
		}
		if changes.Len() == 0 {
			ret.Set("comment", fmt.Sprintf("The file %s is in the correct state", cronPath))
			return ret, nil
		}
		text := "The following values are set to be changed:\n"
		changes.Range(func(k, v any) bool {
			text += fmt.Sprintf("%s: %s\n", value.Str(k), value.Str(v))
			return true
		})
		ret.Set("result", nil)
		ret.Set("comment", text)
		return ret, nil
	}
	source, err := sourceList(&fc, name)
	if err != nil {
		return value.MapOf("changes", value.NewMap(0), "comment", "Unable to manage file: "+err.Error(), "name", name, "result", false), nil
	}
	want, comment := getManaged(&fc, source, c.Get("template"), ctxMap, defaults)
	if comment != "" {
		ret.Set("comment", comment)
		ret.Set("result", false)
		return ret, nil
	}
	ret, err = manageFile(&fc, cronPath, want, ret, user, group, mode, true)
	if err != nil {
		return value.MapOf("changes", value.NewMap(0), "comment", "Unable to manage file: "+err.Error(), "name", name, "result", false), nil
	}
	changes, _ := getv(ret, "changes").(*value.Map)
	switch {
	case changes != nil && changes.Has("diff"):
		res, err := c.Salt("cron.write_cron_file_verbose", []any{user, cronPath}, nil)
		if err != nil {
			return nil, err
		}
		out, _ := res.(*value.Map)
		if out != nil && value.Equal(getv(out, "retcode"), int64(0)) {
			ret.Set("comment", fmt.Sprintf("Crontab for user %s was updated", user))
			ret.Set("result", true)
		} else {
			var stderr any
			if out != nil {
				stderr = getv(out, "stderr")
			}
			ret.Set("comment", fmt.Sprintf("Unable to update user %s crontab %s. Error: %s", user, cronPath, value.Str(stderr)))
			ret.Set("result", false)
			ret.Set("changes", value.NewMap(0))
		}
	case value.Truthy(getv(ret, "result")):
		ret.Set("comment", fmt.Sprintf("Crontab for user %s is in the correct state", user))
		ret.Set("changes", value.NewMap(0))
	}
	return ret, nil
}

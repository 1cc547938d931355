package states

// postgres_extension.go is salt/states/postgres_extension.py.

import (
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	conn := []statemod.Param{statemod.Opt("user", nil), statemod.Opt("maintenance_db", nil), statemod.Opt("db_user", nil),
		statemod.Opt("db_password", nil), statemod.Opt("db_host", nil), statemod.Opt("db_port", nil)}
	statemod.Register(&statemod.Function{Name: "postgres_extension.present", Run: pgExtensionPresent,
		Doc: "Ensure that the named extension is present (installed, upgraded or moved as asked).",
		Params: append([]statemod.Param{statemod.Req("name"), statemod.Opt("if_not_exists", nil), statemod.Opt("schema", nil),
			statemod.Opt("ext_version", nil), statemod.Opt("from_version", nil)}, conn...)})
	statemod.Register(&statemod.Function{Name: "postgres_extension.absent", Run: pgExtensionAbsent,
		Doc: "Ensure that the named extension is absent.",
		Params: append([]statemod.Param{statemod.Req("name"), statemod.Opt("if_exists", nil), statemod.Opt("restrict", nil),
			statemod.Opt("cascade", nil)}, conn...)})
}

func pgExtensionPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Extension "+name+" is already present")
	dbArgs := pgDBArgs(c)
	mdV, err := pgCall(c, "create_metadata", []any{name}, append([]any{"schema", c.Get("schema"), "ext_version", c.Get("ext_version")}, dbArgs...)...)
	if err != nil {
		return nil, err
	}
	has := func(flag string) bool {
		if l, ok := mdV.(*value.List); ok {
			for _, x := range l.Items {
				if x == flag {
					return true
				}
			}
		}
		return false
	}
	mode := "create"
	toInstall := has("EXTENSION NOT INSTALLED")
	if toInstall {
		mode = "install"
	}
	toUpgrade := false
	if has("EXTENSION INSTALLED") && (has("EXTENSION TO MOVE") || has("EXTENSION TO UPGRADE")) {
		toUpgrade, mode = true, "upgrade"
	}
	if !toInstall && !toUpgrade {
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", strings.ReplaceAll("Extension "+name+" is set to be "+mode+"ed", "eed", "ed"))
		return ret, nil
	}
	ok, err := pgBool(c, "create_extension", nil, append([]any{"name", name, "if_not_exists", c.Get("if_not_exists"), "schema", c.Get("schema"),
		"ext_version", c.Get("ext_version"), "from_version", c.Get("from_version")}, dbArgs...)...)
	if err != nil {
		return nil, err
	}
	if ok {
		suffix := "ed"
		if strings.HasSuffix(mode, "e") {
			suffix = "d"
		}
		ret.Set("comment", "The extension "+name+" has been "+mode+suffix)
		ret.Set("changes", value.MapOf(name, strings.ToUpper(mode[:1])+mode[1:]+suffix))
	} else {
		ret.Set("comment", "Failed to "+mode+" extension "+name)
		ret.Set("result", false)
	}
	return ret, nil
}

func pgExtensionAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	dbArgs := pgDBArgs(c)
	exists, err := pgBool(c, "is_installed_extension", []any{name}, dbArgs...)
	if err != nil {
		return nil, err
	}
	switch {
	case !exists:
		ret.Set("comment", "Extension "+name+" is not present, so it cannot be removed")
	case c.Test:
		ret.Set("result", nil)
		ret.Set("comment", "Extension "+name+" is set to be removed")
	default:
		ok, err := pgBool(c, "drop_extension", []any{name}, append([]any{"if_exists", c.Get("if_exists"), "restrict", c.Get("restrict"),
			"cascade", c.Get("cascade")}, dbArgs...)...)
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Extension "+name+" has been removed")
			ret.Set("changes", value.MapOf(name, "Absent"))
		} else {
			ret.Set("result", false)
			ret.Set("comment", "Extension "+name+" failed to be removed")
		}
	}
	return ret, nil
}

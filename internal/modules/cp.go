package modules

// cp.go is salt/modules/cp.py: reading files from the file server.

import (
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("cp.get_file_str", cpGetFileStr, "Return the contents of a salt:// file (or absolute path) as a string, False when missing.")
}

func cpGetFileStr(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_file_str", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", nil))
	if err != nil {
		return nil, err
	}
	saltenv := ctx.SaltenvOr("base")
	if value.Truthy(v[1]) {
		saltenv = execmod.String(v[1])
	}
	data, _, _, err := getURL(ctx, execmod.String(v[0]), saltenv)
	if err != nil {
		if _, ok := err.(*execmod.CommandExecutionError); ok {
			return nil, err
		}
		return false, nil
	}
	return string(data), nil
}

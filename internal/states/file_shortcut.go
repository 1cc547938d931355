package states

// file_shortcut.go is file.shortcut of salt/states/file.py. Shortcuts
// (.lnk and .url files) are a Windows feature made through its COM API;
// on every other platform Salt's state only warns about the deprecation
// (and about the "owner" spelling of user) and fails with a fixed
// comment, before looking at any of its arguments.

import (
	"log/slog"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.shortcut",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("target"), p("arguments", nil),
			p("working_dir", nil), p("description", nil), p("icon_location", nil), p("force", false),
			p("backupname", nil), p("makedirs", false), p("user", nil)},
		Kwargs: true,
		Doc:    "Manage a Windows shortcut (.lnk or .url); fails on other platforms.",
		Run:    fileShortcut})
}

func fileShortcut(c *statemod.Call) (*value.Map, error) {
	slog.Warn("This function is being deprecated in favor of 'shortcut.present'")
	if !c.Bool("user") && c.ExtraKwargs().Has("owner") {
		slog.Warn(`Use of argument owner found, "owner" is invalid, please use "user"`)
	}
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", "")
	return fileErr(ret, "Shortcuts are only supported on Windows")
}

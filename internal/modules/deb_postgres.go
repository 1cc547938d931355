package modules

// deb_postgres.go is salt/modules/deb_postgres.py: Debian's PostgreSQL
// cluster tools (pg_createcluster, pg_lsclusters, pg_dropcluster) behind
// the postgres.cluster_* functions.

import (
	"os/exec"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("postgres.cluster_create", pgClusterCreate, "Create a cluster with pg_createcluster; the command's result, or False.")
	execmod.Register("postgres.cluster_list", pgClusterList, "Return the clusters as version/name (verbose: with port, status, user, datadir and log).")
	execmod.Register("postgres.cluster_exists", pgClusterExists, "True when cluster version/name exists.")
	execmod.Register("postgres.cluster_remove", pgClusterRemove, "Drop a cluster with pg_dropcluster (stop: stop it first); the command's result.")
}

func pgTool(name string) string {
	p, _ := exec.LookPath(name)
	return p
}

func pgClusterCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("cluster_create", args, kwargs, execmod.Req("version"), execmod.Opt("name", "main"), execmod.Opt("port", nil),
		execmod.Opt("locale", nil), execmod.Opt("encoding", nil), execmod.Opt("datadir", nil), execmod.Opt("allow_group_access", nil),
		execmod.Opt("data_checksums", nil), execmod.Opt("wal_segsize", nil))
	if err != nil {
		return nil, err
	}
	cmd := []string{pgTool("pg_createcluster")}
	for _, o := range [][2]string{{"port", "--port"}, {"locale", "--locale"}, {"encoding", "--encoding"}, {"datadir", "--datadir"}} {
		if value.Truthy(m[o[0]]) {
			cmd = append(cmd, o[1], execmod.String(m[o[0]]))
		}
	}
	cmd = append(cmd, execmod.String(m["version"]), execmod.String(m["name"]))
	if value.Truthy(m["allow_group_access"]) || value.Truthy(m["data_checksums"]) || value.Truthy(m["wal_segsize"]) {
		cmd = append(cmd, "--")
	}
	if m["allow_group_access"] == true {
		cmd = append(cmd, "--allow-group-access")
	}
	if m["data_checksums"] == true {
		cmd = append(cmd, "--data-checksums")
	}
	if value.Truthy(m["wal_segsize"]) {
		cmd = append(cmd, "--wal-segsize", execmod.String(m["wal_segsize"]))
	}
	res, err := runArgv(ctx, "cmd.run_all", cmd)
	if err != nil {
		return nil, err
	}
	rm, _ := res.(*value.Map)
	if rm == nil || pgRC(rm) != 0 {
		return false, nil
	}
	return rm, nil
}

// pgClusters parses pg_lsclusters --no-header.
func pgClusters(ctx *execmod.Context) (*value.Map, error) {
	res, err := runArgv(ctx, "cmd.run_all", []string{pgTool("pg_lsclusters"), "--no-header"})
	if err != nil {
		return nil, err
	}
	rm, _ := res.(*value.Map)
	out := value.NewMap(0)
	for _, line := range strings.Split(execmod.String(cmdGet(rm, "stdout")), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 7 {
			return nil, &pgError{class: "ValueError", msg: "not enough values to unpack (expected 7, got " + strconv.Itoa(len(f)) + ")"}
		}
		port, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, &pgError{class: "ValueError", msg: "invalid literal for int() with base 10: '" + f[2] + "'"}
		}
		out.Set(f[0]+"/"+f[1], value.MapOf("port", int64(port), "status", f[3], "user", f[4], "datadir", f[5], "log", f[6]))
	}
	return out, nil
}

func pgClusterList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cluster_list", args, kwargs, execmod.Opt("verbose", false))
	if err != nil {
		return nil, err
	}
	cl, err := pgClusters(ctx)
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[0]) {
		return cl, nil
	}
	return value.NewList(cl.Keys()...), nil
}

func pgClusterExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cluster_exists", args, kwargs, execmod.Req("version"), execmod.Opt("name", "main"))
	if err != nil {
		return nil, err
	}
	cl, err := pgClusters(ctx)
	if err != nil {
		return nil, err
	}
	return cl.Has(execmod.String(v[0]) + "/" + execmod.String(v[1])), nil
}

func pgClusterRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("cluster_remove", args, kwargs, execmod.Req("version"), execmod.Opt("name", "main"), execmod.Opt("stop", false))
	if err != nil {
		return nil, err
	}
	cmd := []string{pgTool("pg_dropcluster")}
	if value.Truthy(v[2]) {
		cmd = append(cmd, "--stop")
	}
	version, name := execmod.String(v[0]), execmod.String(v[1])
	res, err := runArgv(ctx, "cmd.run_all", append(cmd, version, name))
	if err != nil {
		return nil, err
	}
	rm, _ := res.(*value.Map)
	if rm != nil && pgRC(rm) == 0 {
		rm.Set("changes", "Successfully removed cluster "+version+"/"+name)
	}
	return rm, nil
}

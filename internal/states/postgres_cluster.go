package states

// postgres_cluster.go is salt/states/postgres_cluster.py: Debian
// PostgreSQL clusters through the postgres.cluster_* functions.

import (
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "postgres_cluster.present", Run: pgClusterPresent,
		Doc: "Ensure that the named cluster (version/name) is present.",
		Params: []statemod.Param{statemod.Req("version"), statemod.Req("name"), statemod.Opt("port", nil), statemod.Opt("encoding", nil),
			statemod.Opt("locale", nil), statemod.Opt("datadir", nil), statemod.Opt("allow_group_access", nil),
			statemod.Opt("data_checksums", nil), statemod.Opt("wal_segsize", nil)}})
	statemod.Register(&statemod.Function{Name: "postgres_cluster.absent", Run: pgClusterAbsent,
		Doc: "Ensure that the named cluster (version/name) is absent.", Params: []statemod.Param{statemod.Req("version"), statemod.Req("name")}})
}

func pgClusterPresent(c *statemod.Call) (*value.Map, error) {
	id := c.Str("version") + "/" + c.Name()
	ret := statemod.Ret(c.Get("name"), true, "Cluster "+id+" is already present")
	exists, err := pgBool(c, "cluster_exists", []any{c.Get("version"), c.Get("name")})
	if err != nil {
		return nil, err
	}
	if exists {
		infos, err := pgCall(c, "cluster_list", nil, "verbose", true)
		if err != nil {
			return nil, err
		}
		var info *value.Map
		if m, ok := infos.(*value.Map); ok {
			v, _ := m.Get(id)
			info, _ = v.(*value.Map)
		}
		if info == nil {
			return nil, execmod.Errorf("KeyError: '%s'", id)
		}
		port, _ := info.Get("port")
		datadir, _ := info.Get("datadir")
		if (value.Truthy(c.Get("port")) && !value.Equal(c.Get("port"), port)) ||
			(value.Truthy(c.Get("datadir")) && !value.Equal(c.Get("datadir"), datadir)) {
			ret.Set("comment", "Cluster "+id+" has wrong parameters which couldn't be changed on fly.")
			ret.Set("result", false)
		}
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Cluster "+id+" is set to be created")
		return ret, nil
	}
	ok, err := pgBool(c, "cluster_create", nil, "version", c.Get("version"), "name", c.Get("name"), "port", c.Get("port"),
		"locale", c.Get("locale"), "encoding", c.Get("encoding"), "datadir", c.Get("datadir"), "allow_group_access", c.Get("allow_group_access"),
		"data_checksums", c.Get("data_checksums"), "wal_segsize", c.Get("wal_segsize"))
	if err != nil {
		return nil, err
	}
	if ok {
		ret.Set("comment", "The cluster "+id+" has been created")
		ret.Set("changes", value.MapOf(id, "Present"))
	} else {
		ret.Set("comment", "Failed to create cluster "+id)
		ret.Set("result", false)
	}
	return ret, nil
}

func pgClusterAbsent(c *statemod.Call) (*value.Map, error) {
	id := c.Str("version") + "/" + c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	exists, err := pgBool(c, "cluster_exists", []any{c.Get("version"), c.Get("name")})
	if err != nil {
		return nil, err
	}
	if exists {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Cluster "+id+" is set to be removed")
			return ret, nil
		}
		ok, err := pgBool(c, "cluster_remove", []any{c.Get("version"), c.Get("name"), true})
		if err != nil {
			return nil, err
		}
		if ok {
			ret.Set("comment", "Cluster "+id+" has been removed")
			ret.Set("changes", value.MapOf(c.Name(), "Absent"))
			return ret, nil
		}
	}
	ret.Set("comment", "Cluster "+id+" is not present, so it cannot be removed")
	return ret, nil
}

package modules

// cron.go is salt/modules/cron.py: reading and editing a user's crontab
// through crontab(1), the managed part below Salt's tag line (the parsing
// and editing live in internal/system/crontab, shared with the cron states).

import (
	"fmt"
	"log/slog"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/crontab"
	"brine/internal/value"
)

func init() {
	execmod.Register("cron.raw_cron", cronRawCron, "Return the text of the user's crontab.")
	execmod.Register("cron.list_tab", cronListTab, "Return the user's crontab as {'pre', 'crons', 'special', 'env'}.")
	execmod.Register("cron.ls", cronListTab, "Alias of cron.list_tab.")
	execmod.Register("cron.get_entry", cronGetEntry, "Return the job of the user's crontab with identifier (else cmd), or False.")
	execmod.Register("cron.set_job", cronSetJob, "Add or update a timed job: 'present', 'new' or 'updated' (crontab's error text on failure).")
	execmod.Register("cron.set_special", cronSetSpecial, "Add or update a @special job: 'present', 'new' or 'updated'.")
	execmod.Register("cron.rm_job", cronRmJob, "Remove a timed job (only when the time fields given match): 'removed' or 'absent'.")
	execmod.Register("cron.rm", cronRmJob, "Alias of cron.rm_job.")
	execmod.Register("cron.rm_special", cronRmSpecial, "Remove a @special job: 'removed' or 'absent'.")
	execmod.Register("cron.set_env", cronSetEnv, "Set an environment variable in the crontab: 'present', 'new' or 'updated'.")
	execmod.Register("cron.rm_env", cronRmEnv, "Remove an environment variable from the crontab: 'removed' or 'absent'.")
	execmod.Register("cron.write_cron_file", cronWriteFile, "Install the file at path as the user's crontab; True on success.")
	execmod.Register("cron.write_cron_file_verbose", cronWriteFileVerbose, "Install the file at path as the user's crontab; crontab's cmd.run_all result.")
}

// cronStore is the run's crontab Store (a test attaches its own), else
// crontab(1).
func cronStore(ctx *execmod.Context) crontab.Store {
	if s, ok := ctx.Service(crontab.Service).(crontab.Store); ok {
		return s
	}
	return crontab.Cmd{Runner: system.Exec{}}
}

func cronRead(ctx *execmod.Context, user string) (*crontab.Tab, error) {
	data, err := cronStore(ctx).Read(user)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return crontab.Parse(data), nil
}

// cronCommit writes t back: the status on success, crontab's error text
// (Salt returns the stderr) on failure.
func cronCommit(ctx *execmod.Context, user string, t *crontab.Tab, status string) any {
	if err := cronStore(ctx).Write(user, t.Render()); err != nil {
		return err.Error()
	}
	return status
}

func cronOptStr(v any) *string {
	if v == nil {
		return nil
	}
	return crontab.Str(execmod.String(v))
}

func strOrNone(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func cronEntryMap(e *crontab.Entry) *value.Map {
	if e.Spec != "" {
		return value.MapOf("spec", e.Spec, "cmd", e.Cmd, "identifier", strOrNone(e.Identifier),
			"comment", strOrNone(e.Comment), "commented", e.Commented)
	}
	return value.MapOf("minute", e.Minute, "hour", e.Hour, "daymonth", e.Daymonth, "month", e.Month,
		"dayweek", e.Dayweek, "identifier", strOrNone(e.Identifier), "cmd", e.Cmd,
		"comment", strOrNone(e.Comment), "commented", e.Commented)
}

func cronRawCron(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("raw_cron", args, kwargs, execmod.Req("user"))
	if err != nil {
		return nil, err
	}
	data, err := cronStore(ctx).Read(execmod.String(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return data, nil
}

func cronListTab(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_tab", args, kwargs, execmod.Req("user"))
	if err != nil {
		return nil, err
	}
	t, err := cronRead(ctx, execmod.String(v[0]))
	if err != nil {
		return nil, err
	}
	pre, crons, special, env := value.NewList(), value.NewList(), value.NewList(), value.NewList()
	for _, p := range t.Pre {
		pre.Append(p)
	}
	for _, e := range t.Crons {
		crons.Append(cronEntryMap(e))
	}
	for _, e := range t.Special {
		special.Append(cronEntryMap(e))
	}
	for _, e := range t.Env {
		env.Append(value.MapOf("name", e.Name, "value", e.Value))
	}
	return value.MapOf("pre", pre, "crons", crons, "special", special, "env", env), nil
}

func cronGetEntry(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_entry", args, kwargs, execmod.Req("user"), execmod.Opt("identifier", nil), execmod.Opt("cmd", nil))
	if err != nil {
		return nil, err
	}
	id, cmd := cronOptStr(v[1]), cronOptStr(v[2])
	if !value.Truthy(v[1]) {
		id = nil
	}
	if !value.Truthy(v[2]) {
		cmd = nil
	}
	if id != nil && cmd != nil {
		slog.Warn("Both identifier and cmd are specified. Only using identifier.")
		cmd = nil
	}
	t, err := cronRead(ctx, execmod.String(v[0]))
	if err != nil {
		return nil, err
	}
	for _, e := range append(append([]*crontab.Entry(nil), t.Crons...), t.Special...) {
		if id != nil && e.Identifier != nil && *e.Identifier == *id || cmd != nil && e.Cmd == *cmd {
			return cronEntryMap(e), nil
		}
	}
	return false, nil
}

func cronIDArg(v any) string {
	if !value.Truthy(v) {
		return ""
	}
	return execmod.String(v)
}

func cronSetJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := []execmod.Param{execmod.Req("user")}
	for _, f := range crontab.Fields {
		params = append(params, execmod.Req(f))
	}
	params = append(params, execmod.Req("cmd"), execmod.Opt("commented", false), execmod.Opt("comment", nil), execmod.Opt("identifier", nil))
	v, _, err := execmod.Bind("set_job", args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	w := crontab.Want{Cmd: execmod.String(v[6]), Commented: v[7] == true, Comment: cronOptStr(v[8]), Identifier: cronIDArg(v[9])}
	for i := range crontab.Fields {
		w.Times[i] = crontab.Str(strings.ToLower(value.Str(v[1+i])))
	}
	return cronSet(ctx, execmod.String(v[0]), w)
}

func cronSetSpecial(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_special", args, kwargs, execmod.Req("user"), execmod.Req("special"), execmod.Req("cmd"),
		execmod.Opt("commented", false), execmod.Opt("comment", nil), execmod.Opt("identifier", nil))
	if err != nil {
		return nil, err
	}
	w := crontab.Want{Special: execmod.String(v[1]), Cmd: execmod.String(v[2]), Commented: v[3] == true,
		Comment: cronOptStr(v[4]), Identifier: cronIDArg(v[5])}
	return cronSet(ctx, execmod.String(v[0]), w)
}

func cronSet(ctx *execmod.Context, user string, w crontab.Want) (any, error) {
	t, err := cronRead(ctx, user)
	if err != nil {
		return nil, err
	}
	status := crontab.Set(t, w)
	if status == "present" {
		return status, nil
	}
	return cronCommit(ctx, user, t, status), nil
}

func cronRmJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := []execmod.Param{execmod.Req("user"), execmod.Req("cmd")}
	for _, f := range crontab.Fields {
		params = append(params, execmod.Opt(f, nil))
	}
	v, _, err := execmod.Bind("rm_job", args, kwargs, append(params, execmod.Opt("identifier", nil))...)
	if err != nil {
		return nil, err
	}
	user := execmod.String(v[0])
	var times [5]*string
	for i := range times {
		if v[2+i] != nil {
			times[i] = crontab.Str(value.Str(v[2+i]))
		}
	}
	t, err := cronRead(ctx, user)
	if err != nil {
		return nil, err
	}
	if !crontab.RmJob(t, execmod.String(v[1]), cronIDArg(v[7]), times) {
		return "absent", nil
	}
	return cronCommit(ctx, user, t, "removed"), nil
}

func cronRmSpecial(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_special", args, kwargs, execmod.Req("user"), execmod.Req("cmd"),
		execmod.Opt("special", nil), execmod.Opt("identifier", nil))
	if err != nil {
		return nil, err
	}
	return cronRemove(ctx, execmod.String(v[0]), func(t *crontab.Tab) bool {
		return crontab.RmSpecial(t, execmod.String(v[1]), execmod.String(v[2]), cronIDArg(v[3]))
	})
}

// cronRemove applies remove to the user's crontab and writes it back
// (also when nothing was removed, as Salt's rm_special and rm_env do):
// 'removed' or 'absent'.
func cronRemove(ctx *execmod.Context, user string, remove func(*crontab.Tab) bool) (any, error) {
	t, err := cronRead(ctx, user)
	if err != nil {
		return nil, err
	}
	status := "absent"
	if remove(t) {
		status = "removed"
	}
	return cronCommit(ctx, user, t, status), nil
}

func cronSetEnv(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_env", args, kwargs, execmod.Req("user"), execmod.Req("name"), execmod.Opt("value", nil))
	if err != nil {
		return nil, err
	}
	user := execmod.String(v[0])
	t, err := cronRead(ctx, user)
	if err != nil {
		return nil, err
	}
	status := crontab.SetEnv(t, execmod.String(v[1]), execmod.String(v[2]))
	if status == "present" {
		return status, nil
	}
	return cronCommit(ctx, user, t, status), nil
}

func cronRmEnv(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_env", args, kwargs, execmod.Req("user"), execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	return cronRemove(ctx, execmod.String(v[0]), func(t *crontab.Tab) bool { return crontab.RmEnv(t, execmod.String(v[1])) })
}

// cronInstall runs crontab(1) on path for user through cmd.run_all, as
// Salt's write_cron_file does.
func cronInstall(ctx *execmod.Context, fun string, args []any, kwargs *value.Map) (*value.Map, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("user"), execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	argv := append([]string{"crontab"}, crontab.Args(execmod.String(v[0]), execmod.String(v[1]))...)
	res, err := runArgv(ctx, "cmd.run_all", argv)
	if err != nil {
		return nil, err
	}
	m, ok := res.(*value.Map)
	if !ok {
		return nil, execmod.Errorf("%s", fmt.Sprint(res))
	}
	return m, nil
}

func cronWriteFile(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := cronInstall(ctx, "write_cron_file", args, kwargs)
	if err != nil {
		return nil, err
	}
	rc, _ := m.GetString("retcode")
	return value.Equal(rc, int64(0)), nil
}

func cronWriteFileVerbose(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return cronInstall(ctx, "write_cron_file_verbose", args, kwargs)
}

package modules

// at.go is salt/modules/at.py on Linux: one-off jobs through at(1),
// atq(1) and at -d, with Salt's job tags (a "### SALT: <tag>" line that
// at.at puts above the command and atq reads back from at -c).

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"atq":      {atAtq, "List the queued jobs ({'jobs': [...]}), only those whose tag (or job number) is tag when given."},
		"atrm":     {atAtrm, "Remove jobs by number, or 'all' (optionally only those tagged with the second argument)."},
		"at":       {atAt, "Queue a job: at.at <timespec> <cmd> [tag=...] [runas=...]; returns the new job as at.atq does."},
		"atc":      {atAtc, "Return the script at(1) will run for jobid."},
		"jobcheck": {atJobcheck, "List the jobs matching runas, tag, hour, minute, day, month and year."},
	} {
		execmod.Register("at."+name, atAvailable("at."+name, f.fn), f.doc)
	}
}

// atAvailable is Salt's __virtual__: the module needs at(1).
func atAvailable(name string, f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if !hasCmd("at") {
			return nil, &execmod.CommandExecutionError{Msg: "'" + name + "' is not available."}
		}
		return f(ctx, args, kwargs)
	}
}

// atTagLine is the comment at.at writes above a tagged job's command.
var atTagLine = regexp.MustCompile(`^### SALT: ([\p{L}\p{N}_]+)`)

// atBin is the full path of an at(1) command, as Salt runs it.
func atBin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// atOut runs at(1) (or atq) through cmd.run_stdout, as Salt's _cmd does.
func atOut(ctx *execmod.Context, argv ...string) (string, error) {
	argv[0] = atBin(argv[0])
	out, err := runArgv(ctx, "cmd.run_stdout", argv)
	if err != nil {
		return "", err
	}
	return execmod.String(out), nil
}

// atJob is one line of atq with the tag found in its script.
type atJob struct {
	job                          int64
	date, time, queue, user, tag string
}

func (j atJob) toMap() *value.Map {
	return value.MapOf("job", j.job, "date", j.date, "time", j.time, "queue", j.queue, "user", j.user, "tag", j.tag)
}

// atList reads atq; each job's tag comes from at -c (the last tag line).
func atList(ctx *execmod.Context) ([]atJob, error) {
	out, err := atOut(ctx, "atq")
	if err != nil || out == "" {
		return nil, err
	}
	var jobs []atJob
	for _, line := range strings.Split(out, "\n") {
		id, spec, ok := strings.Cut(line, "\t")
		f := strings.Fields(spec)
		if !ok || len(f) < 7 {
			return nil, execmod.Errorf("unexpected atq output: %q", line)
		}
		// Salt keeps the minutes of the run time (seconds are dropped).
		at, err := time.Parse("Mon Jan 2 15:04:05 2006", strings.Join(f[:5], " "))
		if err != nil {
			return nil, execmod.Errorf("unexpected atq time %q", strings.Join(f[:5], " "))
		}
		n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
		if err != nil {
			return nil, &pyValueError{msg: "invalid literal for int() with base 10: " + value.Repr(id)}
		}
		script, err := atOut(ctx, "at", "-c", id)
		if err != nil {
			return nil, err
		}
		j := atJob{job: n, date: at.Format("2006-01-02"), time: at.Format("15:04") + ":00", queue: f[5], user: f[6]}
		for _, l := range strings.Split(script, "\n") {
			if m := atTagLine.FindStringSubmatch(l); m != nil {
				j.tag = m[1]
			}
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

func atJobList(jobs []atJob) *value.List {
	l := value.NewList()
	for _, j := range jobs {
		l.Append(j.toMap())
	}
	return l
}

// atSelect keeps the jobs whose tag is tag, or whose number is tag when
// tag is an integer (Salt compares with ==, so "3" never matches job 3).
func atSelect(jobs []atJob, tag any) []atJob {
	if !value.Truthy(tag) {
		return jobs
	}
	var out []atJob
	for _, j := range jobs {
		if s, ok := tag.(string); ok && s == j.tag || value.IsNumber(tag) && value.Equal(tag, j.job) {
			out = append(out, j)
		}
	}
	return out
}

func atAtq(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("atq", args, kwargs, execmod.Opt("tag", nil))
	if err != nil {
		return nil, err
	}
	jobs, err := atList(ctx)
	if err != nil {
		return nil, err
	}
	return value.MapOf("jobs", atJobList(atSelect(jobs, v[0]))), nil
}

// atAtrm removes the selected jobs with one at -d. Salt joins the job
// numbers into a single argument, which at(1) rejects when there are
// several; brine passes them as separate arguments so all are removed,
// and returns what Salt returns.
func atAtrm(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 {
		return value.MapOf("jobs", value.MapOf("removed", value.NewList(), "tag", nil)), nil
	}
	strs := make([]string, len(args))
	for i, a := range args {
		strs[i] = value.Str(a)
	}
	jobs, err := atList(ctx)
	if err != nil {
		return nil, err
	}
	var tag any
	var picked []string
	switch {
	case strs[0] == "all" && len(strs) > 1:
		tag = strs[1]
		for _, j := range atSelect(jobs, strs[1]) {
			picked = append(picked, strconv.FormatInt(j.job, 10))
		}
	case strs[0] == "all":
		for _, j := range jobs {
			picked = append(picked, strconv.FormatInt(j.job, 10))
		}
	default:
		want := map[string]bool{}
		for _, s := range strs {
			want[s] = true
		}
		for _, j := range jobs {
			if id := strconv.FormatInt(j.job, 10); want[id] {
				picked = append(picked, id)
			}
		}
	}
	if len(picked) > 0 {
		if _, err := atOut(ctx, append([]string{"at", "-d"}, picked...)...); err != nil {
			return nil, err
		}
	}
	return value.MapOf("jobs", value.MapOf("removed", strList(picked), "tag", tag)), nil
}

func atAt(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) < 2 {
		return value.MapOf("jobs", value.NewList()), nil
	}
	words := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		words = append(words, value.Str(a))
	}
	stdin := strings.Join(words, " ")
	if tag, ok := kwargs.Get("tag"); ok {
		stdin = "### SALT: " + value.Str(tag) + "\n" + stdin
	}
	kw := []any{"stdin", stdin}
	if runas, ok := kwargs.Get("runas"); ok {
		kw = append(kw, "runas", runas)
	}
	res, err := runArgv(ctx, "cmd.run", []string{atBin("at"), value.Str(args[0])}, kw...)
	if err != nil {
		return nil, err
	}
	out := execmod.String(res)
	if strings.HasSuffix(out, "Garbled time") {
		return value.MapOf("jobs", value.NewList(), "error", "invalid timespec"), nil
	}
	// at(1) says which shell runs the job, then "job N at <time>".
	for _, prefix := range []string{"warning: commands", "commands will be executed"} {
		if strings.HasPrefix(out, prefix) {
			if lines := strings.Split(out, "\n"); len(lines) > 1 {
				out = lines[1]
			}
		}
	}
	f := strings.Fields(out)
	if len(f) < 2 {
		return nil, execmod.Errorf("unexpected output of at: %q", out)
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return nil, &pyValueError{msg: "invalid literal for int() with base 10: " + value.Repr(f[1])}
	}
	jobs, err := atList(ctx)
	if err != nil {
		return nil, err
	}
	return value.MapOf("jobs", atJobList(atSelect(jobs, n))), nil
}

func atAtc(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("atc", args, kwargs, execmod.Req("jobid"))
	if err != nil {
		return nil, err
	}
	out, err := atOut(ctx, "at", "-c", value.Str(v[0]))
	if err != nil {
		return nil, err
	}
	if out == "" {
		return value.MapOf("error", fmt.Sprintf("invalid job id '%s'", value.Str(v[0]))), nil
	}
	return out, nil
}

// atJobcheck takes only keyword arguments; from the command line these
// include Salt's __pub_* data, so a bare call lists every job, as in Salt.
func atJobcheck(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) > 0 {
		return nil, execmod.TooManyPositional("jobcheck", 0, 0, len(args))
	}
	if kwargs.Len() == 0 {
		return value.MapOf("error", "You have given a condition"), nil
	}
	jobs, err := atList(ctx)
	if err != nil {
		return nil, err
	}
	get := func(k string) any { v, _ := kwargs.Get(k); return v }
	year := get("year")
	if value.Truthy(year) && len(value.Str(year)) == 2 {
		year = "20" + value.Str(year)
	}
	var out []atJob
	for _, j := range jobs {
		if r := get("runas"); value.Truthy(r) && !value.Equal(r, j.user) {
			continue
		}
		if tg := get("tag"); value.Truthy(tg) && !value.Equal(tg, j.tag) {
			continue
		}
		date := strings.Split(j.date, "-")
		clock := strings.Split(j.time, ":")
		ok := true
		for _, c := range []struct {
			key string
			got string
		}{{"hour", clock[0]}, {"minute", clock[1]}, {"day", date[2]}, {"month", date[1]}} {
			want := get(c.key)
			if !value.Truthy(want) {
				continue
			}
			n, err := pyInt(want)
			if err != nil {
				return nil, err
			}
			if fmt.Sprintf("%02d", n) != c.got {
				ok = false
				break
			}
		}
		if ok && value.Truthy(year) && !value.Equal(year, date[0]) {
			ok = false
		}
		if ok {
			out = append(out, j)
		}
	}
	if len(out) == 0 {
		return value.MapOf("jobs", value.NewList(), "note", "No match jobs or time format error"), nil
	}
	return value.MapOf("jobs", atJobList(out)), nil
}

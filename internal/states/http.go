package states

// http.go is salt/states/http.py: http.query checks an HTTP answer's
// text (match) and status, through the http.query execution function;
// http.wait_for_successful_query repeats that check until it passes or
// wait_for seconds have gone by.

import (
	"fmt"
	"strings"
	"time"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "http.query",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("match", nil), statemod.Opt("match_type", "string"),
			statemod.Opt("status", nil), statemod.Opt("status_type", "string"), statemod.Opt("wait_for", nil)},
		Kwargs: true,
		Doc:    "Check that an HTTP query's text matches (match) or its status is the one expected (status).",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return httpQueryState(c, c.Args.Copy())
		}})
	statemod.Register(&statemod.Function{Name: "http.wait_for_successful_query",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("wait_for", int64(300))}, Kwargs: true,
		Doc: "Repeat http.query's check until it passes or wait_for seconds have gone by.",
		Run: httpWaitState})
}

// httpQueryState is the query state with its arguments in args (name,
// match, match_type, status, status_type, wait_for and the keywords
// passed on to the execution function).
func httpQueryState(c *statemod.Call, args *value.Map) (*value.Map, error) {
	pop := func(k string, def any) any {
		if v, ok := args.Delete(k); ok {
			return v
		}
		return def
	}
	name := pop("name", nil)
	match, matchType := pop("match", nil), value.Str(pop("match_type", "string"))
	status, statusType := pop("status", nil), value.Str(pop("status_type", "string"))
	waitFor := pop("wait_for", nil)
	ret := value.MapOf("name", name, "result", nil, "comment", "", "changes", value.NewMap(0), "data", value.NewMap(0))
	if match == nil && status == nil {
		ret.Set("result", false)
		ret.Set("comment", " Either match text (match) or a status code (status) is required.")
		return ret, nil
	}
	if !args.Has("decode") {
		args.Set("decode", false)
	}
	args.Set("text", true)
	args.Set("status", true)
	if c.Test {
		args.Set("test", true)
	}
	var res any
	var err error
	if value.Truthy(waitFor) {
		args.Set("wait_for", waitFor)
		res, err = c.Salt("http.wait_for_successful_query", []any{name}, args)
	} else {
		res, err = c.Salt("http.query", []any{name}, args)
	}
	if err != nil {
		return nil, err
	}
	data, _ := res.(*value.Map)
	if data == nil {
		data = value.NewMap(0)
	}
	field := func(k string) string {
		if v, ok := data.Get(k); ok {
			return value.Str(v)
		}
		return ""
	}
	var comment strings.Builder
	var result any
	search := func(pat, s string) (bool, error) {
		re, err := fileops.PyRegexp(pat, int64(0))
		if err != nil {
			return false, err
		}
		return re.MatchString(s), nil
	}
	if match != nil {
		m := value.Str(match)
		switch matchType {
		case "string":
			result = strings.Contains(field("text"), m)
			fmt.Fprintf(&comment, " Match text \"%s\" was %s.", m, foundWord(result == true))
		case "pcre":
			ok, err := search(m, field("text"))
			if err != nil {
				return nil, err
			}
			result = ok
			fmt.Fprintf(&comment, " Match pattern \"%s\" was %s.", m, foundWord(ok))
		}
	}
	if status != nil {
		got := field("status")
		switch statusType {
		case "list":
			l, _ := status.(*value.List)
			if l == nil {
				l = value.NewList()
			}
			for _, s := range l.Items {
				if got == value.Str(s) {
					fmt.Fprintf(&comment, " Status %s was found.", value.Str(s))
					if result == nil {
						result = true
					}
				}
			}
			if result != true {
				fmt.Fprintf(&comment, " Statuses %s were not found.", value.Str(status))
				result = false
			}
		case "pcre":
			ok, err := search(value.Str(status), got)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&comment, " Status pattern \"%s\" was %s.", value.Str(status), foundWord(ok))
			if !ok {
				result = false
			} else if result == nil {
				result = true
			}
		case "string":
			if got == value.Str(status) {
				fmt.Fprintf(&comment, " Status %s was found.", value.Str(status))
				if result == nil {
					result = true
				}
			} else {
				fmt.Fprintf(&comment, " Status %s was not found.", value.Str(status))
				result = false
			}
		}
	}
	text := strings.TrimSpace(comment.String())
	if c.Test {
		result = nil
		text += " (TEST MODE"
		if u, ok := args.Get("test_url"); ok {
			text += ", TEST URL WAS: " + value.Str(u)
		}
		text += ")"
	}
	ret.Set("result", result)
	ret.Set("comment", text)
	ret.Set("data", data)
	return ret, nil
}

// foundWord is "found" or "not found".
func foundWord(ok bool) string {
	if ok {
		return "found"
	}
	return "not found"
}

// httpWaitState is wait_for_successful_query: query until its result is
// true; after wait_for seconds the last result (or its error) stands.
func httpWaitState(c *statemod.Call) (*value.Map, error) {
	args := c.Args.Copy()
	waitV, _ := args.Delete("wait_for")
	wait := time.Duration(value.ToFloat(waitV) * float64(time.Second))
	var interval time.Duration
	iv, hasInterval := args.Get("request_interval")
	if hasInterval {
		interval = time.Duration(value.ToFloat(iv) * float64(time.Second))
	}
	start := time.Now()
	for {
		ret, err := httpQueryState(c, args.Copy())
		if err == nil && value.Truthy(getv(ret, "result")) {
			return ret, nil
		}
		if time.Since(start) > wait {
			return ret, err
		}
		if c.Ctx != nil && c.Ctx.Err() != nil {
			return ret, err
		}
		if hasInterval {
			time.Sleep(interval)
		}
	}
}

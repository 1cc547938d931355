package modules

// cmdmod_powershell.go is cmd.powershell and cmd.powershell_all of
// salt/modules/cmdmod.py as they behave on Linux. Salt wants the shell
// named "powershell" or "pwsh"; like any cmd shell it must exist as a
// file in the current directory (the name is not looked up on the PATH
// for that check) while the command runs the one found on the PATH.
// cmd.powershell reads the PowerShell version from the Windows registry
// part of cmd.shell_info, which Linux never fills in: after probing the
// "powershell" program it always fails with KeyError 'psversion'.

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"unicode/utf16"

	"brine/internal/execmod"
	"brine/internal/output"
	"brine/internal/value"
)

func init() {
	execmod.Register("cmd.powershell", cmdPowershell,
		"Run a PowerShell command and return its output parsed as JSON (on Linux: the shell check, then Salt's KeyError 'psversion').")
	execmod.Register("cmd.powershell_all", cmdPowershellAll,
		"Run a PowerShell command (shell=powershell or pwsh) piped to ConvertTo-JSON; cmd.run_all's result with the parsed output under 'result'.")
}

const psShellError = "Must specify a valid powershell binary. Must be 'powershell' or 'pwsh'"

// psParams are the parameters the PowerShell functions share with the
// cmd.run family, in Salt's order, before their own.
func psParams(quietOrHide string) []execmod.Param {
	return []execmod.Param{
		execmod.Req("cmd"), execmod.Opt("cwd", nil), execmod.Opt("stdin", nil), execmod.Opt("runas", nil),
		execmod.Opt("shell", "powershell"), execmod.Opt("env", nil), execmod.Opt("clean_env", false),
		execmod.Opt("template", nil), execmod.Opt("rstrip", true), execmod.Opt("umask", nil),
		execmod.Opt("output_encoding", nil), execmod.Opt("output_loglevel", "debug"), execmod.Opt(quietOrHide, false),
		execmod.Opt("timeout", nil), execmod.Opt("reset_system_locale", true), execmod.Opt("ignore_retcode", false),
		execmod.Opt("saltenv", nil), execmod.Opt("use_vt", false), execmod.Opt("password", nil),
		execmod.Opt("depth", nil), execmod.Opt("encode_cmd", false),
	}
}

// psShellOK is Salt's check of the shell argument.
func psShellOK(shell any) bool {
	return shell == "powershell" || shell == "pwsh"
}

func cmdPowershell(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := append(psParams("hide_output"), execmod.Opt("success_retcodes", nil), execmod.Opt("success_stdout", nil),
		execmod.Opt("success_stderr", nil))
	v, _, err := bindNamed("powershell", args, kwargs, params)
	if err != nil {
		return nil, err
	}
	if !psShellOK(v["shell"]) {
		return nil, execmod.Errorf(psShellError)
	}
	// Salt probes the "powershell" program, then reads psversion, which
	// only the Windows registry answer of shell_info carries.
	if _, err := ctx.Call("cmd.shell_info", []any{"powershell"}, nil); err != nil {
		return nil, err
	}
	return nil, netPyErrorf("KeyError", "'psversion'")
}

// encodePowershell is -EncodedCommand's argument: the command, with the
// progress bar silenced, as base64 of UTF-16LE.
func encodePowershell(cmd string) string {
	u := utf16.Encode([]rune("$ProgressPreference='SilentlyContinue'; " + cmd))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func cmdPowershellAll(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := append(psParams("quiet"), execmod.Opt("force_list", false), execmod.Opt("success_retcodes", nil),
		execmod.Opt("success_stdout", nil), execmod.Opt("success_stderr", nil))
	v, rest, err := bindNamed("powershell_all", args, kwargs, params)
	if err != nil {
		return nil, err
	}
	if !psShellOK(v["shell"]) {
		return nil, execmod.Errorf(psShellError)
	}
	pythonShell := any(true)
	if p, ok := rest.Get("python_shell"); ok {
		pythonShell = p
		rest.Delete("python_shell")
	}
	cmd, ok := v["cmd"].(string)
	if !ok {
		t := value.TypeName(v["cmd"])
		if _, isList := v["cmd"].(*value.List); isList {
			return nil, &execmod.InvocationError{Msg: `can only concatenate list (not "str") to list`}
		}
		return nil, &execmod.InvocationError{Msg: "unsupported operand type(s) for +=: '" + t + "' and 'str'"}
	}
	cmd += " | ConvertTo-JSON"
	if v["depth"] != nil {
		cmd += " -Depth " + value.Str(v["depth"])
	}
	encoded := value.Truthy(v["encode_cmd"])
	if encoded {
		cmd = encodePowershell(cmd)
	}
	kw := rest.Copy()
	for _, k := range []string{"cwd", "stdin", "runas", "shell", "env", "clean_env", "template", "rstrip", "umask",
		"output_encoding", "output_loglevel", "timeout", "reset_system_locale", "ignore_retcode", "saltenv", "use_vt",
		"password", "success_retcodes", "success_stdout", "success_stderr"} {
		kw.Set(k, v[k])
	}
	kw.Set("python_shell", pythonShell)
	kw.Set("encoded_cmd", encoded)
	r, err := bindCmd(ctx, "cmd.run_all", []any{cmd}, kw, false, true)
	if err != nil {
		return nil, err
	}
	resp, err := runCmd(ctx, r)
	if err != nil {
		return nil, err
	}
	stdout := execmod.String(cmdGet(resp, "stdout"))
	resp.Delete("stdout")
	if stdout == "" {
		if value.Truthy(v["force_list"]) {
			resp.Set("result", value.NewList())
		}
		return resp, nil
	}
	result, err := value.FromJSON([]byte(stdout))
	if err != nil {
		resp.Set("stdout", stdout)
		resp.Set("cmd", cmd)
		return nil, errorWithInfo("cmd.powershell_all cannot parse the Powershell output.", resp)
	}
	if _, isList := result.(*value.List); !isList && value.Truthy(v["force_list"]) {
		result = value.NewList(result)
	}
	resp.Set("result", result)
	return resp, nil
}

// errorWithInfo is Salt's CommandExecutionError(message, info=info): the
// message, then the info as the nested outputter prints it.
func errorWithInfo(msg string, info any) error {
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") && !strings.HasSuffix(msg, "!") {
		msg += "."
	}
	msg += " Additional info follows:\n\n"
	if nested, ok := output.Default.Lookup("nested"); ok {
		if text, err := nested(info, &output.Options{Opts: value.NewMap(0)}); err == nil {
			return execmod.Errorf("%s%s", msg, strings.TrimRight(text, " \t\n\r\v\f"))
		}
	}
	return execmod.Errorf("%s%s", msg, value.Repr(info))
}

"""
salt.modules.cmdmod for brine: run(), run_all(), run_stdout(),
run_stderr(), retcode() and the ``_*_quiet`` variants that custom grains
import directly (``__salt__ = {'cmd.run_all': salt.modules.cmdmod.run_all}``),
with Salt 3006's defaults:

* a string command is split with shlex and run without a shell unless
  ``python_shell=True`` (then through ``shell``, default $SHELL or /bin/sh);
* cwd defaults to the home directory; env is added to the minion's
  environment (``clean_env=True``: only env); the locale is reset to C
  (``reset_system_locale``); output is decoded and right-stripped;
* run() gives stdout with stderr merged in, run_all() a dict with pid,
  retcode, stdout and stderr;
* a command that cannot be started raises CommandExecutionError.

Not supported (CommandExecutionError naming the option): runas/group as
another user, use_vt, bg.  Modules should prefer ``__salt__['cmd.*']``,
which brine provides itself.
"""

import logging
import os
import shlex
import subprocess

from salt.exceptions import CommandExecutionError, SaltInvocationError

log = logging.getLogger(__name__)

DEFAULT_SHELL = os.environ.get("SHELL", "/bin/sh")

_LOCALE_VARS = ("LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY",
                "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
                "LC_MEASUREMENT", "LC_IDENTIFICATION", "LANGUAGE")


def _current_user():
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


def _run(cmd, cwd=None, stdin=None, stderr_to_stdout=False, runas=None, group=None,
         shell=DEFAULT_SHELL, python_shell=None, env=None, clean_env=False,
         rstrip=True, umask=None, timeout=None, reset_system_locale=True,
         prepend_path=None, success_retcodes=None, use_vt=False, bg=False, **kwargs):
    if use_vt:
        raise CommandExecutionError("brine's salt.modules.cmdmod does not support use_vt")
    if bg:
        raise CommandExecutionError("brine's salt.modules.cmdmod does not support bg")
    if runas and runas != _current_user():
        raise CommandExecutionError(
            "brine's salt.modules.cmdmod does not support runas (another user): "
            "use __salt__['cmd.run_all'] instead"
        )
    if group:
        raise CommandExecutionError("brine's salt.modules.cmdmod does not support group")
    if cwd is None:
        cwd = os.path.expanduser("~")
    if not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise CommandExecutionError(
            "Specified cwd '{}' either not absolute or does not exist".format(cwd)
        )
    env = dict(env or {})
    if reset_system_locale is True:
        for var in _LOCALE_VARS:
            env.setdefault(var, "C")
    run_env = env if clean_env else dict(os.environ, **env)
    run_env = {str(k): str(v) for k, v in run_env.items()}
    if prepend_path:
        run_env["PATH"] = ":".join((prepend_path, run_env.get("PATH", "")))
    if "NOTIFY_SOCKET" not in env:
        run_env.pop("NOTIFY_SOCKET", None)
    python_shell = bool(python_shell)
    if not python_shell and not isinstance(cmd, list):
        cmd = shlex.split(cmd)
    if python_shell and isinstance(cmd, list):
        cmd = " ".join(shlex.quote(str(c)) for c in cmd)
    preexec = None
    if umask is not None:
        text = str(umask).lstrip("0")
        if text == "":
            raise CommandExecutionError("Zero umask is not allowed.")
        try:
            mask = int(text, 8)
        except ValueError:
            raise CommandExecutionError("Invalid umask: '{}'".format(umask))
        preexec = lambda: os.umask(mask)  # noqa: E731
    if success_retcodes is None:
        success_retcodes = [0]
    else:
        try:
            if isinstance(success_retcodes, (int, str)):
                success_retcodes = str(success_retcodes).split(",")
            success_retcodes = [int(i) for i in success_retcodes]
        except ValueError:
            raise SaltInvocationError("success_retcodes must be a list of integers")
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=run_env,
            shell=python_shell,
            executable=shell if python_shell else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if stderr_to_stdout else subprocess.PIPE,
            close_fds=True,
            preexec_fn=preexec,
        )
    except OSError as exc:
        raise CommandExecutionError(
            "Unable to run command '{}' with the context '{}', reason: {}".format(
                cmd, {"cwd": cwd, "shell": python_shell}, exc
            )
        )
    try:
        out, err = proc.communicate(
            input=str(stdin).encode() if stdin is not None else None, timeout=timeout
        )
        retcode = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        out = "Timed out after {} seconds".format(timeout).encode()
        err = b""
        retcode = 1

    def text(data):
        data = (data or b"").decode("utf-8", "replace")
        return data.rstrip() if rstrip else data

    if retcode in success_retcodes:
        retcode = 0
    return {"pid": proc.pid, "retcode": retcode, "stdout": text(out), "stderr": text(err)}


def run(cmd, cwd=None, stdin=None, runas=None, shell=DEFAULT_SHELL, python_shell=None,
        env=None, clean_env=False, rstrip=True, umask=None, timeout=None,
        ignore_retcode=False, reset_system_locale=True, **kwargs):
    """The output of cmd (stdout with stderr merged)."""
    ret = _run(cmd, cwd=cwd, stdin=stdin, stderr_to_stdout=True, runas=runas, shell=shell,
               python_shell=python_shell, env=env, clean_env=clean_env, rstrip=rstrip,
               umask=umask, timeout=timeout, reset_system_locale=reset_system_locale, **kwargs)
    if ret["retcode"] != 0 and not ignore_retcode:
        log.error("Command '%s' failed with return code: %s", cmd, ret["retcode"])
        log.error("output: %s", ret["stdout"])
    return ret["stdout"]


def run_stdout(cmd, cwd=None, stdin=None, runas=None, shell=DEFAULT_SHELL, python_shell=None,
               env=None, clean_env=False, rstrip=True, umask=None, timeout=None,
               ignore_retcode=False, reset_system_locale=True, **kwargs):
    """The stdout of cmd."""
    return _run(cmd, cwd=cwd, stdin=stdin, runas=runas, shell=shell, python_shell=python_shell,
                env=env, clean_env=clean_env, rstrip=rstrip, umask=umask, timeout=timeout,
                reset_system_locale=reset_system_locale, **kwargs)["stdout"]


def run_stderr(cmd, cwd=None, stdin=None, runas=None, shell=DEFAULT_SHELL, python_shell=None,
               env=None, clean_env=False, rstrip=True, umask=None, timeout=None,
               ignore_retcode=False, reset_system_locale=True, **kwargs):
    """The stderr of cmd."""
    return _run(cmd, cwd=cwd, stdin=stdin, runas=runas, shell=shell, python_shell=python_shell,
                env=env, clean_env=clean_env, rstrip=rstrip, umask=umask, timeout=timeout,
                reset_system_locale=reset_system_locale, **kwargs)["stderr"]


def run_all(cmd, cwd=None, stdin=None, runas=None, shell=DEFAULT_SHELL, python_shell=None,
            env=None, clean_env=False, rstrip=True, umask=None, timeout=None,
            ignore_retcode=False, reset_system_locale=True, redirect_stderr=False, **kwargs):
    """{'pid', 'retcode', 'stdout', 'stderr'} of cmd (redirect_stderr=True
    merges stderr into stdout)."""
    return _run(cmd, cwd=cwd, stdin=stdin, stderr_to_stdout=redirect_stderr, runas=runas,
                shell=shell, python_shell=python_shell, env=env, clean_env=clean_env,
                rstrip=rstrip, umask=umask, timeout=timeout,
                reset_system_locale=reset_system_locale, **kwargs)


def retcode(cmd, cwd=None, stdin=None, runas=None, shell=DEFAULT_SHELL, python_shell=None,
            env=None, clean_env=False, umask=None, timeout=None, ignore_retcode=False,
            reset_system_locale=True, **kwargs):
    """The exit code of cmd."""
    return _run(cmd, cwd=cwd, stdin=stdin, runas=runas, shell=shell, python_shell=python_shell,
                env=env, clean_env=clean_env, umask=umask, timeout=timeout,
                reset_system_locale=reset_system_locale, **kwargs)["retcode"]


def _run_quiet(cmd, **kwargs):
    """run() without logging a failure (Salt's core grains use it)."""
    kwargs["ignore_retcode"] = True
    return run(cmd, **kwargs)


def _run_all_quiet(cmd, **kwargs):
    """run_all() without logging (Salt's core grains use it)."""
    return run_all(cmd, **kwargs)


def _retcode_quiet(cmd, **kwargs):
    """retcode() without logging (Salt's core grains use it)."""
    return retcode(cmd, **kwargs)


def which(cmd):
    """salt.utils.path.which(cmd)."""
    import salt.utils.path

    return salt.utils.path.which(cmd)


def has_exec(cmd):
    """True if cmd is found by which()."""
    return which(cmd) is not None

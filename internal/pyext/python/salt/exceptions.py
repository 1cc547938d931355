"""
salt.exceptions for brine: the exception classes Salt 3006 defines, with
the same names, hierarchy, constructor arguments and messages.
"""

import copy
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping
from numbers import Number

import salt.defaults.exitcodes

log = logging.getLogger(__name__)


# --- Salt's "nested" outputter, without colours (used for the ``info`` of
# CommandExecutionError).  Kept here, not in a module of its own, so the
# package has no file whose name starts with "_" besides __init__.py.


def _display(ret, indent, prefix, out):
    if isinstance(ret, bytes):
        try:
            ret = ret.decode("utf-8")
        except UnicodeDecodeError:
            pass
    pad = " " * indent
    if ret is None or ret is True or ret is False:
        out.append("{}{}{}".format(pad, prefix, ret))
    elif isinstance(ret, Number):
        out.append("{}{}{!r}".format(pad, prefix, ret))
    elif isinstance(ret, str):
        first = True
        for line in ret.splitlines():
            lp = prefix if first else " " * len(prefix)
            out.append("{}{}{}".format(pad, lp, line))
            first = False
    elif isinstance(ret, (list, tuple)):
        for item in ret:
            if isinstance(item, (list, tuple, Mapping)):
                out.append(pad + "|_")
                _display(item, indent + 2, "" if isinstance(item, Mapping) else "- ", out)
            else:
                _display(item, indent, "- ", out)
    elif isinstance(ret, Mapping):
        if indent:
            out.append(pad + "----------")
        if isinstance(ret, OrderedDict):
            keys = list(ret.keys())
        else:
            try:
                keys = sorted(ret)
            except TypeError:
                ret = {str(k): v for k, v in ret.items()}
                keys = sorted(ret)
        for key in keys:
            out.append("{}{}{}:".format(pad, prefix, key))
            _display(ret[key], indent + 4, "", out)
    else:
        # Salt's outputter drops objects of other types; show their str.
        out.append("{}{}{}".format(pad, prefix, ret))
    return out


def _nested_lines(ret, indent=0):
    return "\n".join(_display(ret, indent, "", []))


def _nested_output(obj):
    """Formats obj as Salt's (colourless) nested outputter does."""
    return _nested_lines(obj).rstrip()


def get_error_message(error):
    """The human readable message of an exception (its first arg)."""
    return error.args[0] if error.args else ""


def _message_text(message):
    """The text of a message given as str, bytes or any object (an
    exception instance, say)."""
    import salt.utils.stringutils

    try:
        return salt.utils.stringutils.to_unicode(message)
    except TypeError:
        return str(message)


class SaltException(Exception):
    """Base of every Salt exception."""

    def __init__(self, message=""):
        import salt.utils.stringutils

        if not isinstance(message, str):
            message = str(message)
        super().__init__(salt.utils.stringutils.to_str(message))
        self.message = self.strerror = message

    def pack(self):
        """A msgpack/JSON-safe dict of the exception."""
        return {"message": str(self), "args": self.args}


class SaltClientError(SaltException):
    """Problem reading the master root key."""


class SaltMasterError(SaltException):
    """Problem reading the master root key."""


class SaltNoMinionsFound(SaltException):
    """An attempt to retrieve a list of minions failed."""


class SaltSyndicMasterError(SaltException):
    """Problem while proxying a request in the syndication master."""


class SaltMasterUnresolvableError(SaltException):
    """Problem resolving the name of the Salt master."""


class MasterExit(SystemExit):
    """Raised when the master exits."""


class AuthenticationError(SaltException):
    """Signature verification failed."""


class InvalidKeyError(SaltException):
    """An invalid RSA key."""


class CommandNotFoundError(SaltException):
    """A required binary is not available."""


class CommandExecutionError(SaltException):
    """A module ran a command that failed; shows the output gracefully.

    ``info`` (optional) is appended to the message in nested-outputter form,
    and kept as ``self.info``.
    """

    def __init__(self, message="", info=None):
        prefix = _message_text(message)
        self.error = prefix
        self.info = info
        if self.info:
            if prefix:
                if prefix[-1] not in ".?!":
                    prefix += "."
                prefix += " "
            prefix += "Additional info follows:\n\n"
            text = prefix + _nested_output(self.info)
            if isinstance(self.info, dict):
                rest = copy.deepcopy(self.info)
                rest.pop("changes", None)
                if rest:
                    self.strerror_without_changes = prefix + _nested_output(rest)
                else:
                    self.strerror_without_changes = self.error
            else:
                self.strerror_without_changes = text
        else:
            self.strerror_without_changes = text = self.error
        super().__init__(text)


class LoaderError(SaltException):
    """Problems loading the right renderer."""


class PublishError(SaltException):
    """Problems publishing a command."""


class MinionError(SaltException):
    """Minion problems reading uris such as salt:// or http://."""


class FileserverConfigError(SaltException):
    """Invalid fileserver settings."""


class FileLockError(SaltException):
    """An error obtaining a file lock."""

    def __init__(self, message, time_start=None, *args, **kwargs):
        super().__init__(message, *args, **kwargs)
        if time_start is None:
            log.warning(
                "time_start should be provided when raising a FileLockError. "
                "Defaulting to current time as a fallback, but this may "
                "result in an inaccurate timeout."
            )
            self.time_start = time.time()
        else:
            self.time_start = time_start


class GitLockError(SaltException):
    """An error obtaining a gitfs lock (carries errno; not an OSError)."""

    def __init__(self, errno, message, *args, **kwargs):
        super().__init__(message, *args, **kwargs)
        self.errno = errno


class GitRemoteError(SaltException):
    """A problem with a git remote."""


class SaltInvocationError(SaltException, TypeError):
    """Wrong arguments passed to a module or on the command line."""


class PkgParseError(SaltException):
    """A pkg module could not parse its tool's output."""


class SaltRenderError(SaltException):
    """A renderer's error; with line_num and buf the message carries the
    context lines around the failing line."""

    def __init__(
        self,
        message,
        line_num=None,
        buf="",
        marker="    <======================",
        trace=None,
    ):
        import salt.utils.stringutils

        self.error = message
        text = _message_text(message)
        self.line_num = line_num
        self.buffer = buf
        self.context = ""
        if trace:
            text += "\n{}\n".format(trace)
        if self.line_num and self.buffer:
            self.context = salt.utils.stringutils.get_context(
                self.buffer, self.line_num, marker=marker
            )
            text += "; line {}\n\n{}".format(
                self.line_num, salt.utils.stringutils.to_unicode(self.context)
            )
        super().__init__(text)


class SaltClientTimeout(SaltException):
    """A job sent through a client interface timed out."""

    def __init__(self, message, jid=None, *args, **kwargs):
        super().__init__(message, *args, **kwargs)
        self.jid = jid


class SaltCacheError(SaltException):
    """Problem reading or writing the salt cache."""


class TimeoutError(SaltException):  # noqa: A001 - Salt's name
    """An operation did not complete in time."""


class SaltReqTimeoutError(SaltException):
    """A master request did not return in time."""


class TimedProcTimeoutError(SaltException):
    """A timed subprocess did not end within its timeout."""


class EauthAuthenticationError(SaltException):
    """eauth authentication failed."""


class TokenAuthenticationError(SaltException):
    """Token authentication failed."""


class SaltDeserializationError(SaltException):
    """Data could not be deserialized."""


class AuthorizationError(SaltException):
    """Runner or wheel execution failed for lack of permission."""


class SaltDaemonNotRunning(SaltException):
    """A needed daemon is not running."""


class SaltRunnerError(SaltException):
    """Problem in a runner."""


class SaltWheelError(SaltException):
    """Problem in a wheel."""


class SaltConfigurationError(SaltException):
    """Configuration error."""


class SaltSystemExit(SystemExit):
    """An unsolvable problem: Salt should just exit."""

    def __init__(self, code=0, msg=None):
        SystemExit.__init__(self, msg)


class SaltCloudException(SaltException):
    """Generic Salt Cloud exception."""


class SaltCloudSystemExit(SaltCloudException):
    """Execution should stop."""

    def __init__(self, message, exit_code=salt.defaults.exitcodes.EX_GENERIC):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class SaltCloudConfigError(SaltCloudException):
    """A needed configuration setting is missing."""


class SaltCloudNotFound(SaltCloudException):
    """A cloud provider could not find what was searched."""


class SaltCloudExecutionTimeout(SaltCloudException):
    """Too much time passed while querying/waiting."""


class SaltCloudExecutionFailure(SaltCloudException):
    """Too many failures while querying/waiting."""


class SaltCloudPasswordError(SaltCloudException):
    """Virtual terminal password input failed."""


class NotImplemented(SaltException):  # noqa: A001 - Salt's name
    """A module runs a command that is not implemented."""


class TemplateError(SaltException):
    """A custom error triggered in a template."""


class ArgumentValueError(CommandExecutionError):
    """An invalid argument was passed to a command execution."""


class CheckError(CommandExecutionError):
    """A check failed."""


class InvalidConfigError(CommandExecutionError):
    """The config is invalid."""


class InvalidEntityError(CommandExecutionError):
    """An entity fails validation."""


class VMwareSaltError(CommandExecutionError):
    """A VMware object cannot be retrieved."""


class VMwareRuntimeError(VMwareSaltError):
    """A runtime error talking to vCenter."""


class VMwareConnectionError(VMwareSaltError):
    """Connecting to vCenter/ESXi failed."""


class VMwareObjectRetrievalError(VMwareSaltError):
    """A VMware object cannot be retrieved."""


class VMwareObjectNotFoundError(VMwareSaltError):
    """A VMware object was not found."""


class VMwareObjectExistsError(VMwareSaltError):
    """A VMware object already exists."""


class VMwareMultipleObjectsError(VMwareObjectRetrievalError):
    """Several objects were retrieved where one was expected."""


class VMwareNotFoundError(VMwareSaltError):
    """A VMware object was not found."""


class VMwareApiError(VMwareSaltError):
    """A generic VMware API error."""


class VMwareFileNotFoundError(VMwareApiError):
    """A VMware file was not found."""


class VMwareSystemError(VMwareSaltError):
    """A generic VMware system error."""


class VMwarePowerOnError(VMwareSaltError):
    """Power on failed."""


class VMwareVmRegisterError(VMwareSaltError):
    """A configuration parameter is incorrect."""


class VMwareVmCreationError(VMwareSaltError):
    """A configuration parameter is incorrect."""


class MissingSmb(SaltException):
    """No smb library is found."""


class LoggingRuntimeError(RuntimeError):
    """An error while logging."""


class NxosError(SaltException):
    """NX-OS base exception."""


class NxosCliError(NxosError):
    """An NX-OS CLI command was rejected."""


class NxosClientError(NxosError):
    """Problem connecting to the NX-OS device."""


class NxosRequestNotSupported(NxosError):
    """An NX-OS request is not supported."""


class CodePageError(CommandExecutionError):
    """A code page error (Windows)."""

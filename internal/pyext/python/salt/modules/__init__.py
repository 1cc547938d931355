"""
salt.modules for brine.

Salt's execution modules are not importable from brine's compatibility
package: custom modules reach them through ``__salt__`` (which brine
fills with its own implementations).  The exceptions are what custom
grains import directly: ``salt.modules.file`` (its path predicates) and
``salt.modules.cmdmod`` (run, run_all, run_stdout, run_stderr, retcode
and the ``_*_quiet`` variants).
"""

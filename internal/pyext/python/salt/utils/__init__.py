"""
salt.utils for brine.

Salt 3006 keeps its helpers in submodules (salt.utils.files,
salt.utils.stringutils, ...); the old top-level helpers of Salt <= 2017.7
(salt.utils.fopen, salt.utils.which, salt.utils.is_windows, ...) are gone
from 3006, and so they are from brine: code that needs them fails as it
would on a 3006 minion.
"""

"""salt.defaults: the default constants custom modules use."""

# The delimiter of nested keys (pillar.get('a:b:c'), traverse_dict, ...).
DEFAULT_TARGET_DELIM = ":"

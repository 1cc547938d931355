"""salt.utils.validate: validation helpers (brine ships salt.utils.validate.net)."""

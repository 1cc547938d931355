-- nothing to run
/* at all */

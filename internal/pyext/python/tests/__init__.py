"""Tests of brine's Salt compatibility package (run with unittest discover)."""

import logging

# The package logs errors for invalid input (as Salt does); keep the test
# output quiet.
logging.disable(logging.CRITICAL)
